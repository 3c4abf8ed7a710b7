// Element-wise operations. The seed 003 broadcasting examples are checked
// instruction by instruction: the lowered HLO has equal operand shapes.
#include <functional>

#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---- Seed 003: broadcasting
// --------------------------------------------------

TEST(BroadcastingTest, ScalarPlusMatrix) {
  // |1 2 3| + 7 = |8  9  10|
  // |4 5 6|       |11 12 13|
  Builder b("scalar_plus_matrix");
  Op m = b.ConstantR2<float>({{1, 2, 3}, {4, 5, 6}});
  Op s = b.ConstantR0<float>(7);
  Op r = b.Add(m, s);
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, F32({2, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("constant f32[2,3]", "constant f32[]",
                          "broadcast f32[2,3] {}", "add f32[2,3]"));
  EXPECT_THAT(EntryLines(*mod),
              ElementsAre(HasSubstr("constant({ { 1, 2, 3 }, { 4, 5, 6 } })"),
                          HasSubstr("constant(7)"),
                          "%broadcast.0 = f32[2,3] broadcast(%constant.1), "
                          "dimensions={}",
                          "ROOT %add.0 = f32[2,3] add(%constant.0, "
                          "%broadcast.0)"));
}

TEST(BroadcastingTest, MatrixPlusVectorAlongDimension1) {
  // (2,3) + (3) with broadcast_dimensions (1): the vector is each row.
  Builder b("matrix_plus_row");
  Op m = b.Parameter(0, F32({2, 3}), "m");
  Op v = b.Parameter(1, F32({3}), "v");
  Op r = b.Add(m, v, {1});
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[2,3]", "parameter f32[3]",
                          "broadcast f32[2,3] {1}", "add f32[2,3]"));
  EXPECT_THAT(
      EntryLines(*mod),
      ElementsAre("%m = f32[2,3] parameter(0)", "%v = f32[3] parameter(1)",
                  "%broadcast.0 = f32[2,3] broadcast(%v), dimensions={1}",
                  "ROOT %add.0 = f32[2,3] add(%m, %broadcast.0)"));
}

TEST(BroadcastingTest, SquareMatrixBothWays) {
  // (3,3) + (3): broadcast dimension 1 copies the vector into each row,
  // broadcast dimension 0 into each column.
  for (int64_t d : {0, 1}) {
    Builder b("square");
    Op m = b.Parameter(0, F32({3, 3}), "m");
    Op v = b.Parameter(1, F32({3}), "v");
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Add(m, v, {d})));
    EXPECT_EQ(Summaries(*mod->entry_computation())[2],
              absl::StrCat("broadcast f32[3,3] {", d, "}"));
  }
}

TEST(BroadcastingTest, BroadcastDimensionZeroInvalidFor2x3) {
  // "Note: adding a 2x3 matrix to a 3-element vector with broadcast
  // dimension 0 is invalid."
  Builder b("invalid_dim0");
  Op m = b.Parameter(0, F32({2, 3}), "m");
  Op v = b.Parameter(1, F32({3}), "v");
  b.Add(m, v, {0});
  ExpectBuildError(b, "Add", {"f32[2,3]", "f32[3]"});
}

TEST(BroadcastingTest, CuboidPlusMatrix) {
  // 2x3x4 cuboid and 3x4 matrix with broadcast tuple (1,2).
  Builder b("cuboid");
  Op c = b.Parameter(0, F32({2, 3, 4}), "c");
  Op m = b.Parameter(1, F32({3, 4}), "m");
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Add(c, m, {1, 2})));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[2,3,4]", "parameter f32[3,4]",
                          "broadcast f32[2,3,4] {1,2}", "add f32[2,3,4]"));
}

TEST(BroadcastingTest, FormalDefinitionPairs) {
  // MxNxPxQ with a TxV matrix on dims (2,3), (1,2), (0,3); order must be
  // strictly increasing ("matching V to N and T to P is illegal").
  const Shape big = F32({2, 3, 4, 5});
  struct Case {
    std::vector<int64_t> dims;
    Shape small;
  };
  for (const Case& c : {Case{{2, 3}, F32({4, 5})}, Case{{1, 2}, F32({3, 4})},
                        Case{{0, 3}, F32({2, 5})}}) {
    Builder b("pairs");
    Op x = b.Parameter(0, big, "x");
    Op y = b.Parameter(1, c.small, "y");
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Mul(y, x, c.dims)));
    EXPECT_EQ(Summaries(*mod->entry_computation())[2],
              absl::StrCat("broadcast f32[2,3,4,5] {", c.dims[0], ",",
                           c.dims[1], "}"));
  }
  Builder b("decreasing");
  Op x = b.Parameter(0, big, "x");
  Op y = b.Parameter(1, F32({4, 3}), "y");
  b.Add(x, y, {2, 1});
  ExpectBuildError(b, "Add", {"strictly increasing", "f32[4,3]"});
}

