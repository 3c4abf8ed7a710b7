#include "core/passes/ragged_dot_rewriter.h"

#include <string>

#include "absl/strings/match.h"
#include "core/passes/pass_test_util.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

// The pass's values are the evaluator's and values by hand (in each
// test's comment); the rewritten form is gone.
void ExpectSameValue(const std::string& hlo, const std::string& shape,
                     const std::string& expected) {
  RaggedDotRewriter pass;
  pass_test::ExpectSameValueAfter(pass, hlo, shape, expected, "ragged-dot(",
                                  " dot(");
}

TEST(RaggedDotRewriterTest, NonContractingBecomesAMaskedDot) {
  // Sizes {2, 2} over 5 rows: rows 0-1 keep column 0 (rhs[0]), rows 2-3
  // column 1 (rhs[1]), row 4 is beyond the sum: 0.
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = s32[5,2] constant({ {1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10} })
  b = s32[2,2,1] constant({ { {1}, {0} }, { {0}, {1} } })
  g = s64[2] constant({2, 2})
  ROOT r = s32[5,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
                  "s32[5,1]", "{ {1}, {3}, {6}, {8}, {0} }");
}

TEST(RaggedDotRewriterTest, PerBatchSizesWithBatchDimensionsListedOutOfOrder) {
  // lhs [m, b, k] with the batch dimension 1, rhs [b, g, k, n]; sizes per
  // batch [b, g] = {{1, 2}, {3, 0}}; rhs[b, 0] = 10, rhs[b, 1] = 100.
  // Batch 0 (lhs[:, 0] = 1, 2, 3): 10, 200, 300; batch 1 (4, 5, 6): 40, 50,
  // 60. The result is [b, m, n].
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = s32[3,2,1] constant({ { {1}, {4} }, { {2}, {5} }, { {3}, {6} } })
  b = s32[2,2,1,1] constant({ { { {10} }, { {100} } }, { { {10} }, { {100} } } })
  g = s32[2,2] constant({ {1, 2}, {3, 0} })
  ROOT r = s32[2,3,1] ragged-dot(a, b, g), lhs_batch_dims={1}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={2}, lhs_ragged_dims={0}, rhs_group_dims={1}
})",
                  "s32[2,3,1]",
                  "{ { {10}, {200}, {300} }, { {40}, {50}, {60} } }");
}

TEST(RaggedDotRewriterTest, ContractingMasksBothOperands) {
  // Contracting over (c, k), ragged k, sizes per c: group 0 gets 1*1 +
  // 3*100 + 4*1000 = 4301, group 1 gets 2*10 = 20.
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = s32[1,2,2] constant({ { {1, 2}, {3, 4} } })
  b = s32[2,2,1] constant({ { {1}, {10} }, { {100}, {1000} } })
  g = s32[2,2] constant({ {1, 1}, {2, 0} })
  ROOT r = s32[2,1,1] ragged-dot(a, b, g), lhs_contracting_dims={1,2}, rhs_contracting_dims={0,1}, lhs_ragged_dims={2}
})",
                  "s32[2,1,1]", "{ { {4301} }, { {20} } }");
}

TEST(RaggedDotRewriterTest, BatchIsThePlainDotAndPreferredTypesStay) {
  // 100 * 100 in s32 from s8 operands; batch rows {1,2}.{5,6} = 17 and
  // {3,4}.{7,8} = 53.
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = s8[1,1] constant({ {100} })
  b = s8[1,1,1] constant({ { {100} } })
  g = s32[1] constant({1})
  ROOT r = s32[1,1] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
                  "s32[1,1]", "{ {10000} }");
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = f32[2,1,2] constant({ { {1, 2} }, { {3, 4} } })
  b = f32[2,2,1] constant({ { {5}, {6} }, { {7}, {8} } })
  g = s32[1] constant({1})
  ROOT r = f32[2,1,1] ragged-dot(a, b, g), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, lhs_ragged_dims={0}
})",
                  "f32[2,1,1]", "{ { {17} }, { {53} } }");
}

TEST(RaggedDotRewriterTest, NoGroupsIsLeftAlone) {
  std::unique_ptr<Module> m = pass_test::Parse(R"(HloModule m
ENTRY e {
  a = f32[3,2] parameter(0)
  b = f32[0,2,4] parameter(1)
  g = s32[0] parameter(2)
  ROOT r = f32[3,4] ragged-dot(a, b, g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})");
  ASSERT_NE(m, nullptr);
  RaggedDotRewriter pass;
  EXPECT_FALSE(pass_test::RunPass(pass, *m));
}

}  // namespace
}  // namespace plexa
