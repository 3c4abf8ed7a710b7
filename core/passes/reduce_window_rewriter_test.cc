// ReduceWindowRewriter (reduce_window_rewriter.h): which reduce-windows are
// scans it rewrites, what it leaves alone, and the values: the evaluator's
// result after the pass against prefix sums, maxima and suffix sums
// computed here by hand, and against the evaluator before the pass.
#include "core/passes/reduce_window_rewriter.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/evaluator.h"
#include "core/literal/literal.h"
#include "core/passes/pass_test_util.h"
#include "core/shape/shape_util.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using pass_test::Parse;
using pass_test::Print;
using pass_test::RunPass;

// JAX's cumulative reductions as XLA prints them: a reduce-window over
// dimension `dim` of x (`type`[`dims`]) with the whole dimension as the
// window, padded before it (after it when `reverse`).
std::string ScanModule(const std::string& type,
                       const std::vector<int64_t>& dims, int64_t dim,
                       bool reverse, const std::string& reducer,
                       const std::string& init) {
  std::string window = "size=";
  std::string pad = " pad=";
  std::string shape;
  for (size_t d = 0; d < dims.size(); ++d) {
    const bool scanned = static_cast<int64_t>(d) == dim;
    const int64_t n = dims[d];
    absl::StrAppend(&window, d ? "x" : "", scanned ? n : 1);
    absl::StrAppend(&pad, d ? "x" : "",
                    scanned ? (reverse ? absl::StrCat("0_", n - 1)
                                       : absl::StrCat(n - 1, "_0"))
                            : "0_0");
    absl::StrAppend(&shape, d ? "," : "", n);
  }
  return absl::StrCat(
      "HloModule scan\n\nf {\n  a = ", type, "[] parameter(0)\n  b = ", type,
      "[] parameter(1)\n  ROOT r = ", type, "[] ", reducer,
      "(a, b)\n}\n\nENTRY e {\n  x = ", type, "[", shape,
      "] parameter(0)\n  init = ", type, "[] constant(", init,
      ")\n  ROOT s = ", type, "[", shape, "] reduce-window(x, init), window={",
      window, pad, "}, to_apply=f\n}\n");
}

// The largest window of any reduce-window left in the module.
int64_t LongestWindow(const Module& m) {
  int64_t longest = 0;
  for (const Computation* c : m.computations()) {
    for (const Instruction* h : c->instructions()) {
      if (h->opcode() != HloOpcode::kReduceWindow) continue;
      for (const WindowDimension& w : h->attrs().window->dimensions) {
        longest = std::max(longest, w.size);
      }
    }
  }
  return longest;
}

// The evaluator's result of `hlo` on `x` before (unless `before` is
// false: a long scan as written takes the evaluator N²/2 steps) and after
// the pass (which must rewrite it), and the longest window left.
struct Results {
  Literal before, after;
  int64_t longest_window = 0;
};
Results Evaluate(const std::string& hlo, const Literal& x,
                 bool with_before = true) {
  Results out;
  std::unique_ptr<Module> m = Parse(hlo);
  if (m == nullptr) return out;
  const Evaluator evaluator;
  absl::StatusOr<Literal> before = Literal();
  if (with_before) before = evaluator.Run(*m, {x});
  EXPECT_TRUE(before.ok()) << before.status();
  ReduceWindowRewriter rewriter;
  EXPECT_TRUE(RunPass(rewriter, *m)) << hlo;
  out.longest_window = LongestWindow(*m);
  absl::StatusOr<Literal> after = evaluator.Run(*m, {x});
  EXPECT_TRUE(after.ok()) << after.status() << "\n" << Print(*m);
  if (before.ok()) out.before = std::move(*before);
  if (after.ok()) out.after = std::move(*after);
  return out;
}

Literal S32(const std::vector<int64_t>& dims, int32_t (*f)(int64_t)) {
  Literal lit(ShapeUtil::MakeShape(PrimitiveType::S32, dims));
  const int64_t n = ShapeUtil::ElementsIn(lit.shape());
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = f(i);
    std::memcpy(lit.mutable_data().data() + i * sizeof(v), &v, sizeof(v));
  }
  return lit;
}

TEST(ReduceWindowRewriterTest, CumsumNotAMultipleOfTheBlock) {
  // 1000 = 7 blocks of 128 and 104 more: padded to 1024.
  const Literal x =
      S32({1000}, [](int64_t i) { return static_cast<int32_t>(i % 7) - 3; });
  const Results r =
      Evaluate(ScanModule("s32", {1000}, 0, false, "add", "0"), x);
  EXPECT_LE(r.longest_window, 128);
  EXPECT_EQ(r.after, r.before);
  int32_t sum = 0;  // by hand
  for (int64_t i = 0; i < 1000; ++i) {
    sum += static_cast<int32_t>(i % 7) - 3;
    ASSERT_EQ(r.after.Get<int32_t>({i}), sum) << i;
  }
}