TEST(BroadcastingTest, DegenerateExamples) {
  struct Case {
    Shape lhs, rhs, result;
    std::vector<std::string> summary;
  };
  const std::vector<Case> cases = {
      // 1. (2,1) and (2,3) broadcast to (2,3).
      {F32({2, 1}),
       F32({2, 3}),
       F32({2, 3}),
       {"parameter f32[2,1]", "parameter f32[2,3]", "reshape f32[2]",
        "broadcast f32[2,3] {0}", "add f32[2,3]"}},
      // 2. (1,2,5) and (7,2,5) broadcast to (7,2,5).
      {F32({1, 2, 5}),
       F32({7, 2, 5}),
       F32({7, 2, 5}),
       {"parameter f32[1,2,5]", "parameter f32[7,2,5]", "reshape f32[2,5]",
        "broadcast f32[7,2,5] {1,2}", "add f32[7,2,5]"}},
      // 3. (7,2,5) and (7,1,5) broadcast to (7,2,5).
      {F32({7, 2, 5}),
       F32({7, 1, 5}),
       F32({7, 2, 5}),
       {"parameter f32[7,2,5]", "parameter f32[7,1,5]", "reshape f32[7,5]",
        "broadcast f32[7,2,5] {0,2}", "add f32[7,2,5]"}},
      // Outer operation: (2,1) and (1,3) broadcast to (2,3).
      {F32({2, 1}),
       F32({1, 3}),
       F32({2, 3}),
       {"parameter f32[2,1]", "parameter f32[1,3]", "reshape f32[2]",
        "broadcast f32[2,3] {0}", "reshape f32[3]", "broadcast f32[2,3] {1}",
        "add f32[2,3]"}},
  };
  for (const Case& c : cases) {
    Builder b("degenerate");
    Op x = b.Parameter(0, c.lhs, "x");
    Op y = b.Parameter(1, c.rhs, "y");
    Op r = b.Add(x, y);
    ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
    EXPECT_EQ(shape, c.result);
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
    EXPECT_EQ(Summaries(*mod->entry_computation()), c.summary);
  }
}

TEST(BroadcastingTest, DegenerateIncompatible) {
  // 4. (7,2,5) and (7,2,6) are incompatible.
  Builder b("incompatible");
  Op x = b.Parameter(0, F32({7, 2, 5}), "x");
  Op y = b.Parameter(1, F32({7, 2, 6}), "y");
  b.Add(x, y);
  ExpectBuildError(b, "Add", {"f32[7,2,5]", "f32[7,2,6]"});
}

TEST(BroadcastingTest, CompositionVectorPlus1x2) {
  // |1 2 3 4| + [5 6] with broadcast_dimensions (0): the vector becomes
  // 4x2 (dimension 0 matched, M = 2 from the 1x2 operand), then the 1x2
  // operand's degenerate dimension 0 is broadcast.
  Builder b("composition1");
  Op v = b.ConstantR1<float>({1, 2, 3, 4});
  Op m = b.ConstantR2<float>({{5, 6}});
  Op r = b.Add(v, m, {0});
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, F32({4, 2}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("constant f32[4]", "constant f32[1,2]",
                          "broadcast f32[4,2] {0}", "reshape f32[2]",
                          "broadcast f32[4,2] {1}", "add f32[4,2]"));
  EXPECT_THAT(
      EntryLines(*mod),
      ElementsAre(HasSubstr("constant({1, 2, 3, 4})"),
                  HasSubstr("constant({ { 5, 6 } })"),
                  "%broadcast.0 = f32[4,2] broadcast(%constant.0), "
                  "dimensions={0}",
                  "%reshape.0 = f32[2] reshape(%constant.1)",
                  "%broadcast.1 = f32[4,2] broadcast(%reshape.0), "
                  "dimensions={1}",
                  "ROOT %add.0 = f32[4,2] add(%broadcast.0, %broadcast.1)"));
}

TEST(BroadcastingTest, Composition1x2Plus4x3x1) {
  // A 1x2 matrix plus a 4x3x1 array with broadcast_dimensions (1,2): the
  // matrix becomes an Mx1x2 = 4x1x2 intermediate, then degenerate
  // broadcasting gives 4x3x2.
  Builder b("composition2");
  Op m = b.Parameter(0, F32({1, 2}), "m");
  Op a = b.Parameter(1, F32({4, 3, 1}), "a");
  Op r = b.Add(m, a, {1, 2});
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, F32({4, 3, 2}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[1,2]", "parameter f32[4,3,1]",
                          "broadcast f32[4,1,2] {1,2}", "reshape f32[4,2]",
                          "broadcast f32[4,3,2] {0,2}", "reshape f32[4,3]",
                          "broadcast f32[4,3,2] {0,1}", "add f32[4,3,2]"));
  EXPECT_THAT(
      EntryLines(*mod),
      ElementsAre("%m = f32[1,2] parameter(0)", "%a = f32[4,3,1] parameter(1)",
                  "%broadcast.0 = f32[4,1,2] broadcast(%m), dimensions={1,2}",
                  "%reshape.0 = f32[4,2] reshape(%broadcast.0)",
                  "%broadcast.1 = f32[4,3,2] broadcast(%reshape.0), "
                  "dimensions={0,2}",
                  "%reshape.1 = f32[4,3] reshape(%a)",
                  "%broadcast.2 = f32[4,3,2] broadcast(%reshape.1), "
                  "dimensions={0,1}",
                  "ROOT %add.0 = f32[4,3,2] add(%broadcast.1, "
                  "%broadcast.2)"));
}

