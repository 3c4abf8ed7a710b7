// ragged-dot on the evaluator; every expected value computed by hand in the
// comment above it.
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

TEST(RaggedDotTest, NonContractingRowsPickTheirGroup) {
  // Groups {2, 2} over 5 rows: rows 0-1 use rhs[0] (keeps column 0), rows
  // 2-3 rhs[1] (keeps column 1); row 4 is beyond the sum of the sizes: 0.
  // {1,2}->1, {3,4}->3, {5,6}->6, {7,8}->8, {9,10}->0.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[5,2] constant({ {1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10} })
  b = s32[2,2,1] constant({ { {1}, {0} }, { {0}, {1} } })
  g = s64[2] constant({2, 2})
  ROOT r = s32[5,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"),
                 "s32[5,1]", "{ {1}, {3}, {6}, {8}, {0} }");
}

TEST(RaggedDotTest, NonContractingWithBatchAndPerBatchSizes) {
  // rhs[g, b, 0, 0] = 10 for group 0 and 100 for group 1 (both batches).
  // Batch 0, sizes {1, 2}: row 0 -> 1*10, rows 1-2 -> 2*100, 3*100.
  // Batch 1, sizes {3, 0}: every row in group 0 -> 40, 50, 60.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3,1] constant({ { {1}, {2}, {3} }, { {4}, {5}, {6} } })
  b = s32[2,2,1,1] constant({ { { {10} }, { {10} } }, { { {100} }, { {100} } } })
  g = s32[2,2] constant({ {1, 2}, {3, 0} })
  ROOT r = s32[2,3,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
})"),
                 "s32[2,3,1]",
                 "{ { {10}, {200}, {300} }, { {40}, {50}, {60} } }");
  // The same sizes given as [g] apply to both batches: sizes {1, 2}.
  // Batch 1: 4*10, 5*100, 6*100.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3,1] constant({ { {1}, {2}, {3} }, { {4}, {5}, {6} } })
  b = s32[2,2,1,1] constant({ { { {10} }, { {10} } }, { { {100} }, { {100} } } })
  g = s32[2] constant({1, 2})
  ROOT r = s32[2,3,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={1}, rhs_contracting_dims={2}, lhs_ragged_dims={1}, rhs_group_dims={0}
})"),
                 "s32[2,3,1]",
                 "{ { {10}, {200}, {300} }, { {40}, {500}, {600} } }");
}

TEST(RaggedDotTest, NegativeSizesAsXlasExpander) {
  // Sizes {3, -2, 2}: group 0 covers [0,3), group 1 [3,1) (empty), group 2
  // [1,3). Rows 1 and 2 are in groups 0 and 2: 1 + 100; row 3 in none.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[4,1] constant({ {1}, {1}, {1}, {1} })
  b = s32[3,1,1] constant({ { {1} }, { {10} }, { {100} } })
  g = s32[3] constant({3, -2, 2})
  ROOT r = s32[4,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"),
                 "s32[4,1]", "{ {1}, {101}, {101}, {0} }");
}

TEST(RaggedDotTest, ContractingSplitsTheSum) {
  // k = 0..3 with sizes {1, 2, 0}: group 0 sums k=0 (1*1), group 1 k=1,2
  // (2*10 + 3*100 = 320), group 2 nothing; k=3 is in no group.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[1,4] constant({ {1, 2, 3, 4} })
  b = s32[4,1] constant({ {1}, {10}, {100}, {1000} })
  g = s32[3] constant({1, 2, 0})
  ROOT r = s32[3,1,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={0}, lhs_ragged_dims={1}
})"),
                 "s32[3,1,1]", "{ { {1} }, { {320} }, { {0} } }");
}

TEST(RaggedDotTest, ContractingWithAnOuterContractingDimension) {
  // Contracting over (c, k), ragged k, sizes per c ([x, g]):
  // c=0: sizes {1, 1}: group 0 gets a[0,0]*b[0,0] = 1*1, group 1 a[0,1]*b[0,1]
  // = 2*10; c=1: sizes {2, 0}: group 0 gets 3*100 + 4*1000.
  // Group 0: 1 + 4300 = 4301; group 1: 20.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[1,2,2] constant({ { {1, 2}, {3, 4} } })
  b = s32[2,2,1] constant({ { {1}, {10} }, { {100}, {1000} } })
  g = s32[2,2] constant({ {1, 1}, {2, 0} })
  ROOT r = s32[2,1,1] ragged-dot(a, b, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}
})"),
                 "s32[2,1,1]", "{ { {4301} }, { {20} } }");
}

TEST(RaggedDotTest, BatchIsThePlainDot) {
  // XLA's expander and JAX's reference compute dot_general and read no
  // group sizes: batch 0 {1,2}.{5,6} = 17, batch 1 {3,4}.{7,8} = 53, even
  // though the sizes sum to 1.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,1,2] constant({ { {1, 2} }, { {3, 4} } })
  b = s32[2,2,1] constant({ { {5}, {6} }, { {7}, {8} } })
  g = s32[1] constant({1})
  ROOT r = s32[2,1,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
})"),
                 "s32[2,1,1]", "{ { {17} }, { {53} } }");
}

TEST(RaggedDotTest, PreferredElementTypeAndFloats) {
  // s8 operands, s32 result: 100 * 100 = 10000 does not wrap.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s8[1,1] constant({ {100} })
  b = s8[1,1,1] constant({ { {100} } })
  g = s32[1] constant({1})
  ROOT r = s32[1,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"),
                 "s32[1,1]", "{ {10000} }");
  // bf16 with f32 accumulation: 0.5*3 + 1.5*2 = 4.5; row 1 beyond the sum.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = bf16[2,2] constant({ {0.5, 1.5}, {1, 1} })
  b = bf16[1,2,1] constant({ { {3}, {2} } })
  g = s64[1] constant({1})
  ROOT r = f32[2,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})"),
                 "f32[2,1]", "{ {4.5}, {0} }");
}

TEST(RaggedDotTest, GroupSizesAsAParameter) {
  // The same program with sizes {0, 3} and {3, 0}: every row takes the
  // second, then the first group (rhs[0] = 2, rhs[1] = 3).
  const char* hlo = R"(HloModule m
ENTRY e {
  a = f32[3,1] constant({ {1}, {2}, {3} })
  b = f32[2,1,1] constant({ { {2} }, { {3} } })
  g = s32[2] parameter(0)
  ROOT r = f32[3,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})";
  EXPECT_LITERAL(RunOk(hlo, {L("s32[2]", "{0, 3}")}), "f32[3,1]",
                 "{ {3}, {6}, {9} }");
  EXPECT_LITERAL(RunOk(hlo, {L("s32[2]", "{3, 0}")}), "f32[3,1]",
                 "{ {2}, {4}, {6} }");
}

}  // namespace
}  // namespace plexa::eval_test
