// sdk::CustomCallAttributes: XLA's MLIR attribute dictionary as typed
// PLX_Attribute entries (abi/sdk/custom_call_attributes.h). Expected values
// are the written literals; offsets are counted by hand (0-based).
#include "abi/sdk/custom_call_attributes.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::sdk {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<const CustomCallAttributes> ParseOk(absl::string_view text) {
  auto parsed = CustomCallAttributes::Parse(text);
  EXPECT_TRUE(parsed.ok()) << text << ": " << parsed.status();
  return parsed.ok() ? *parsed : nullptr;
}

std::string ParseError(absl::string_view text) {
  auto parsed = CustomCallAttributes::Parse(text);
  EXPECT_FALSE(parsed.ok()) << text;
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(parsed.status().message());
}

TEST(CustomCallAttributesTest, EmptyDictionaryAndEmptyText) {
  for (absl::string_view text : {"", "{}", "  { }  "}) {
    auto a = ParseOk(text);
    ASSERT_NE(a, nullptr);
    EXPECT_TRUE(a->attributes().empty()) << text;
  }
}

TEST(CustomCallAttributesTest, EveryKindSortedByName) {
  auto a = ParseOk(
      R"({n = 4 : i32, eps = 1.0e-05 : f32, name = "x", dims = array<i64: 1, 2>,)"
      R"( fs = array<f32: 1.5, 2.0>, flag = true, u = 7 : ui8, idx = 3 : index})");
  ASSERT_NE(a, nullptr);
  auto v = a->attributes();
  ASSERT_EQ(v.size(), 8u);
  const char* names[] = {"dims", "eps", "flag", "fs", "idx", "n", "name", "u"};
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_STREQ(v[i].name, names[i]);
    EXPECT_EQ(v[i].struct_size, PLX_Attribute_STRUCT_SIZE);
  }
  EXPECT_EQ(v[0].kind, PLX_Attribute_INT64_ARRAY);
  ASSERT_EQ(v[0].array_size, 2u);
  EXPECT_EQ(v[0].int64_array[0], 1);
  EXPECT_EQ(v[0].int64_array[1], 2);
  EXPECT_EQ(v[1].kind, PLX_Attribute_DOUBLE);
  EXPECT_EQ(v[1].double_value, static_cast<double>(1.0e-05f));  // f32
  EXPECT_EQ(v[2].kind, PLX_Attribute_BOOL);
  EXPECT_EQ(v[2].int64_value, 1);
  EXPECT_EQ(v[3].kind, PLX_Attribute_DOUBLE_ARRAY);
  ASSERT_EQ(v[3].array_size, 2u);
  EXPECT_EQ(v[3].double_array[0], 1.5);
  EXPECT_EQ(v[3].double_array[1], 2.0);
  EXPECT_EQ(v[4].kind, PLX_Attribute_INT64);
  EXPECT_EQ(v[4].int64_value, 3);
  EXPECT_EQ(v[5].kind, PLX_Attribute_INT64);
  EXPECT_EQ(v[5].int64_value, 4);
  EXPECT_EQ(v[6].kind, PLX_Attribute_STRING);
  EXPECT_EQ(v[6].string_size, 1u);
  EXPECT_STREQ(v[6].string_value, "x");
  EXPECT_EQ(v[7].kind, PLX_Attribute_INT64);
  EXPECT_EQ(v[7].int64_value, 7);
}