TEST(BroadcastingTest, InvalidBroadcastDimensions) {
  {
    Builder b("same_rank_non_identity");
    Op x = b.Parameter(0, F32({2, 2}), "x");
    Op y = b.Parameter(1, F32({2, 2}), "y");
    b.Add(x, y, {1, 0});
    ExpectBuildError(b, "Add", {"identity", "f32[2,2]"});
  }
  {
    Builder b("out_of_range");
    Op x = b.Parameter(0, F32({2, 3}), "x");
    Op y = b.Parameter(1, F32({3}), "y");
    b.Sub(x, y, {2});
    ExpectBuildError(b, "Sub", {"out of range", "f32[2,3]"});
  }
  {
    Builder b("wrong_count");
    Op x = b.Parameter(0, F32({2, 3}), "x");
    Op y = b.Parameter(1, F32({3}), "y");
    b.Max(x, y, {0, 1});
    ExpectBuildError(b, "Max", {"f32[3]", "f32[2,3]"});
  }
  {
    Builder b("element_types");
    Op x = b.Parameter(0, F32({3}), "x");
    Op y = b.Parameter(1, S32({3}), "y");
    b.Mul(x, y);
    ExpectBuildError(b, "Mul", {"f32[3]", "s32[3]"});
  }
  {
    Builder b("tuple_operand");
    Op x = b.Parameter(0, Tup({F32({3})}), "x");
    Op y = b.Parameter(1, F32({3}), "y");
    b.Add(x, y);
    ExpectBuildError(b, "Add", {"(f32[3])"});
  }
}

// ---- Every binary operation
// ---------------------------------------------------

TEST(BinaryOpsTest, EveryOperation) {
  using Fn = std::function<Op(Builder&, Op, Op)>;
  struct Case {
    const char* name;
    Fn fn;
    PrimitiveType in;
    PrimitiveType out;
    const char* opcode;
  };
  const PrimitiveType kF = PrimitiveType::F32, kS = PrimitiveType::S32,
                      kP = PrimitiveType::PRED, kC = PrimitiveType::C64;
  const std::vector<Case> cases = {
      {"Add", [](Builder& b, Op x, Op y) { return b.Add(x, y); }, kF, kF,
       "add"},
      {"Sub", [](Builder& b, Op x, Op y) { return b.Sub(x, y); }, kF, kF,
       "subtract"},
      {"Mul", [](Builder& b, Op x, Op y) { return b.Mul(x, y); }, kS, kS,
       "multiply"},
      {"Div", [](Builder& b, Op x, Op y) { return b.Div(x, y); }, kS, kS,
       "divide"},
      {"Rem", [](Builder& b, Op x, Op y) { return b.Rem(x, y); }, kF, kF,
       "remainder"},
      {"Max", [](Builder& b, Op x, Op y) { return b.Max(x, y); }, kF, kF,
       "maximum"},
      {"Min", [](Builder& b, Op x, Op y) { return b.Min(x, y); }, kS, kS,
       "minimum"},
      {"Pow", [](Builder& b, Op x, Op y) { return b.Pow(x, y); }, kF, kF,
       "power"},
      {"Atan2", [](Builder& b, Op x, Op y) { return b.Atan2(x, y); }, kF, kF,
       "atan2"},
      {"And", [](Builder& b, Op x, Op y) { return b.And(x, y); }, kP, kP,
       "and"},
      {"Or", [](Builder& b, Op x, Op y) { return b.Or(x, y); }, kS, kS, "or"},
      {"Xor", [](Builder& b, Op x, Op y) { return b.Xor(x, y); }, kP, kP,
       "xor"},
      {"ShiftLeft", [](Builder& b, Op x, Op y) { return b.ShiftLeft(x, y); },
       kS, kS, "shift-left"},
      {"ShiftRightArithmetic",
       [](Builder& b, Op x, Op y) { return b.ShiftRightArithmetic(x, y); }, kS,
       kS, "shift-right-arithmetic"},
      {"ShiftRightLogical",
       [](Builder& b, Op x, Op y) { return b.ShiftRightLogical(x, y); }, kS, kS,
       "shift-right-logical"},
      {"Complex", [](Builder& b, Op x, Op y) { return b.Complex(x, y); }, kF,
       kC, "complex"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Builder b(absl::StrCat("binary_", c.opcode));
    Op x = b.Parameter(0, S(c.in, {2, 3}), "x");
    Op y = b.Parameter(1, S(c.in, {3}), "y");
    Op r = c.fn(b, x, y);
    // Without broadcast_dimensions the ranks must agree.
    EXPECT_FALSE(r.valid());
    ExpectBuildError(b, c.name, {});

    Builder b2(absl::StrCat("binary_", c.opcode));
    Op x2 = b2.Parameter(0, S(c.in, {2, 3}), "x");
    Op y2 = b2.Parameter(1, S(c.in, {2, 3}), "y");
    Op r2 = c.fn(b2, x2, y2);
    ASSERT_OK_AND_ASSIGN(Shape shape, b2.GetShape(r2));
    EXPECT_EQ(shape, S(c.out, {2, 3}));
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b2, r2));
    EXPECT_EQ(
        HloOpcodeString(mod->entry_computation()->root_instruction()->opcode()),
        c.opcode);
    EXPECT_THAT(Text(*mod), HasSubstr(absl::StrCat(" ", c.opcode, "(")));
  }
}

