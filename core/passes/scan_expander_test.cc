#include "core/passes/scan_expander.h"

#include <string>

#include "core/passes/pass_test_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

// The values are by hand (each test's comment) and the evaluator's scan;
// after the pass the scan is gone and a while loop runs it.
void ExpectSameValue(const std::string& hlo, const std::string& shape,
                     const std::string& expected, const char* present) {
  ScanExpander pass;
  pass_test::ExpectSameValueAfter(pass, hlo, shape, expected, " scan(",
                                  present);
}

TEST(ScanExpanderTest, ReverseRunningSumAlongDimensionOne) {
  // From the end of each row: carries 3, 5, 6 and 6, 11, 15; each step's
  // output is the new carry, at the step's own index.
  ExpectSameValue(R"(HloModule m
body {
  x = s32[2] parameter(0)
  c = s32[2] parameter(1)
  s = s32[2] add(c, x)
  ROOT t = (s32[2], s32[2]) tuple(s, s)
}
ENTRY e {
  xs = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  init = s32[2] constant({0, 0})
  ROOT r = (s32[2,3], s32[2]) scan(xs, init), dimensions={1}, num_carries=1, is_reverse=true, to_apply=body
})",
                  "(s32[2,3], s32[2])",
                  "( { { 6, 5, 3 }, { 15, 11, 6 } }, { 6, 15 } )", " while(");
}

TEST(ScanExpanderTest, TwoInputsAndACarryOnlyResult) {
  // 10 + 1*2 + 2*2 + 3*2 + 4*2 = 30: the carry alone is the result.
  ExpectSameValue(R"(HloModule m
body {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  c = s32[] parameter(2)
  p = s32[] multiply(x, y)
  ROOT s = s32[] add(c, p)
}
ENTRY e {
  xs = s32[4] constant({1, 2, 3, 4})
  ys = s32[4] constant({2, 2, 2, 2})
  init = s32[] constant(10)
  ROOT r = s32[] scan(xs, ys, init), dimensions={0}, num_carries=1, to_apply=body
})",
                  "s32[]", "30", " while(");
}

TEST(ScanExpanderTest, ZeroLengthGivesTheInitsAndNoLoop) {
  ExpectSameValue(R"(HloModule m
body {
  x = f32[] parameter(0)
  c = f32[] parameter(1)
  s = f32[] add(c, x)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
ENTRY e {
  xs = f32[0] constant({})
  init = f32[] constant(2.5)
  ROOT r = (f32[0], f32[]) scan(xs, init), dimensions={0}, num_carries=1, to_apply=body
})",
                  "(f32[0], f32[])", "( {}, 2.5 )", " tuple(");
}

}  // namespace
}  // namespace plexa
