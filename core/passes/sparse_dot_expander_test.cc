#include "core/passes/sparse_dot_expander.h"

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
  SparseDotExpander pass;
  pass_test::ExpectSameValueAfter(pass, hlo, shape, expected,
                                  "sparsity=", " dot(");
}

TEST(SparseDotExpanderTest, LhsTwoOfFour) {
  // Row 0: positions (1,2), (0,3): meta 9 | 12 << 4 = 201, logical
  // {0,1,2,0, 3,0,0,4}; row 1: positions (0,1), (2,3): 4 | 14 << 4 = 228,
  // logical {5,6,0,0, 0,0,7,8}. Times rhs 1..8: 2+6+15+32 = 55 and
  // 5+12+49+64 = 130; times rhs 8..1: 7+12+12+4 = 35, 40+42+14+8 = 104.
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = f32[2,4] constant({ {1, 2, 3, 4}, {5, 6, 7, 8} })
  b = f32[8,2] constant({ {1, 8}, {2, 7}, {3, 6}, {4, 5}, {5, 4}, {6, 3}, {7, 2}, {8, 1} })
  m = u16[2,1] constant({ {201}, {228} })
  ROOT r = f32[2,2] dot(a, b, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4
})",
                  "f32[2,2]", "{ { 55, 35 }, { 130, 104 } }");
}

TEST(SparseDotExpanderTest, RhsSparseAlongItsFirstDimension) {
  // rhs logical [8,1] = {0,1,2,0, 3,0,0,4} (the row-0 pattern above, down
  // the column); lhs 1..8: 2 + 6 + 15 + 32 = 55.
  ExpectSameValue(R"(HloModule m
ENTRY e {
  a = s32[1,8] constant({ {1, 2, 3, 4, 5, 6, 7, 8} })
  b = s32[4,1] constant({ {1}, {2}, {3}, {4} })
  m = u16[1,1] constant({ {201} })
  ROOT r = s32[1,1] dot(a, b, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=R.0@2:4
})",
                  "s32[1,1]", "{ {55} }");
}

TEST(SparseDotExpanderTest, LeavesWhatTheVerifierRefuses) {
  // The metadata has the wrong shape: the pass leaves the dot for the
  // verifier to name.
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(R"(HloModule m
ENTRY e {
  a = f32[2,4] parameter(0)
  b = f32[8,2] parameter(1)
  meta = u16[2,2] parameter(2)
  ROOT r = f32[2,2] dot(a, b, meta), lhs_contracting_dims={1}, rhs_contracting_dims={0}, sparsity=L.1@2:4
})");
  ASSERT_TRUE(m.ok()) << m.status();
  SparseDotExpander pass;
  absl::StatusOr<bool> changed = pass.Run(**m);
  ASSERT_TRUE(changed.ok()) << changed.status();
  EXPECT_FALSE(*changed);
}

}  // namespace
}  // namespace plexa