TEST(BinaryOpsTest, TypeRules) {
  {
    Builder b("shift_float");
    Op x = b.Parameter(0, F32({2}), "x");
    b.ShiftLeft(x, x);
    ExpectBuildError(b, "ShiftLeft", {"f32[2]"});
  }
  {
    Builder b("complex_s32");
    Op x = b.Parameter(0, S32({2}), "x");
    b.Complex(x, x);
    ExpectBuildError(b, "Complex", {"s32[2]"});
  }
  {
    Builder b("not_binary");
    Op x = b.Parameter(0, F32({2}), "x");
    b.BinaryOp(HloOpcode::kTuple, x, x);
    ExpectBuildError(b, "BinaryOp",
                     {"tuple is not an element-wise binary operation"});
  }
}

TEST(BinaryOpsTest, ComplexWithBroadcast) {
  Builder b("complex_broadcast");
  Op re = b.Parameter(0, F32({2, 3}), "re");
  Op im = b.Parameter(1, F32({3}), "im");
  Op r = b.Complex(re, im, {1});
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, S(PrimitiveType::C64, {2, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[2,3]", "parameter f32[3]",
                          "broadcast f32[2,3] {1}", "complex c64[2,3]"));
}

// ---- Comparisons
// ----------------------------------------------------------------

TEST(CompareTest, EveryDirection) {
  using Fn = std::function<Op(Builder&, Op, Op)>;
  const std::vector<std::pair<std::string, Fn>> cases = {
      {"EQ", [](Builder& b, Op x, Op y) { return b.Eq(x, y); }},
      {"NE", [](Builder& b, Op x, Op y) { return b.Ne(x, y); }},
      {"GE", [](Builder& b, Op x, Op y) { return b.Ge(x, y); }},
      {"GT", [](Builder& b, Op x, Op y) { return b.Gt(x, y); }},
      {"LE", [](Builder& b, Op x, Op y) { return b.Le(x, y); }},
      {"LT", [](Builder& b, Op x, Op y) { return b.Lt(x, y); }},
  };
  for (const auto& [dir, fn] : cases) {
    Builder b("compare");
    Op x = b.Parameter(0, S32({4}), "x");
    Op y = b.Parameter(1, S32({4}), "y");
    Op r = fn(b, x, y);
    ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
    EXPECT_EQ(shape, Pred({4}));
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
    EXPECT_THAT(EntryLines(*mod).back(),
                absl::StrCat("ROOT %compare.0 = pred[4] compare(%x, %y), "
                             "direction=",
                             dir));
  }
}

TEST(CompareTest, WithBroadcastDimensionsAndType) {
  Builder b("compare_broadcast");
  Op m = b.Parameter(0, F32({2, 3}), "m");
  Op v = b.Parameter(1, F32({2}), "v");
  Op r = b.Compare(m, v, ComparisonDirection::kGt, {0},
                   ComparisonType::kFloatTotalOrder);
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, Pred({2, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[2,3]", "parameter f32[2]",
                          "broadcast f32[2,3] {0}", "compare pred[2,3]"));
  EXPECT_THAT(EntryLines(*mod).back(),
              "ROOT %compare.0 = pred[2,3] compare(%m, %broadcast.0), "
              "direction=GT, type=TOTALORDER");
}