TEST(CustomCallAttributesTest, DefaultsEscapesAndEdgeValues) {
  auto a = ParseOk(
      R"({a = -8, b = 2.5, c = "q\"\\\0A", d = 1 : i1, e = -128 : si8,)"
      R"( f = 18446744073709551615 : ui64, g = 0x7F800000 : f32,)"
      R"( h = array<i1: true, false>, i = array<f64>, "quoted name" = false})");
  ASSERT_NE(a, nullptr);
  auto v = a->attributes();
  ASSERT_EQ(v.size(), 10u);
  EXPECT_STREQ(v[0].name, "a");
  EXPECT_EQ(v[0].kind, PLX_Attribute_INT64);  // no type: i64
  EXPECT_EQ(v[0].int64_value, -8);
  EXPECT_EQ(v[1].kind, PLX_Attribute_DOUBLE);  // no type: f64
  EXPECT_EQ(v[1].double_value, 2.5);
  EXPECT_EQ(v[2].kind, PLX_Attribute_STRING);
  EXPECT_EQ(std::string(v[2].string_value, v[2].string_size), "q\"\\\n");
  EXPECT_EQ(v[3].kind, PLX_Attribute_BOOL);  // 1 : i1
  EXPECT_EQ(v[3].int64_value, 1);
  EXPECT_EQ(v[4].int64_value, -128);
  EXPECT_EQ(v[5].int64_value, -1);  // 2^64 - 1 keeps its bits
  EXPECT_EQ(v[6].kind, PLX_Attribute_DOUBLE);
  EXPECT_TRUE(std::isinf(v[6].double_value) && v[6].double_value > 0);
  EXPECT_EQ(v[7].kind, PLX_Attribute_INT64_ARRAY);
  ASSERT_EQ(v[7].array_size, 2u);
  EXPECT_EQ(v[7].int64_array[0], 1);
  EXPECT_EQ(v[7].int64_array[1], 0);
  EXPECT_EQ(v[8].kind, PLX_Attribute_DOUBLE_ARRAY);
  EXPECT_EQ(v[8].array_size, 0u);
  EXPECT_STREQ(v[9].name, "quoted name");
  EXPECT_EQ(v[9].kind, PLX_Attribute_BOOL);
  EXPECT_EQ(v[9].int64_value, 0);
}

TEST(CustomCallAttributesTest, ValuesRoundToTheirType) {
  // 0.1 as bf16 is 0x3DCD = 0.10009765625; as f16 0x2E66 = 0.0999755859375.
  auto a = ParseOk("{b = 0.1 : bf16, h = 0.1 : f16}");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->attributes()[0].double_value, 0.10009765625);
  EXPECT_EQ(a->attributes()[1].double_value, 0.0999755859375);
}

TEST(CustomCallAttributesTest, ErrorsNameTheOffset) {
  // Offsets: "{n = 4 : i32, eps = }" has '}' at 20.
  EXPECT_THAT(ParseError("{n = 4 : i32, eps = }"),
              HasSubstr("at offset 20: expected a value"));
  EXPECT_THAT(ParseError("n = 4"), HasSubstr("at offset 0: expected '{'"));
  EXPECT_THAT(ParseError("{n = 4 : i65}"), HasSubstr("at offset 9"));
  EXPECT_THAT(ParseError("{u = 256 : ui8}"),
              HasSubstr("at offset 5: expected a value that fits ui8"));
  EXPECT_THAT(ParseError("{s = -129 : si8}"), HasSubstr("fits si8"));
  EXPECT_THAT(ParseError("{u = -1 : ui32}"), HasSubstr("fits ui32"));
  EXPECT_THAT(ParseError("{f = 1.0e39 : f32}"),
              HasSubstr("at offset 5: expected a value in the range of f32"));
  EXPECT_THAT(
      ParseError("{n = 1, n = 2}"),
      HasSubstr("at offset 8: expected a new name ('n' is given twice)"));
  EXPECT_THAT(ParseError("{flag}"), HasSubstr("unit attributes"));
  EXPECT_THAT(ParseError("{d = {a = 1}}"), HasSubstr("at offset 5"));
  EXPECT_THAT(ParseError("{d = [1, 2]}"), HasSubstr("at offset 5"));
  EXPECT_THAT(ParseError("{s = \"open}"), HasSubstr("at offset 5"));
  EXPECT_THAT(ParseError("{a = array<i64: 1, 2}"),
              HasSubstr("at offset 20: expected ',' or '>'"));
  EXPECT_THAT(ParseError("{a = array<i64: 1.5>}"),
              HasSubstr("an integer for i64"));
  EXPECT_THAT(ParseError("{} x"), HasSubstr("at offset 3: expected the end"));
  EXPECT_THAT(ParseError("{n = 1 : i32"), HasSubstr("the end of the text"));
}

}  // namespace
}  // namespace plexa::sdk
