#include "core/npy/npy.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/shape/shape_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

std::string TestData(const std::string& name) {
  return std::string(PLEXA_SOURCE_DIR) + "/core/npy/testdata/" + name;
}

// Every fixture holds [[1,2,3],[4,5,6]] (see testdata/gen_npy.py).
void ExpectA23(const Literal& lit, PrimitiveType type) {
  ASSERT_EQ(lit.shape().element_type(), type) << lit.shape();
  ASSERT_EQ(lit.shape().dimensions().size(), 2u);
  EXPECT_EQ(lit.shape().dimensions(0), 2);
  EXPECT_EQ(lit.shape().dimensions(1), 3);
  double v = 1;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j, ++v) {
      EXPECT_EQ(lit.GetAsDouble({i, j}), v) << "at " << i << "," << j;
    }
  }
}

TEST(NpyTest, ReadsEveryRealAndIntegerDtype) {
  const std::pair<const char*, PrimitiveType> cases[] = {
      {"f4", F32}, {"f8", F64}, {"f2", F16}, {"i1", S8},
      {"i2", S16}, {"i4", S32}, {"i8", S64}, {"u1", U8},
      {"u2", U16}, {"u4", U32}, {"u8", U64}};
  for (const auto& [name, type] : cases) {
    SCOPED_TRACE(name);
    auto lit = ReadNpyFile(TestData(std::string("a23_") + name + ".npy"));
    ASSERT_TRUE(lit.ok()) << lit.status();
    ExpectA23(*lit, type);
  }
}

TEST(NpyTest, ReadsComplex) {
  auto c8 = ReadNpyFile(TestData("a23_c8.npy"));
  ASSERT_TRUE(c8.ok()) << c8.status();
  EXPECT_EQ(c8->shape().element_type(), C64);
  // (a23 + 1j*a23)[1][2] = 6+6j
  EXPECT_EQ(c8->GetAsComplex({1, 2}), std::complex<double>(6, 6));
  auto c16 = ReadNpyFile(TestData("a23_c16.npy"));
  ASSERT_TRUE(c16.ok()) << c16.status();
  EXPECT_EQ(c16->shape().element_type(), C128);
  // (a23 - 2j*a23)[0][1] = 2-4j
  EXPECT_EQ(c16->GetAsComplex({0, 1}), std::complex<double>(2, -4));
}

TEST(NpyTest, ReadsFortranOrderAsTheSameLogicalArray) {
  auto lit = ReadNpyFile(TestData("a23_f4_fortran.npy"));
  ASSERT_TRUE(lit.ok()) << lit.status();
  ExpectA23(*lit, F32);
}

TEST(NpyTest, ReadsVersion2) {
  auto lit = ReadNpyFile(TestData("a23_f4_v2.npy"));
  ASSERT_TRUE(lit.ok()) << lit.status();
  ExpectA23(*lit, F32);
}

TEST(NpyTest, ReadsPredScalarEmptyAndSpecialValues) {
  auto pred = ReadNpyFile(TestData("pred.npy"));
  ASSERT_TRUE(pred.ok()) << pred.status();
  EXPECT_EQ(pred->shape().ToString(false), "pred[3]");
  EXPECT_EQ(pred->GetAsInt64({0}), 1);
  EXPECT_EQ(pred->GetAsInt64({1}), 0);

  auto scalar = ReadNpyFile(TestData("scalar_f4.npy"));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_EQ(scalar->shape().ToString(false), "f32[]");
  EXPECT_EQ(scalar->GetAsDouble({}), 2.5);

  auto empty = ReadNpyFile(TestData("empty_f4.npy"));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape().ToString(false), "f32[2,0,3]");

  auto special = ReadNpyFile(TestData("special_f4.npy"));
  ASSERT_TRUE(special.ok()) << special.status();
  EXPECT_TRUE(std::isnan(special->GetAsDouble({0})));
  EXPECT_EQ(special->GetAsDouble({1}), INFINITY);
  EXPECT_EQ(special->GetAsDouble({2}), -INFINITY);
  EXPECT_TRUE(std::signbit(special->GetAsDouble({3})));
}

TEST(NpyTest, RejectsBigEndianWithAClearMessage) {
  auto lit = ReadNpyFile(TestData("a23_f4_bigendian.npy"));
  ASSERT_FALSE(lit.ok());
  EXPECT_NE(lit.status().message().find("big-endian"), std::string::npos)
      << lit.status();
}

TEST(NpyTest, WriteThenReadIsIdentityAndMatchesNumpyBytes) {
  // Our writer must produce the same bytes numpy does for a C-order array.
  std::ifstream in(TestData("a23_f4.npy"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  auto lit = ReadNpy(ss.str());
  ASSERT_TRUE(lit.ok()) << lit.status();
  auto bytes = WriteNpy(*lit);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, ss.str());
}

TEST(NpyTest, WritesNonDefaultLayoutInCOrder) {
  // f32[2,3]{0,1}: column major storage of [[1,2,3],[4,5,6]].
  Literal lit(ShapeUtil::MakeShapeWithLayout(F32, {2, 3}, {0, 1}));
  float v = 1;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 3; ++j) lit.Set<float>({i, j}, v++);
  }
  auto bytes = WriteNpy(lit);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto back = ReadNpy(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectA23(*back, F32);
}

TEST(NpyTest, Bf16OnlyWhenExpected) {
  Literal lit(ShapeUtil::MakeShape(BF16, {2}));
  lit.Set<BFloat16>({0}, BFloat16(1.5f));
  lit.Set<BFloat16>({1}, BFloat16(-2.0f));
  auto bytes = WriteNpy(lit);
  ASSERT_TRUE(bytes.ok());
  EXPECT_FALSE(ReadNpy(*bytes).ok());
  auto back = ReadNpy(*bytes, BF16);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->GetAsDouble({0}), 1.5);
  EXPECT_EQ(back->GetAsDouble({1}), -2.0);
}

TEST(NpyTest, MalformedInputsAreErrorsNotCrashes) {
  std::ifstream in(TestData("a23_f4.npy"), std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string good = ss.str();
  // Every truncation must fail cleanly.
  for (size_t n = 0; n < good.size(); ++n) {
    EXPECT_FALSE(ReadNpy(good.substr(0, n)).ok()) << "length " << n;
  }
  EXPECT_FALSE(ReadNpy("not a numpy file at all").ok());
  std::string huge = good;
  const size_t p = huge.find("(2, 3)");
  ASSERT_NE(p, std::string::npos);
  huge.replace(p, 6, "(999999999, 999999999)");
  EXPECT_FALSE(ReadNpy(huge).ok());
}

}  // namespace
}  // namespace plexa