TEST(ReduceWindowRewriterTest, ReverseCumsumAlongTheSecondDimension) {
  // x[r, i] = r * 1000 + i; element i sums i..299 of its row.
  const Literal x = S32({3, 300}, [](int64_t k) {
    return static_cast<int32_t>((k / 300) * 1000 + k % 300);
  });
  const Results r =
      Evaluate(ScanModule("s32", {3, 300}, 1, true, "add", "0"), x);
  EXPECT_LE(r.longest_window, 128);
  EXPECT_EQ(r.after, r.before);
  for (int64_t row = 0; row < 3; ++row) {
    int32_t sum = 0;
    for (int64_t i = 299; i >= 0; --i) {
      sum += static_cast<int32_t>(row * 1000 + i);
      ASSERT_EQ(r.after.Get<int32_t>({row, i}), sum) << row << "," << i;
    }
  }
}

TEST(ReduceWindowRewriterTest, CummaxFromAnyInitAlongTheFirstDimension) {
  // Maximum is idempotent: the init (here 5, above some elements) may be
  // applied once per block. x[i, c] = (i * 37 + c * 11) % 101 - 50.
  Literal x(ShapeUtil::MakeShape(PrimitiveType::F32, {500, 2}));
  for (int64_t i = 0; i < 500; ++i) {
    for (int64_t c = 0; c < 2; ++c) {
      x.Set<float>({i, c}, static_cast<float>((i * 37 + c * 11) % 101 - 50));
    }
  }
  const Results r =
      Evaluate(ScanModule("f32", {500, 2}, 0, false, "maximum", "5"), x);
  EXPECT_EQ(r.after, r.before);
  for (int64_t c = 0; c < 2; ++c) {
    float running = 5;
    for (int64_t i = 0; i < 500; ++i) {
      running = std::max(running, x.Get<float>({i, c}));
      ASSERT_EQ(r.after.Get<float>({i, c}), running) << i << "," << c;
    }
  }
}

TEST(ReduceWindowRewriterTest, LongScansAreRewrittenUntilEveryWindowIsShort) {
  // 40000 elements: 313 blocks of 128, whose totals are scanned in blocks
  // again (3 of 128).
  const Literal x =
      S32({40000}, [](int64_t i) { return static_cast<int32_t>(i % 11) - 5; });
  const Results r = Evaluate(ScanModule("s32", {40000}, 0, false, "add", "0"),
                             x, /*with_before=*/false);
  EXPECT_LE(r.longest_window, 128);
  int32_t sum = 0;
  for (int64_t i = 0; i < 40000; ++i) {
    sum += static_cast<int32_t>(i % 11) - 5;
    ASSERT_EQ(r.after.Get<int32_t>({i}), sum) << i;
  }
}

TEST(ReduceWindowRewriterTest, LeavesAloneWhatIsNotAScanItMayRewrite) {
  const std::string not_full =
      "HloModule m\nf {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] add(a, b)\n}\nENTRY e {\n  x = s32[300] parameter(0)\n"
      "  i = s32[] constant(0)\n  ROOT s = s32[300] reduce-window(x, i), "
      "window={size=299 pad=298_0}, to_apply=f\n}\n";
  const std::string strided =
      "HloModule m\nf {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] add(a, b)\n}\nENTRY e {\n  x = s32[300] parameter(0)\n"
      "  i = s32[] constant(0)\n  ROOT s = s32[150] reduce-window(x, i), "
      "window={size=300 stride=2 pad=299_0}, to_apply=f\n}\n";
  const std::string two_dims =
      "HloModule m\nf {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
      "  ROOT r = s32[] add(a, b)\n}\nENTRY e {\n  x = s32[200,200] "
      "parameter(0)\n  i = s32[] constant(0)\n  ROOT s = s32[200,200] "
      "reduce-window(x, i), window={size=200x200 pad=199_0x199_0}, "
      "to_apply=f\n}\n";
  const struct {
    const char* why;
    std::string hlo;
  } cases[] = {
      {"as short as a block", ScanModule("s32", {128}, 0, false, "add", "0")},
      {"an add from 5 (the init would be added once per block)",
       ScanModule("s32", {1000}, 0, false, "add", "5")},
      {"a reducer that is not one operation",
       ScanModule("s32", {1000}, 0, false, "subtract", "0")},
      {"a window shorter than the dimension", not_full},
      {"a stride", strided},
      {"two scanned dimensions", two_dims},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.why);
    std::unique_ptr<Module> m = Parse(c.hlo);
    ASSERT_NE(m, nullptr);
    const std::string before = Print(*m);
    ReduceWindowRewriter rewriter;
    EXPECT_FALSE(RunPass(rewriter, *m));
    EXPECT_EQ(Print(*m), before);
  }
}

}  // namespace
}  // namespace plexa