TEST(CompareTest, Errors) {
  {
    Builder b("compare_types");
    Op x = b.Parameter(0, F32({4}), "x");
    Op y = b.Parameter(1, S32({4}), "y");
    b.Eq(x, y);
    ExpectBuildError(b, "Eq", {"f32[4]", "s32[4]"});
  }
  {
    Builder b("compare_dims");
    Op x = b.Parameter(0, F32({2, 3}), "x");
    Op y = b.Parameter(1, F32({2}), "y");
    b.Lt(x, y, {1});
    ExpectBuildError(b, "Lt", {"f32[2,3]", "f32[2]"});
  }
  {
    Builder b("compare_signed_type_on_float");
    Op x = b.Parameter(0, F32({4}), "x");
    b.Compare(x, x, ComparisonDirection::kLe, {}, ComparisonType::kSigned);
    ExpectBuildError(b, "Le", {"SIGNED", "f32"});
  }
}

// ---- Unary
// ------------------------------------------------------------------------

TEST(UnaryOpsTest, EveryOperation) {
  using Fn = std::function<Op(Builder&, Op)>;
  struct Case {
    const char* name;
    Fn fn;
    PrimitiveType in;
    PrimitiveType out;
    const char* opcode;
  };
  const PrimitiveType kF = PrimitiveType::F32, kS = PrimitiveType::S32,
                      kP = PrimitiveType::PRED, kC = PrimitiveType::C64;
#define UNARY(Name, in, out, opcode)                                    \
  Case {                                                                \
#Name, [](Builder & b, Op x) { return b.Name(x); }, in, out, opcode \
  }
  const std::vector<Case> cases = {
      UNARY(Abs, kF, kF, "abs"),
      UNARY(Ceil, kF, kF, "ceil"),
      UNARY(Cos, kF, kF, "cosine"),
      UNARY(Exp, kF, kF, "exponential"),
      UNARY(Floor, kF, kF, "floor"),
      UNARY(IsFinite, kF, kP, "is-finite"),
      UNARY(Log, kF, kF, "log"),
      UNARY(Not, kP, kP, "not"),
      UNARY(Neg, kS, kS, "negate"),
      UNARY(Sign, kF, kF, "sign"),
      UNARY(Sin, kF, kF, "sine"),
      UNARY(Tanh, kF, kF, "tanh"),
      UNARY(Sqrt, kF, kF, "sqrt"),
      UNARY(Rsqrt, kF, kF, "rsqrt"),
      UNARY(Cbrt, kF, kF, "cbrt"),
      UNARY(Tan, kF, kF, "tan"),
      UNARY(Logistic, kF, kF, "logistic"),
      UNARY(Log1p, kF, kF, "log-plus-one"),
      UNARY(Expm1, kF, kF, "exponential-minus-one"),
      UNARY(RoundNearestEven, kF, kF, "round-nearest-even"),
      UNARY(RoundNearestAfz, kF, kF, "round-nearest-afz"),
      UNARY(PopulationCount, kS, kS, "popcnt"),
      UNARY(Clz, kS, kS, "count-leading-zeros"),
      UNARY(Real, kC, kF, "real"),
      UNARY(Imag, kC, kF, "imag"),
      UNARY(Erf, kF, kF, "erf"),
  };
#undef UNARY
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Builder b(absl::StrCat("unary_", c.name));
    Op x = b.Parameter(0, S(c.in, {2, 3}), "x");
    Op r = c.fn(b, x);
    ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
    EXPECT_EQ(shape, S(c.out, {2, 3}));
    // Scalars are allowed as well (seed 004).
    Op s = c.fn(b, b.Parameter(1, S(c.in, {}), "s"));
    ASSERT_OK_AND_ASSIGN(Shape scalar, b.GetShape(s));
    EXPECT_EQ(scalar, S(c.out, {}));
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({r, s})));
    EXPECT_THAT(Text(*mod), HasSubstr(absl::StrCat(" ", c.opcode, "(%x)")));
  }
}

TEST(UnaryOpsTest, TypeErrors) {
  struct Case {
    const char* name;
    std::function<Op(Builder&, Op)> fn;
    Shape in;
  };
  const std::vector<Case> cases = {
      {"Cbrt", [](Builder& b, Op x) { return b.Cbrt(x); }, S32({2})},
      {"Not", [](Builder& b, Op x) { return b.Not(x); }, F32({2})},
      {"Clz", [](Builder& b, Op x) { return b.Clz(x); }, F32({2})},
      {"IsFinite", [](Builder& b, Op x) { return b.IsFinite(x); }, S32({2})},
      {"Sqrt", [](Builder& b, Op x) { return b.Sqrt(x); }, Tup({F32({2})})},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Builder b("unary_error");
    c.fn(b, b.Parameter(0, c.in, "x"));
    ExpectBuildError(b, c.name, {c.in.ToString(false)});
  }
}

// ---- Clamp, select, conversions
// ----------------------------------------------------

