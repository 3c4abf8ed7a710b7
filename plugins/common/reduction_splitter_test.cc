// ReductionSplitter (reduction_splitter.h): which reductions it splits,
// the HLO it leaves (checked by structure: the names of the new
// instructions are its own business), what it must leave alone, and the
// evaluator's result before and after the pass on several shapes and
// reducers. Expected values come from the evaluator on the unsplit module
// and, for the f32 sum, from a double-precision sum computed here.
#include "plugins/common/reduction_splitter.h"

#include <cmath>
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

namespace plexa::backend {
namespace {

using pass_test::Parse;
using pass_test::Print;
using pass_test::RunPass;

// A module reducing `x` (of type[dims_text] in `layout`) over
// `reduce_dims` with `reducer` ("add", "maximum", ...). The init is
// constant(`init`), or parameter(1) when `init` is empty.
std::string ReduceModule(const std::string& type, const std::string& dims_text,
                         const std::string& result_dims,
                         const std::string& reduce_dims,
                         const std::string& reducer,
                         const std::string& init = "",
                         const std::string& layout = "") {
  const std::string init_text =
      init.empty() ? "parameter(1)" : absl::StrCat("constant(", init, ")");
  return absl::StrCat(
      "HloModule m\n\nf {\n  a = ", type, "[] parameter(0)\n  b = ", type,
      "[] parameter(1)\n  ROOT r = ", type, "[] ", reducer,
      "(a, b)\n}\n\nENTRY e {\n  x = ", type, "[", dims_text, "]", layout,
      " parameter(0)\n  init = ", type, "[] ", init_text, "\n  ROOT r = ", type,
      "[", result_dims, "] reduce(x, init), dimensions={", reduce_dims,
      "}, to_apply=f\n}\n");
}

std::vector<int64_t> Dims(const Shape& s) {
  return std::vector<int64_t>(s.dimensions().begin(), s.dimensions().end());
}

std::vector<int64_t> Dims(absl::Span<const int64_t> d) {
  return std::vector<int64_t>(d.begin(), d.end());
}

// Runs ReductionSplitter(parts) on `hlo` and expects the entry root to be
//   reduce(reduce(reshape(x -> reshaped), init, dims={1}) -> partial,
//          init, dims={0})
// with the original result shape and reducer.
void ExpectSplit(const std::string& hlo, int64_t parts,
                 const std::string& result_shape,
                 const std::vector<int64_t>& reshaped,
                 const std::vector<int64_t>& partial) {
  std::unique_ptr<Module> module = Parse(hlo);
  ASSERT_NE(module, nullptr);
  ReductionSplitter splitter(parts);
  EXPECT_TRUE(RunPass(splitter, *module));
  const Module& m = *module;
  const Computation& entry = *m.entry_computation();
  const Instruction* total = entry.root_instruction();
  ASSERT_EQ(total->opcode(), HloOpcode::kReduce) << Print(m);
  EXPECT_EQ(ShapeUtil::HumanString(total->shape()), result_shape);
  EXPECT_EQ(Dims(total->dimensions()), std::vector<int64_t>{0});
  EXPECT_EQ(total->operand(1)->name(), "init");
  EXPECT_EQ(total->to_apply()->name(), "f");
  const Instruction* part = total->operand(0);
  ASSERT_EQ(part->opcode(), HloOpcode::kReduce) << Print(m);
  EXPECT_EQ(Dims(part->shape()), partial);
  EXPECT_EQ(Dims(part->dimensions()), std::vector<int64_t>{1});
  EXPECT_EQ(part->operand(1), total->operand(1));
  EXPECT_EQ(part->to_apply(), total->to_apply());
  const Instruction* reshape = part->operand(0);
  ASSERT_EQ(reshape->opcode(), HloOpcode::kReshape) << Print(m);
  EXPECT_EQ(Dims(reshape->shape()), reshaped);
  EXPECT_EQ(reshape->operand(0), entry.parameter_instruction(0));
}

// ---- Rewrites ------------------------------------------------------------

TEST(ReductionSplitterTest, SplitsLeadingDimensionInto64Parts) {
  ExpectSplit(ReduceModule("f32", "131072,2", "2", "0", "add", "0"), 64,
              "f32[2]", {64, 2048, 2}, {64, 2});
}

TEST(ReductionSplitterTest, SplitsAFullReductionToAScalar) {
  ExpectSplit(ReduceModule("s32", "65536", "", "0", "add", "0"), 64, "s32[]",
              {64, 1024}, {64});
}

TEST(ReductionSplitterTest, SplitsSeveralLeadingDimensionsInAnyOrder) {
  // 256 * 512 = 131072 reduced elements, 4 kept.
  ExpectSplit(ReduceModule("f32", "256,512,4", "4", "1,0", "maximum"), 64,
              "f32[4]", {64, 2048, 4}, {64, 4});
}

TEST(ReductionSplitterTest, HalvesThePartsUntilTheyDivide) {
  // 65644 = 4 * 16411: 64, 32, 16 and 8 do not divide it, 4 does.
  ExpectSplit(ReduceModule("f32", "65644", "", "0", "add", "0"), 64, "f32[]",
              {4, 16411}, {4});
}

TEST(ReductionSplitterTest, UsesTheRequestedNumberOfParts) {
  ExpectSplit(ReduceModule("f32", "131072,2", "2", "0", "add", "0"), 8,
              "f32[2]", {8, 16384, 2}, {8, 2});
}

TEST(ReductionSplitterTest, SplitsAtTheThresholds) {
  // Exactly 65536 reduced elements and exactly 8 results.
  ExpectSplit(ReduceModule("f32", "65536,8", "8", "0", "add", "0"), 64,
              "f32[8]", {64, 1024, 8}, {64, 8});
}

// ---- Leaves alone --------------------------------------------------------

struct Untouched {
  const char* why;
  std::string hlo;
};

TEST(ReductionSplitterTest, LeavesAloneWhatItMustNotSplit) {
  const Untouched cases[] = {
      {"fewer than 65536 reduced elements",
       ReduceModule("f32", "65535,2", "2", "0", "add", "0")},
      {"more than 8 results",
       ReduceModule("f32", "65536,9", "9", "0", "add", "0")},
      {"reduced dimension not leading",
       ReduceModule("f32", "4,65536", "4", "1", "add", "0")},
      {"reduced dimensions not a leading run",
       ReduceModule("f32", "65536,2,2", "2", "0,2", "add", "0")},
      {"no part count divides an odd count",
       ReduceModule("f32", "65537", "", "0", "add", "0")},
      {"column-major input",
       ReduceModule("f32", "65536,2", "2", "0", "add", "0", "{0,1}")},
      {"no result elements",
       ReduceModule("f32", "65536,0", "0", "0", "add", "0")},
      {"no reduced dimensions",
       ReduceModule("f32", "65536", "65536", "", "add", "0")},
      // The split would apply the init once per part (docs/evaluator.md:
      // once): add and multiply need a constant identity.
      {"add with a parameter init",
       ReduceModule("f32", "131072,2", "2", "0", "add")},
      {"add with init 7", ReduceModule("s32", "65644", "", "0", "add", "7")},
      {"multiply with init 2",
       ReduceModule("u32", "131072", "", "0", "multiply", "2")},
      {"a reducer other than add, multiply, maximum, minimum, and, or",
       ReduceModule("f32", "131072", "", "0", "subtract", "0")},
      {"variadic reduce",
       "HloModule m\n\nf {\n  a = f32[] parameter(0)\n  b = s32[] "
       "parameter(1)\n  c = f32[] parameter(2)\n  d = s32[] parameter(3)\n"
       "  x = f32[] add(a, c)\n  y = s32[] add(b, d)\n"
       "  ROOT t = (f32[], s32[]) tuple(x, y)\n}\n\nENTRY e {\n"
       "  p0 = f32[131072] parameter(0)\n  p1 = s32[131072] parameter(1)\n"
       "  i0 = f32[] parameter(2)\n  i1 = s32[] parameter(3)\n"
       "  ROOT r = (f32[], s32[]) reduce(p0, p1, i0, i1), dimensions={0}, "
       "to_apply=f\n}\n"},
  };
  for (const Untouched& c : cases) {
    SCOPED_TRACE(c.why);
    std::unique_ptr<Module> m = Parse(c.hlo);
    ASSERT_NE(m, nullptr);
    const std::string before = Print(*m);
    ReductionSplitter splitter;
    EXPECT_FALSE(RunPass(splitter, *m));
    EXPECT_EQ(Print(*m), before);
  }
}

// ---- Same values before and after ---------------------------------------

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A row-major literal of `type` and `dims` whose element i is make(i).
template <typename T, typename Make>
Literal MakeLiteral(PrimitiveType type, std::vector<int64_t> dims, Make make) {
  Literal lit(ShapeUtil::MakeShape(type, dims));
  const int64_t n = ShapeUtil::ElementsIn(lit.shape());
  for (int64_t i = 0; i < n; ++i) {
    const T v = make(i);
    std::memcpy(lit.mutable_data().data() + i * sizeof(T), &v, sizeof(T));
  }
  return lit;
}

// The evaluator's result of `hlo` on `args`, without and with the pass;
// fails unless the pass rewrote the module.
struct BeforeAfter {
  Literal before;
  Literal after;
};
BeforeAfter EvaluateBeforeAndAfter(const std::string& hlo,
                                   const std::vector<Literal>& args,
                                   ReductionSplitterOptions options = {}) {
  BeforeAfter out;
  std::unique_ptr<Module> m = Parse(hlo);
  if (m == nullptr) return out;
  const Evaluator evaluator;
  absl::StatusOr<Literal> before = evaluator.Run(*m, args);
  EXPECT_TRUE(before.ok()) << before.status();
  ReductionSplitter splitter(options);
  EXPECT_TRUE(RunPass(splitter, *m)) << hlo;
  absl::StatusOr<Literal> after = evaluator.Run(*m, args);
  EXPECT_TRUE(after.ok()) << after.status();
  if (before.ok()) out.before = std::move(*before);
  if (after.ok()) out.after = std::move(*after);
  return out;
}

TEST(ReductionSplitterTest, F32SumStaysWithinTheSummationErrorBound) {
  constexpr int64_t kRows = 131072;
  constexpr int64_t kCols = 3;
  uint64_t state = 1;
  const Literal x =
      MakeLiteral<float>(PrimitiveType::F32, {kRows, kCols}, [&](int64_t) {
        const double u = (SplitMix64(state) >> 11) * 0x1p-53;
        return static_cast<float>(2 * u - 1);
      });
  const BeforeAfter r = EvaluateBeforeAndAfter(
      ReduceModule("f32", "131072,3", "3", "0", "add", "0"), {x});
  for (int64_t c = 0; c < kCols; ++c) {
    double exact = 0;
    double magnitude = 0;
    for (int64_t i = 0; i < kRows; ++i) {
      const float v = x.Get<float>({i, c});
      exact += v;
      magnitude += std::fabs(v);
    }
    // Recursive summation of n terms errs by at most (n - 1) u sum|x|
    // (Higham, "Accuracy and Stability of Numerical Algorithms", 4.2);
    // the split sums 64 parts of 2048 terms, then the 64 partial sums:
    // at most (2048 + 64) u sum|x|. u = 2^-24.
    const double split_bound = (2048 + 64) * 0x1p-24 * magnitude;
    const double sequential_bound = kRows * 0x1p-24 * magnitude;
    const double after = r.after.Get<float>({c});
    const double before = r.before.Get<float>({c});
    EXPECT_LE(std::fabs(after - exact), split_bound) << "column " << c;
    EXPECT_LE(std::fabs(before - exact), sequential_bound) << "column " << c;
  }
}

TEST(ReductionSplitterTest, F32MaximumIsExact) {
  uint64_t state = 2;
  // Values in (0, 1] and their negatives: no zeros (whose sign the order
  // of a maximum may choose) and no NaN.
  const Literal x =
      MakeLiteral<float>(PrimitiveType::F32, {256, 512, 4}, [&](int64_t) {
        const uint64_t r = SplitMix64(state);
        const float v = static_cast<float>(((r >> 11) + 1) * 0x1p-53);
        return (r & 1) ? -v : v;
      });
  // Not the identity: maximum may apply it any number of times.
  const Literal init = Literal::CreateR0<float>(0.5f);
  const BeforeAfter r = EvaluateBeforeAndAfter(
      ReduceModule("f32", "256,512,4", "4", "0,1", "maximum"), {x, init});
  EXPECT_EQ(r.after, r.before) << r.after.ToString();
  // Hand check of one column: the largest of its elements.
  float largest = 0.5f;
  for (int64_t i = 0; i < 256; ++i) {
    for (int64_t j = 0; j < 512; ++j) {
      largest = std::max(largest, x.Get<float>({i, j, 1}));
    }
  }
  EXPECT_EQ(r.after.Get<float>({1}), largest);
}

TEST(ReductionSplitterTest, F32MaximumPropagatesNaN) {
  const Literal x =
      MakeLiteral<float>(PrimitiveType::F32, {65536}, [](int64_t i) {
        return i == 40000 ? std::numeric_limits<float>::quiet_NaN()
                          : static_cast<float>(i);
      });
  const Literal init = Literal::CreateR0<float>(0.0f);
  const BeforeAfter r = EvaluateBeforeAndAfter(
      ReduceModule("f32", "65536", "", "0", "maximum"), {x, init});
  EXPECT_TRUE(std::isnan(r.before.Get<float>({})));
  EXPECT_TRUE(std::isnan(r.after.Get<float>({})));
}

TEST(ReductionSplitterTest, S32SumIsExactAndWraps) {
  uint64_t state = 3;
  // Full-range values: the sum wraps many times, and wrapping addition is
  // associative, so the split must give the same bits.
  const Literal x = MakeLiteral<int32_t>(
      PrimitiveType::S32, {65644},
      [&](int64_t) { return static_cast<int32_t>(SplitMix64(state)); });
  const BeforeAfter r = EvaluateBeforeAndAfter(
      ReduceModule("s32", "65644", "", "0", "add", "0"), {x});
  EXPECT_EQ(r.after, r.before);
  uint32_t sum = 0;  // by hand, in wrapping unsigned arithmetic
  for (int64_t i = 0; i < 65644; ++i) {
    sum += static_cast<uint32_t>(x.Get<int32_t>({i}));
  }
  EXPECT_EQ(r.after.Get<int32_t>({}), static_cast<int32_t>(sum));
}

TEST(ReductionSplitterTest, U32ProductAndS8MinimumAreExact) {
  uint64_t state = 4;
  const Literal odd = MakeLiteral<uint32_t>(
      PrimitiveType::U32, {131072, 2},
      [&](int64_t) { return static_cast<uint32_t>(SplitMix64(state)) | 1u; });
  const BeforeAfter product = EvaluateBeforeAndAfter(
      ReduceModule("u32", "131072,2", "2", "0", "multiply", "1"), {odd});
  EXPECT_EQ(product.after, product.before);
  const Literal small = MakeLiteral<int8_t>(
      PrimitiveType::S8, {65536, 8},
      [&](int64_t) { return static_cast<int8_t>(SplitMix64(state)); });
  const BeforeAfter minimum =
      EvaluateBeforeAndAfter(ReduceModule("s8", "65536,8", "8", "0", "minimum"),
                             {small, Literal::CreateR0<int8_t>(-100)});
  EXPECT_EQ(minimum.after, minimum.before);
}

// ---- Balanced (the Vulkan plugin's) --------------------------------------

ReductionSplitterOptions Balanced() {
  return {.min_reduced = 8192,
          .max_result = std::numeric_limits<int64_t>::max(),
          .balanced = true,
          .trailing = true};
}

TEST(ReductionSplitterTest, BalancedSplitPadsWithTheInitToAMultiple) {
  // 100003 is prime: ceil(sqrt) = 317 parts of ceil(100003 / 317) = 316,
  // so x is padded by 317 * 316 - 100003 = 169 rows of the init.
  std::unique_ptr<Module> module =
      Parse(ReduceModule("f32", "100003,2", "2", "0", "add", "0"));
  ASSERT_NE(module, nullptr);
  ReductionSplitter splitter(Balanced());
  EXPECT_TRUE(RunPass(splitter, *module));
  const Instruction* total = module->entry_computation()->root_instruction();
  ASSERT_EQ(total->opcode(), HloOpcode::kReduce) << Print(*module);
  const Instruction* part = total->operand(0);
  ASSERT_EQ(part->opcode(), HloOpcode::kReduce) << Print(*module);
  EXPECT_EQ(Dims(part->shape()), (std::vector<int64_t>{317, 2}));
  const Instruction* reshape = part->operand(0);
  ASSERT_EQ(reshape->opcode(), HloOpcode::kReshape) << Print(*module);
  EXPECT_EQ(Dims(reshape->shape()), (std::vector<int64_t>{317, 316, 2}));
  const Instruction* pad = reshape->operand(0);
  ASSERT_EQ(pad->opcode(), HloOpcode::kPad) << Print(*module);
  EXPECT_EQ(Dims(pad->shape()), (std::vector<int64_t>{100172, 2}));
  EXPECT_EQ(pad->operand(1)->name(), "init");
}

TEST(ReductionSplitterTest, BalancedSplitKeepsExactResults) {
  uint64_t state = 5;
  // A wrapping sum over a prime count (padded with zeros) ...
  const Literal x = MakeLiteral<int32_t>(
      PrimitiveType::S32, {100003, 3},
      [&](int64_t) { return static_cast<int32_t>(SplitMix64(state)); });
  const BeforeAfter sum = EvaluateBeforeAndAfter(
      ReduceModule("s32", "100003,3", "3", "0", "add", "0"), {x}, Balanced());
  EXPECT_EQ(sum.after, sum.before);
  uint32_t column1 = 0;  // by hand
  for (int64_t i = 0; i < 100003; ++i) {
    column1 += static_cast<uint32_t>(x.Get<int32_t>({i, 1}));
  }
  EXPECT_EQ(sum.after.Get<int32_t>({1}), static_cast<int32_t>(column1));
  // ... and a maximum whose init (a parameter, larger than every element of
  // column 0) pads the rows: applied more often, it changes nothing.
  const Literal y =
      MakeLiteral<int32_t>(PrimitiveType::S32, {9001, 2}, [](int64_t i) {
        return i % 2 == 0 ? -static_cast<int32_t>(i)
                          : 7 * static_cast<int32_t>(i);
      });
  const BeforeAfter maximum =
      EvaluateBeforeAndAfter(ReduceModule("s32", "9001,2", "2", "0", "maximum"),
                             {y, Literal::CreateR0<int32_t>(5)}, Balanced());
  EXPECT_EQ(maximum.after, maximum.before);
  // Column 0 holds 0, -2, -4, ...: the init 5 wins; column 1 holds
  // 7 * (2i + 1): the last row's, 7 * 18001.
  EXPECT_EQ(maximum.after.Get<int32_t>({0}), 5);
  EXPECT_EQ(maximum.after.Get<int32_t>({1}), 7 * 18001);
}

TEST(ReductionSplitterTest, BalancedSplitOfRowsPutsThePartsLast) {
  // Row sums of [3, 10000]: 100 parts of 100, the rows kept in front.
  std::unique_ptr<Module> module =
      Parse(ReduceModule("s32", "3,10000", "3", "1", "add", "0"));
  ASSERT_NE(module, nullptr);
  ReductionSplitter splitter(Balanced());
  EXPECT_TRUE(RunPass(splitter, *module));
  const Instruction* total = module->entry_computation()->root_instruction();
  ASSERT_EQ(total->opcode(), HloOpcode::kReduce) << Print(*module);
  EXPECT_EQ(Dims(total->dimensions()), std::vector<int64_t>{1});
  const Instruction* part = total->operand(0);
  ASSERT_EQ(part->opcode(), HloOpcode::kReduce) << Print(*module);
  EXPECT_EQ(Dims(part->shape()), (std::vector<int64_t>{3, 100}));
  EXPECT_EQ(Dims(part->dimensions()), std::vector<int64_t>{2});
  EXPECT_EQ(Dims(part->operand(0)->shape()),
            (std::vector<int64_t>{3, 100, 100}));
  // Without `trailing` (the CPU plugin's) rows are left alone.
  std::unique_ptr<Module> cpu =
      Parse(ReduceModule("s32", "3,100000", "3", "1", "add", "0"));
  ASSERT_NE(cpu, nullptr);
  ReductionSplitter cpu_splitter;
  EXPECT_FALSE(RunPass(cpu_splitter, *cpu));
}

TEST(ReductionSplitterTest, BalancedSplitOfPaddedRowsIsExact) {
  // Rows of 10007 (prime): 101 parts of 100, padded by 93 zeros per row.
  uint64_t state = 6;
  const Literal x = MakeLiteral<int32_t>(
      PrimitiveType::S32, {3, 10007},
      [&](int64_t) { return static_cast<int32_t>(SplitMix64(state)); });
  const BeforeAfter sum = EvaluateBeforeAndAfter(
      ReduceModule("s32", "3,10007", "3", "1", "add", "0"), {x}, Balanced());
  EXPECT_EQ(sum.after, sum.before);
  for (int64_t row = 0; row < 3; ++row) {
    uint32_t by_hand = 0;
    for (int64_t i = 0; i < 10007; ++i) {
      by_hand += static_cast<uint32_t>(x.Get<int32_t>({row, i}));
    }
    EXPECT_EQ(sum.after.Get<int32_t>({row}), static_cast<int32_t>(by_hand));
  }
}

TEST(ReductionSplitterTest, BalancedSplitLeavesShortReductionsAlone) {
  std::unique_ptr<Module> m =
      Parse(ReduceModule("f32", "8191,4096", "4096", "0", "add", "0"));
  ASSERT_NE(m, nullptr);
  ReductionSplitter splitter(Balanced());
  EXPECT_FALSE(RunPass(splitter, *m));
}

}  // namespace
}  // namespace plexa::backend
