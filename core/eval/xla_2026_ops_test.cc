// The evaluator on XLA's 2025-26 opcodes: what the conformance cases
// (tests/conformance/gen_new_opcode_cases.py, numpy) cannot show: the
// run-time errors of ragged-all-to-all and collective-reduce, and values by
// hand for scan in reverse and shuffle's rotate.
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

absl::StatusOr<std::vector<Literal>> RunOn(
    absl::string_view hlo, std::vector<std::vector<Literal>> args) {
  std::unique_ptr<Module> m = Parse(hlo);
  if (m == nullptr) return absl::InvalidArgumentError("parse failed");
  Evaluator evaluator;
  return evaluator.RunReplicated(*m, args);
}

std::vector<Literal> Args(std::vector<Literal> a) { return a; }

constexpr absl::string_view kRagged = R"(HloModule ra2a
ENTRY %main (input: f32[4], output: f32[4], in_off: s32[2], send: s32[2], out_off: s32[2], recv: s32[2]) -> f32[4] {
  %input = f32[4] parameter(0)
  %output = f32[4] parameter(1)
  %in_off = s32[2] parameter(2)
  %send = s32[2] parameter(3)
  %out_off = s32[2] parameter(4)
  %recv = s32[2] parameter(5)
  ROOT %r = f32[4] ragged-all-to-all(%input, %output, %in_off, %send, %out_off, %recv), replica_groups={{0,1}}
})";

std::vector<Literal> RaggedArgs(const char* input, const char* in_off,
                                const char* send, const char* out_off,
                                const char* recv) {
  return Args({L("f32[4]", input), L("f32[4]", "{-1, -1, -1, -1}"),
               L("s32[2]", in_off), L("s32[2]", send), L("s32[2]", out_off),
               L("s32[2]", recv)});
}

TEST(RaggedAllToAllTest, RowsLandAtTheSendersOutputOffsets) {
  // Replica 0 keeps its rows 0-1 (at its rows 0-1) and sends its row 2 to
  // replica 1's row 3; replica 1 sends its rows 0-1 to replica 0's rows 2-3
  // and keeps its row 3 at its row 0. Worked out by hand.
  std::vector<std::vector<Literal>> args;
  args.push_back(
      RaggedArgs("{1, 2, 3, 4}", "{0, 2}", "{2, 1}", "{0, 3}", "{2, 2}"));
  args.push_back(
      RaggedArgs("{5, 6, 7, 8}", "{0, 3}", "{2, 1}", "{2, 0}", "{1, 1}"));
  absl::StatusOr<std::vector<Literal>> r = RunOn(kRagged, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL((*r)[0], "f32[4]", "{1, 2, 5, 6}");
  EXPECT_LITERAL((*r)[1], "f32[4]", "{8, -1, -1, 3}");
}

TEST(RaggedAllToAllTest, MismatchedRecvSizesAndOutOfRangeRowsAreErrors) {
  std::vector<std::vector<Literal>> args;
  args.push_back(RaggedArgs("{1, 2, 3, 4}", "{0, 2}", "{2, 1}", "{0, 3}",
                            "{2, 1}"));  // replica 1 sends 2, not 1
  args.push_back(
      RaggedArgs("{5, 6, 7, 8}", "{0, 3}", "{2, 1}", "{2, 0}", "{1, 1}"));
  absl::StatusOr<std::vector<Literal>> r = RunOn(kRagged, std::move(args));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "recv_sizes[1] is 1"))
      << r.status();

  args.clear();
  args.push_back(RaggedArgs("{1, 2, 3, 4}", "{0, 3}", "{2, 2}", "{0, 3}",
                            "{2, 2}"));  // rows [3, 5) of 4
  args.push_back(
      RaggedArgs("{5, 6, 7, 8}", "{0, 2}", "{2, 2}", "{2, 0}", "{2, 2}"));
  r = RunOn(kRagged, std::move(args));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "out of range"))
      << r.status();
}

TEST(CollectiveReduceTest, ADynamicRootOutOfRangeIsAnError) {
  constexpr absl::string_view hlo = R"(HloModule cr
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY %main (x: f32[2], root: s32[1]) -> f32[2] {
  %x = f32[2] parameter(0)
  %root = s32[1] parameter(1)
  ROOT %r = f32[2] collective-reduce(%x, %root), replica_groups={{0,1}}, has_dynamic_root=true, to_apply=add
})";
  std::vector<std::vector<Literal>> args;
  for (int i = 0; i < 2; ++i) {
    args.push_back(Args({L("f32[2]", "{1, 2}"), L("s32[1]", "{2}")}));
  }
  absl::StatusOr<std::vector<Literal>> r = RunOn(hlo, std::move(args));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(
      r.status().message(),
      "collective-reduce dynamic root 2 at index 0 is out of range [0, 2)"))
      << r.status();
}