TEST(ClampTest, SeedExampleWithScalarBounds) {
  // Clamp(min=0, operand=s32[3]{-1,5,9}, max=6) = {0,5,6}: today's argument
  // order clamp(min, operand, max); scalar bounds are broadcast.
  Builder b("clamp");
  Op operand = b.ConstantR1<int32_t>({-1, 5, 9});
  Op lo = b.ConstantR0<int32_t>(0);
  Op hi = b.ConstantR0<int32_t>(6);
  Op r = b.Clamp(lo, operand, hi);
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, S32({3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("constant s32[3]", "constant s32[]", "constant s32[]",
                          "broadcast s32[3] {}", "broadcast s32[3] {}",
                          "clamp s32[3]"));
  EXPECT_THAT(EntryLines(*mod).back(),
              "ROOT %clamp.0 = s32[3] clamp(%broadcast.0, %constant.0, "
              "%broadcast.1)");
}

TEST(ClampTest, ArrayBoundsAndErrors) {
  {
    Builder b("clamp_arrays");
    Op lo = b.Parameter(0, F32({3}), "lo");
    Op x = b.Parameter(1, F32({3}), "x");
    Op hi = b.Parameter(2, F32({3}), "hi");
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Clamp(lo, x, hi)));
    EXPECT_THAT(EntryLines(*mod).back(),
                "ROOT %clamp.0 = f32[3] clamp(%lo, %x, %hi)");
  }
  {
    // The seed's garbled order clamp(x, a, b) with a scalar a and b puts an
    // array where min goes and a scalar where the operand goes: rejected.
    Builder b("clamp_seed_order");
    Op x = b.Parameter(0, S32({3}), "x");
    Op a = b.Parameter(1, S32({}), "a");
    Op c = b.Parameter(2, S32({}), "c");
    b.Clamp(x, a, c);
    ExpectBuildError(b, "Clamp", {"s32[3]", "s32[]"});
  }
  {
    Builder b("clamp_types");
    Op lo = b.Parameter(0, F32({}), "lo");
    Op x = b.Parameter(1, S32({3}), "x");
    b.Clamp(lo, x, lo);
    ExpectBuildError(b, "Clamp", {"f32[]", "s32[3]"});
  }
}

TEST(SelectTest, SeedExamples) {
  {
    Builder b("select");
    Op p = b.ConstantR1<bool>({true, false, false, true});
    Op v1 = b.ConstantR1<int32_t>({1, 2, 3, 4});
    Op v2 = b.ConstantR1<int32_t>({100, 200, 300, 400});
    Op r = b.Select(p, v1, v2);
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
    EXPECT_EQ(mod->entry_computation()->root_instruction()->shape(), S32({4}));
  }
  {
    // Scalar pred: broadcast explicitly.
    Builder b("select_scalar");
    Op p = b.ConstantR0<bool>(true);
    Op v1 = b.Parameter(0, S32({4}), "v1");
    Op v2 = b.Parameter(1, S32({4}), "v2");
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Select(p, v1, v2)));
    EXPECT_THAT(
        Summaries(*mod->entry_computation()),
        ElementsAre("constant pred[]", "parameter s32[4]", "parameter s32[4]",
                    "broadcast pred[4] {}", "select s32[4]"));
  }
}

TEST(SelectTest, Errors) {
  {
    Builder b("select_shapes");
    Op p = b.Parameter(0, Pred({4}), "p");
    b.Select(p, b.Parameter(1, S32({4}), "a"), b.Parameter(2, S32({5}), "c"));
    ExpectBuildError(b, "Select", {"s32[4]", "s32[5]"});
  }
  {
    Builder b("select_pred_type");
    Op p = b.Parameter(0, S32({}), "p");
    b.Select(p, b.Parameter(1, S32({4}), "a"), b.Parameter(2, S32({4}), "c"));
    ExpectBuildError(b, "Select", {"s32[]"});
  }
  {
    // Seed 004's tuple select has no HLO form today.
    Builder b("select_tuples");
    Op p = b.Parameter(0, Pred({}), "p");
    const Shape t = Tup({F32({2}), S32({})});
    b.Select(p, b.Parameter(1, t, "a"), b.Parameter(2, t, "c"));
    ExpectBuildError(b, "Select", {"(f32[2], s32[])"});
  }
}

TEST(ConvertTest, ConvertAndBitcast) {
  Builder b("convert");
  // let a: s32[3] = {0, 1, 2}; let b: f32[3] = convert(a, f32)
  Op a = b.ConstantR1<int32_t>({0, 1, 2});
  Op c = b.ConvertElementType(a, PrimitiveType::F32);
  Op bc = b.BitcastConvertType(c, PrimitiveType::U32);
  ASSERT_OK_AND_ASSIGN(Shape sc, b.GetShape(c));
  ASSERT_OK_AND_ASSIGN(Shape sb, b.GetShape(bc));
  EXPECT_EQ(sc, F32({3}));
  EXPECT_EQ(sb, S(PrimitiveType::U32, {3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({c, bc})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("f32[3] convert(%constant.0)"));
  EXPECT_THAT(text, HasSubstr("u32[3] bitcast-convert(%convert.0)"));

  Builder bad("convert_tuple");
  bad.ConvertElementType(bad.Parameter(0, Tup({F32({})}), "t"),
                         PrimitiveType::S32);
  ExpectBuildError(bad, "ConvertElementType", {"(f32[])"});
}

TEST(ReducePrecisionTest, AttributesAndErrors) {
  Builder b("reduce_precision");
  Op x = b.Parameter(0, F32({4}), "x");
  Op r = b.ReducePrecision(x, /*exponent_bits=*/5, /*mantissa_bits=*/10);
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(EntryLines(*mod).back(),
              "ROOT %reduce-precision.0 = f32[4] reduce-precision(%x), "
              "exponent_bits=5, mantissa_bits=10");
  // "The low-precision format must have at least one exponent bit."
  Builder bad("reduce_precision_bad");
  bad.ReducePrecision(bad.Parameter(0, F32({4}), "x"), 0, 10);
  ExpectBuildError(bad, "ReducePrecision", {"f32[4]"});
}

// ---- Map
// ----------------------------------------------------------------------------

TEST(MapTest, BinaryMapAndStaticOperands) {
  Builder b("map");
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  // A 3-ary function for (elem1, elem2, static scalar).
  std::unique_ptr<Builder> fb = b.CreateSubBuilder("fma");
  Op p0 = fb->Parameter(0, F32({}), "a");
  Op p1 = fb->Parameter(1, F32({}), "b");
  Op p2 = fb->Parameter(2, F32({}), "c");
  ASSERT_OK_AND_ASSIGN(Computation * fma,
                       fb->Build(fb->Add(fb->Mul(p0, p1), p2)));
  Op x = b.Parameter(0, F32({2, 3}), "x");
  Op y = b.Parameter(1, F32({2, 3}), "y");
  Op m1 = b.Map({x, y}, add);
  Op m2 = b.Map({x, y}, fma, {}, {b.ConstantR0<float>(1.0f)});
  ASSERT_OK_AND_ASSIGN(Shape s1, b.GetShape(m1));
  ASSERT_OK_AND_ASSIGN(Shape s2, b.GetShape(m2));
  EXPECT_EQ(s1, F32({2, 3}));
  EXPECT_EQ(s2, F32({2, 3}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({m1, m2})));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[2,3]", "parameter f32[2,3]",
                          "map f32[2,3] {0,1}", "constant f32[]",
                          "broadcast f32[2,3] {}", "map f32[2,3] {0,1}",
                          "tuple (f32[2,3], f32[2,3])"));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("map(%x, %y), dimensions={0,1}, to_apply=%add"));
  EXPECT_THAT(text, HasSubstr("map(%x, %y, %broadcast.0), dimensions={0,1}, "
                              "to_apply=%fma"));
}

TEST(MapTest, Errors) {
  {
    Builder b("map_static_array");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    Op x = b.Parameter(0, F32({2}), "x");
    b.Map({x}, add, {}, {b.Parameter(1, F32({2}), "s")});
    ExpectBuildError(b, "Map", {"static operands must be scalars", "f32[2]"});
  }
  {
    Builder b("map_arity");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.Map({b.Parameter(0, F32({2}), "x")}, add);
    ExpectBuildError(b, "Map", {"f32[2]"});
  }
  {
    Builder b("map_shapes");
    Computation* add =
        ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
    b.Map({b.Parameter(0, F32({2}), "x"), b.Parameter(1, F32({3}), "y")}, add);
    ExpectBuildError(b, "Map", {"f32[2]", "f32[3]"});
  }
}

// ---- Random numbers
// -------------------------------------------------------------------