TEST(AllReduceTest, AWholeArrayReducerFoldsInGroupOrder) {
  // acc = x0; acc = f(acc, x1) with f(a, b) = a + 2b: {1+20, ...}.
  constexpr absl::string_view hlo = R"(HloModule ar
f {
  a = s32[2] parameter(0)
  b = s32[2] parameter(1)
  two = s32[2] constant({2, 2})
  b2 = s32[2] multiply(b, two)
  ROOT s = s32[2] add(a, b2)
}
ENTRY %main (x: s32[2]) -> s32[2] {
  %x = s32[2] parameter(0)
  ROOT %r = s32[2] all-reduce(%x), replica_groups={{0,1}}, to_apply=f
})";
  std::vector<std::vector<Literal>> args;
  args.push_back(Args({L("s32[2]", "{1, 2}")}));
  args.push_back(Args({L("s32[2]", "{10, 20}")}));
  absl::StatusOr<std::vector<Literal>> r = RunOn(hlo, std::move(args));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_LITERAL((*r)[0], "s32[2]", "{21, 42}");
  EXPECT_LITERAL((*r)[1], "s32[2]", "{21, 42}");
}

TEST(ScanTest, ReverseWritesAtTheIndexRead) {
  // A suffix sum: step k reads and writes index 3-k.
  Literal r = RunOk(R"(HloModule s
add {
  x = s32[] parameter(0)
  acc = s32[] parameter(1)
  sum = s32[] add(acc, x)
  ROOT t = (s32[], s32[]) tuple(sum, sum)
}
ENTRY e {
  in = s32[4] parameter(0)
  zero = s32[] constant(0)
  ROOT scan = (s32[4], s32[]) scan(in, zero), dimensions={0}, num_carries=1, is_reverse=true, to_apply=add
})",
                    Args({L("s32[4]", "{1, 2, 3, 4}")}));
  ASSERT_TRUE(r.shape().IsTuple());
  EXPECT_LITERAL(r.tuple_element(0), "s32[4]", "{10, 9, 7, 4}");
  EXPECT_LITERAL(r.tuple_element(1), "s32[]", "10");
}

TEST(ShuffleTest, RotateIsALeftRotationPerDimension) {
  Literal r = RunOk(R"(HloModule s
ENTRY e {
  x = s32[2,3] parameter(0)
  ROOT r = s32[2,3] shuffle(x), dimensions={0,1}, mode=rotate, shifts={1,-1}
})",
                    Args({L("s32[2,3]", "{{1, 2, 3}, {4, 5, 6}}")}));
  // Rows swapped (shift 1 of 2), then each row rotated right by one
  // (shift -1 = 2 of 3): result[i][j] = x[(i+1)%2][(j+2)%3].
  EXPECT_LITERAL(r, "s32[2,3]", "{{6, 4, 5}, {3, 1, 2}}");
}

constexpr absl::string_view kSparse = R"(HloModule sd
ENTRY e {
  lhs = f32[1,4] parameter(0)
  rhs = f32[8,1] parameter(1)
  meta = u16[1,1] parameter(2)
  ROOT d = f32[1,1] dot(lhs, rhs, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4
})";

TEST(SparseDotTest, StoredValuesGoWhereTheMetadataSays) {
  // Two groups of 4: positions (1,2) and (0,3), nibbles 0b1001 = 9 and
  // 0b1100 = 12: meta = 9 | 12 << 4 = 201. Logical lhs {0,1,2,0, 3,0,0,4}
  // times rhs 1..8: 2 + 6 + 15 + 32 = 55, by hand.
  Literal r =
      RunOk(kSparse, Args({L("f32[1,4]", "{{1, 2, 3, 4}}"),
                           L("f32[8,1]", "{{1},{2},{3},{4},{5},{6},{7},{8}}"),
                           L("u16[1,1]", "{{201}}")}));
  EXPECT_LITERAL(r, "f32[1,1]", "{{55}}");
}

TEST(SparseDotTest, MetadataOutsideTheGroupOrOutOfOrderIsAnError) {
  auto run = [&](const char* meta) {
    return RunOn(kSparse,
                 {Args({L("f32[1,4]", "{{1, 2, 3, 4}}"),
                        L("f32[8,1]", "{{1},{2},{3},{4},{5},{6},{7},{8}}"),
                        L("u16[1,1]", meta)})});
  };
  // Group 0 positions (2,1): not increasing.
  absl::StatusOr<std::vector<Literal>> r = run("{{198}}");  // 6 | 12 << 4
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(
      r.status().message(), "stored value {0,1} of operand 0 at position 1"))
      << r.status();
  // Group 0 positions (1,1): a repeat.
  r = run("{{197}}");  // 5 | 12 << 4
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(absl::StrContains(r.status().message(), "not after"))
      << r.status();
}

}  // namespace
}  // namespace plexa::eval_test