TEST(RngTest, UniformAndNormal) {
  Builder b("rng");
  // (Separate statements: argument evaluation order is unspecified and
  // the constants' names depend on their order.)
  Op lo = b.ConstantR0<float>(0);
  Op hi = b.ConstantR0<float>(1);
  Op u = b.RngUniform(lo, hi, F32({2, 3}));
  Op mu = b.ConstantR0<float>(0);
  Op sigma = b.ConstantR0<float>(1);
  Op n = b.RngNormal(mu, sigma, F32({4}));
  Op ilo = b.ConstantR0<int32_t>(0);
  Op ihi = b.ConstantR0<int32_t>(10);
  Op i = b.RngUniform(ilo, ihi, S32({5}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({u, n, i})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("f32[2,3] rng(%constant.0, %constant.1), "
                              "distribution=rng_uniform"));
  EXPECT_THAT(text, HasSubstr("f32[4] rng(%constant.2, %constant.3), "
                              "distribution=rng_normal"));
}

TEST(RngTest, Errors) {
  {
    Builder b("rng_normal_int");
    b.RngNormal(b.ConstantR0<int32_t>(0), b.ConstantR0<int32_t>(1), S32({2}));
    ExpectBuildError(b, "RngNormal", {"s32[2]"});
  }
  {
    Builder b("rng_types");
    b.RngUniform(b.ConstantR0<float>(0), b.ConstantR0<int32_t>(1), F32({2}));
    ExpectBuildError(b, "RngUniform", {"s32[]"});
  }
  {
    Builder b("rng_nonscalar");
    Op a = b.Parameter(0, F32({2}), "a");
    b.RngUniform(a, a, F32({2}));
    ExpectBuildError(b, "RngUniform", {"scalars"});
  }
}

TEST(RngTest, BitGeneratorGivesUnsignedBitsOfTheWidth) {
  // As XlaBuilder::RngBitGenerator: the bits are unsigned (f32 -> u32,
  // s8 -> u8); the result is the (state, bits) tuple.
  Builder b("rbg");
  Op state = b.Parameter(0, ShapeUtil::MakeShape(U64, {2}), "state");
  Op r = b.RngBitGenerator(RandomAlgorithm::kThreeFry, state, F32({2, 3}));
  Op state3 = b.Parameter(1, ShapeUtil::MakeShape(U64, {3}), "state3");
  Op p = b.RngBitGenerator(RandomAlgorithm::kPhilox, state3,
                           ShapeUtil::MakeShape(S8, {4}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({r, p})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("(u64[2], u32[2,3]) rng-bit-generator(%state), "
                              "algorithm=rng_three_fry"));
  EXPECT_THAT(text, HasSubstr("(u64[3], u8[4]) rng-bit-generator(%state3), "
                              "algorithm=rng_philox"));
}

TEST(RngTest, BitGeneratorErrors) {
  {
    Builder b("rbg_state");
    Op s = b.Parameter(0, ShapeUtil::MakeShape(U64, {3}), "s");
    b.RngBitGenerator(RandomAlgorithm::kThreeFry, s, F32({2}));
    ExpectBuildError(b, "RngBitGenerator", {"u64[3]", "must be u64[2]"});
  }
  {
    Builder b("rbg_pred");
    Op s = b.Parameter(0, ShapeUtil::MakeShape(U64, {2}), "s");
    b.RngBitGenerator(RandomAlgorithm::kPhilox, s,
                      ShapeUtil::MakeShape(PRED, {2}));
    ExpectBuildError(b, "RngBitGenerator", {"pred[2]"});
  }
  {
    Builder b("rbg_complex");
    Op s = b.Parameter(0, ShapeUtil::MakeShape(U64, {2}), "s");
    b.RngBitGenerator(RandomAlgorithm::kPhilox, s,
                      ShapeUtil::MakeShape(C64, {2}));
    ExpectBuildError(b, "RngBitGenerator", {"c64[2]"});
  }
}

TEST(RngTest, BernoulliIsExpanded) {
  // No opcode: u = rng(0, 1) uniform; u < broadcast(mean); convert.
  Builder b("bernoulli");
  Op mean = b.Parameter(0, F32({}), "mean");
  Op r = b.RngBernoulli(mean, S(PrimitiveType::U32, {4}));
  ASSERT_OK_AND_ASSIGN(Shape shape, b.GetShape(r));
  EXPECT_EQ(shape, S(PrimitiveType::U32, {4}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(Summaries(*mod->entry_computation()),
              ElementsAre("parameter f32[]", "constant f32[]", "constant f32[]",
                          "rng f32[4]", "broadcast f32[4] {}",
                          "compare pred[4]", "convert u32[4]"));
  EXPECT_THAT(EntryLines(*mod),
              ElementsAre("%mean = f32[] parameter(0)",
                          "%constant.0 = f32[] constant(0)",
                          "%constant.1 = f32[] constant(1)",
                          "%rng.0 = f32[4] rng(%constant.0, %constant.1), "
                          "distribution=rng_uniform",
                          "%broadcast.0 = f32[4] broadcast(%mean), "
                          "dimensions={}",
                          "%compare.0 = pred[4] compare(%rng.0, "
                          "%broadcast.0), direction=LT",
                          "ROOT %convert.0 = u32[4] convert(%compare.0)"));
  // A pred result needs no convert.
  Builder p("bernoulli_pred");
  Op pr = p.RngBernoulli(p.ConstantR0<float>(0.25f), Pred({2}));
  ASSERT_OK_AND_ASSIGN(auto pm, BuildChecked(p, pr));
  EXPECT_EQ(pm->entry_computation()->root_instruction()->opcode(),
            HloOpcode::kCompare);
}

TEST(RngTest, BernoulliErrors) {
  Builder b("bernoulli_int_mean");
  b.RngBernoulli(b.ConstantR0<int32_t>(1), S(PrimitiveType::U32, {4}));
  ExpectBuildError(b, "RngBernoulli", {"floating-point scalar", "s32[]"});
  Builder t("bernoulli_tuple");
  t.RngBernoulli(t.ConstantR0<float>(0.5f), Tup({F32({2})}));
  ExpectBuildError(t, "RngBernoulli", {"(f32[2])"});
}

}  // namespace
}  // namespace plexa::builder_test
