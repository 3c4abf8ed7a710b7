// Data movement, tuples and layouts. Seed 004's worked examples are used
// verbatim where the seed gives values.
#include <cstring>

#include "core/eval/eval_test_util.h"
#include "core/shape/layout_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

// Seed 004's 24-element array v (Collapse / Reshape examples).
constexpr char kV[] =
    "{ { {10, 11, 12}, {15, 16, 17} }, { {20, 21, 22}, {25, 26, 27} }, "
    "{ {30, 31, 32}, {35, 36, 37} }, { {40, 41, 42}, {45, 46, 47} } }";

TEST(DataMovementTest, BroadcastSeedExample) {
  // Seed 004: scalar 2.0 broadcast with sizes {2, 3} -> f32[2,3] of 2.0.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  s = f32[] constant(2)
  ROOT r = f32[2,3] broadcast(s), dimensions={}
})"),
                 "f32[2,3]", "{ {2, 2, 2}, {2, 2, 2} }");
}

TEST(DataMovementTest, BroadcastIntoDimensions) {
  // operand dim 0 -> result dim 0: rows repeat the value across columns.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2] constant({1, 2})
  ROOT r = s32[2,3] broadcast(a), dimensions={0}
})"),
                 "s32[2,3]", "{ {1, 1, 1}, {2, 2, 2} }");
  // operand dim 0 -> result dim 1: every row is the operand.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  ROOT r = s32[2,3] broadcast(a), dimensions={1}
})"),
                 "s32[2,3]", "{ {1, 2, 3}, {1, 2, 3} }");
  // Seed 004's form (new dims on the left): f32[2] -> f32[3,2].
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2] constant({5, 6})
  ROOT r = f32[3,2] broadcast(a), dimensions={1}
})"),
                 "f32[3,2]", "{ {5, 6}, {5, 6}, {5, 6} }");
}

TEST(DataMovementTest, ReshapeSeedInOrderCollapse) {
  const std::string prog = std::string(R"(HloModule m
ENTRY e {
  v = f32[4,2,3] constant()") +
                           kV + R"()
  a = f32[24] reshape(v)
  b = f32[8,3] reshape(v)
  c = f32[4,6] reshape(v)
  ROOT t = (f32[24], f32[8,3], f32[4,6]) tuple(a, b, c)
})";
  Literal r = RunOk(prog);
  ASSERT_EQ(r.tuple_element_count(), 3);
  // Seed 004: v012_24, v012_83, and Collapse(v, {0,1}) (v01).
  EXPECT_LITERAL(r.tuple_element(0), "f32[24]",
                 "{10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27, "
                 "30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47}");
  EXPECT_LITERAL(r.tuple_element(1), "f32[8,3]",
                 "{ {10, 11, 12}, {15, 16, 17}, {20, 21, 22}, {25, 26, 27}, "
                 "{30, 31, 32}, {35, 36, 37}, {40, 41, 42}, {45, 46, 47} }");
  EXPECT_LITERAL(r.tuple_element(2), "f32[4,6]",
                 "{ {10, 11, 12, 15, 16, 17}, {20, 21, 22, 25, 26, 27}, "
                 "{30, 31, 32, 35, 36, 37}, {40, 41, 42, 45, 46, 47} }");
}

TEST(DataMovementTest, ReshapeSeedOutOfOrderCollapse) {
  // Seed 004's Reshape(v, {1,2,0}, ...) is transpose(v, {1,2,0}) followed
  // by a row-major reshape.
  const std::string prog = std::string(R"(HloModule m
ENTRY e {
  v = f32[4,2,3] constant()") +
                           kV + R"()
  t = f32[2,3,4] transpose(v), dimensions={1,2,0}
  a = f32[24] reshape(t)
  b = f32[8,3] reshape(t)
  c = f32[2,6,2] reshape(t)
  ROOT r = (f32[24], f32[8,3], f32[2,6,2]) tuple(a, b, c)
})";
  Literal r = RunOk(prog);
  EXPECT_LITERAL(r.tuple_element(0), "f32[24]",
                 "{10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, "
                 "15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47}");
  EXPECT_LITERAL(r.tuple_element(1), "f32[8,3]",
                 "{ {10, 20, 30}, {40, 11, 21}, {31, 41, 12}, {22, 32, 42}, "
                 "{15, 25, 35}, {45, 16, 26}, {36, 46, 17}, {27, 37, 47} }");
  EXPECT_LITERAL(r.tuple_element(2), "f32[2,6,2]",
                 "{ { {10, 20}, {30, 40}, {11, 21}, {31, 41}, {12, 22}, "
                 "{32, 42} }, { {15, 25}, {35, 45}, {16, 26}, {36, 46}, "
                 "{17, 27}, {37, 47} } }");
}

TEST(DataMovementTest, ReshapeScalarSeedExamples) {
  // Seed 004: Reshape(f32[1x1] {{5}}, {}) == 5 and back.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f32[1,1] constant({ {5} })
  s = f32[] reshape(a)
  b = f32[1,1] reshape(s)
  ROOT t = (f32[], f32[1,1]) tuple(s, b)
})");
  EXPECT_LITERAL(r.tuple_element(0), "f32[]", "5");
  EXPECT_LITERAL(r.tuple_element(1), "f32[1,1]", "{ {5} }");
}

TEST(DataMovementTest, Transpose) {
  // result dim i = operand dim perm[i]: {{1,2,3},{4,5,6}}^T.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  ROOT r = s32[3,2] transpose(a), dimensions={1,0}
})"),
                 "s32[3,2]", "{ {1, 4}, {2, 5}, {3, 6} }");
}

TEST(DataMovementTest, Reverse) {
  // Seed 004: index i of a reversed dimension of size N becomes N-1-i.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  r1 = s32[2,3] reverse(a), dimensions={1}
  r01 = s32[2,3] reverse(a), dimensions={0,1}
  ROOT t = (s32[2,3], s32[2,3]) tuple(r1, r01)
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[2,3]", "{ {3, 2, 1}, {6, 5, 4} }");
  EXPECT_LITERAL(r.tuple_element(1), "s32[2,3]", "{ {6, 5, 4}, {3, 2, 1} }");
}

TEST(DataMovementTest, ConcatenateSeedExamples) {
  // Seed 004: Concat({2,3}, {4,5}, {6,7}) along 0 -> {2,3,4,5,6,7}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2] constant({2, 3})
  b = s32[2] constant({4, 5})
  c = s32[2] constant({6, 7})
  ROOT r = s32[6] concatenate(a, b, c), dimensions={0}
})"),
                 "s32[6]", "{2, 3, 4, 5, 6, 7}");
  // Seed 004's 2-D example: a (3x2) on top of b (1x2).
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[3,2] constant({ {1, 2}, {3, 4}, {5, 6} })
  b = s32[1,2] constant({ {7, 8} })
  ROOT r = s32[4,2] concatenate(a, b), dimensions={0}
})"),
                 "s32[4,2]", "{ {1, 2}, {3, 4}, {5, 6}, {7, 8} }");
  // Along dimension 1, with a zero-width operand in the middle.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,1] constant({ {1}, {2} })
  z = s32[2,0] constant({ {}, {} })
  b = s32[2,2] constant({ {3, 4}, {5, 6} })
  ROOT r = s32[2,3] concatenate(a, z, b), dimensions={1}
})"),
                 "s32[2,3]", "{ {1, 3, 4}, {2, 5, 6} }");
}

TEST(DataMovementTest, SliceSeedExamples) {
  // Seed 004: Slice({0,1,2,3,4}, {2}, {4}) -> {2, 3}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  ROOT r = f32[2] slice(a), slice={[2:4]}
})"),
                 "f32[2]", "{2, 3}");
  // Seed 004: Slice(b, {2, 1}, {4, 3}) -> {{7, 8}, {10, 11}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  b = f32[4,3] constant({ {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11} })
  ROOT r = f32[2,2] slice(b), slice={[2:4], [1:3]}
})"),
                 "f32[2,2]", "{ {7, 8}, {10, 11} }");
  // Strides: {0..9}[1:8:3] -> {1, 4, 7}; an empty slice [3:3].
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[10] iota(), iota_dimension=0
  ROOT r = s32[3] slice(a), slice={[1:8:3]}
})"),
                 "s32[3]", "{1, 4, 7}");
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[10] iota(), iota_dimension=0
  ROOT r = s32[0] slice(a), slice={[3:3]}
})"),
                 "s32[0]", "{}");
}

TEST(DataMovementTest, PadEdgeAndInterior) {
  // dim 0: low 1, high 0; dim 1: low 0, high 1, interior 1.
  // {{1,2,3},{4,5,6}} -> rows: 0; 1 0 2 0 3 0; 4 0 5 0 6 0.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  z = s32[] constant(0)
  ROOT r = s32[3,6] pad(a, z), padding=1_0x0_1_1
})"),
                 "s32[3,6]",
                 "{ {0, 0, 0, 0, 0, 0}, {1, 0, 2, 0, 3, 0}, "
                 "{4, 0, 5, 0, 6, 0} }");
}

TEST(DataMovementTest, PadNegative) {
  // Negative edge padding removes elements: {1,2,3,4,5} with -1_-2 -> {2,3}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[5] constant({1, 2, 3, 4, 5})
  z = s32[] constant(9)
  ROOT r = s32[2] pad(a, z), padding=-1_-2
})"),
                 "s32[2]", "{2, 3}");
  // Interior first, then negative edges: {1,2,3} interior 1 ->
  // {1,9,2,9,3}; -1 on both ends -> {9, 2, 9}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[3] constant({1, 2, 3})
  z = s32[] constant(9)
  ROOT r = s32[3] pad(a, z), padding=-1_-1_1
})"),
                 "s32[3]", "{9, 2, 9}");
}

TEST(DataMovementTest, DynamicSliceSeedExamples) {
  // Seed 004: DynamicSlice({0..4}, {2}, {2}) -> {2, 3}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  s = s32[] constant(2)
  ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}
})"),
                 "f32[2]", "{2, 3}");
  // Seed 004: 2-D, s = {2, 1}, sizes {2, 2} -> {{7, 8}, {10, 11}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  b = f32[4,3] constant({ {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11} })
  i = s32[] constant(2)
  j = s32[] constant(1)
  ROOT r = f32[2,2] dynamic-slice(b, i, j), dynamic_slice_sizes={2,2}
})"),
                 "f32[2,2]", "{ {7, 8}, {10, 11} }");
}

TEST(DataMovementTest, DynamicSliceClampsStartIndices) {
  // Today's XLA clamps starts to [0, dim - size] (the seed's modulo rule is
  // the old behaviour: it would map start 4 to 4 mod 5 = 4 and read past
  // the end). Start 4, size 2 on 5 elements -> start 3 -> {3, 4};
  // start -3 -> 0 -> {0, 1}; u32 4000000000 -> 3.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  s = s32[] constant(4)
  ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}
})"),
                 "f32[2]", "{3, 4}");
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  s = s32[] constant(-3)
  ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}
})"),
                 "f32[2]", "{0, 1}");
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  s = u32[] constant(4000000000)
  ROOT r = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}
})"),
                 "f32[2]", "{3, 4}");
}

TEST(DataMovementTest, DynamicUpdateSliceSeedExamples) {
  // Seed 004: DynamicUpdateSlice({0..4}, {5, 6}, {2}) -> {0, 1, 5, 6, 4}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  u = f32[2] constant({5, 6})
  s = s32[] constant(2)
  ROOT r = f32[5] dynamic-update-slice(a, u, s)
})"),
                 "f32[5]", "{0, 1, 5, 6, 4}");
  // Seed 004's 2-D example with s = {1, 1}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  b = f32[4,3] constant({ {0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9, 10, 11} })
  u = f32[3,2] constant({ {12, 13}, {14, 15}, {16, 17} })
  i = s32[] constant(1)
  j = s32[] constant(1)
  ROOT r = f32[4,3] dynamic-update-slice(b, u, i, j)
})"),
                 "f32[4,3]",
                 "{ {0, 1, 2}, {3, 12, 13}, {6, 14, 15}, {9, 16, 17} }");
  // Clamped (today's XLA): start 4 with a 2-element update -> 3.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[5] constant({0, 1, 2, 3, 4})
  u = f32[2] constant({5, 6})
  s = s32[] constant(4)
  ROOT r = f32[5] dynamic-update-slice(a, u, s)
})"),
                 "f32[5]", "{0, 1, 2, 5, 6}");
}

TEST(DataMovementTest, Iota) {
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = s32[2,3] iota(), iota_dimension=1
  b = s32[2,3] iota(), iota_dimension=0
  c = f32[3] iota(), iota_dimension=0
  d = bf16[2] iota(), iota_dimension=0
  ROOT t = (s32[2,3], s32[2,3], f32[3], bf16[2]) tuple(a, b, c, d)
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[2,3]", "{ {0, 1, 2}, {0, 1, 2} }");
  EXPECT_LITERAL(r.tuple_element(1), "s32[2,3]", "{ {0, 0, 0}, {1, 1, 1} }");
  EXPECT_LITERAL(r.tuple_element(2), "f32[3]", "{0, 1, 2}");
  EXPECT_LITERAL(r.tuple_element(3), "bf16[2]", "{0, 1}");
}

TEST(DataMovementTest, TupleAndGetTupleElementSeedExample) {
  // Seed 004: t = tuple(v, s); get-tuple-element(t, 1) == s (5).
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  v = f32[10] iota(), iota_dimension=0
  s = s32[] constant(5)
  t = (f32[10], s32[]) tuple(v, s)
  ROOT g = s32[] get-tuple-element(t), index=1
})");
  EXPECT_LITERAL(r, "s32[]", "5");
}

TEST(DataMovementTest, GetDimensionSize) {
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,5] parameter(0)
  ROOT r = s32[] get-dimension-size(a), dimensions={1}
})",
                       {L("f32[2,5]", "{ {0,0,0,0,0}, {0,0,0,0,0} }")}),
                 "s32[]", "5");
}

TEST(DataMovementTest, BitcastReinterpretsUnderLayouts) {
  // Operand f32[2,3]{1,0} holds bytes 1 2 3 4 5 6. Read as f32[3,2]{0,1}
  // (dimension 0 minor), element (i, j) is byte slot j*3 + i:
  // {{1, 4}, {2, 5}, {3, 6}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} constant({ {1, 2, 3}, {4, 5, 6} })
  ROOT r = f32[3,2]{0,1} bitcast(a)
})"),
                 "f32[3,2]", "{ {1, 4}, {2, 5}, {3, 6} }");
  // Without layouts a bitcast is a row-major reshape.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  ROOT r = f32[6] bitcast(a)
})"),
                 "f32[6]", "{1, 2, 3, 4, 5, 6}");
}

TEST(DataMovementTest, ArgumentsInAnyLayout) {
  // The argument comes column-major ({0,1}); values are what count:
  // transpose({{1,2,3},{4,5,6}}) = {{1,4},{2,5},{3,6}}.
  Literal arg = L("f32[2,3]", "{ {1, 2, 3}, {4, 5, 6} }");
  absl::StatusOr<Literal> col = arg.Relayout(LayoutUtil::MakeLayout({0, 1}));
  ASSERT_TRUE(col.ok()) << col.status();
  // Raw bytes are column-major: 1 4 2 5 3 6.
  float raw[6];
  std::memcpy(raw, col->data().data(), sizeof(raw));
  EXPECT_EQ(raw[1], 4.0f);
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,3]{1,0} parameter(0)
  ROOT r = f32[3,2] transpose(a), dimensions={1,0}
})",
                       {std::move(col).value()}),
                 "f32[3,2]", "{ {1, 4}, {2, 5}, {3, 6} }");
}

TEST(DataMovementTest, ResultInRootLayout) {
  // The root's layout {0,1} decides the result's layout: values
  // {{1,2,3},{4,5,6}}, bytes column-major 1 4 2 5 3 6.
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = f32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  ROOT r = f32[2,3]{0,1} copy(a)
})");
  ASSERT_TRUE(r.shape().has_layout());
  EXPECT_EQ(r.shape().layout().minor_to_major(0), 0);
  float raw[6];
  ASSERT_EQ(r.data().size(), sizeof(raw));
  std::memcpy(raw, r.data().data(), sizeof(raw));
  EXPECT_EQ(raw[0], 1.0f);
  EXPECT_EQ(raw[1], 4.0f);
  EXPECT_EQ(raw[2], 2.0f);
  EXPECT_EQ(raw[5], 6.0f);
  EXPECT_LITERAL(r, "f32[2,3]", "{ {1, 2, 3}, {4, 5, 6} }");
}

TEST(DataMovementTest, TiledArgumentLayout) {
  // A tiled argument (T(2,2) on a 3x3 array pads to 4x4 tiles); the values
  // come through unchanged: row sums of {{1,2,3},{4,5,6},{7,8,9}} via
  // reduce would need a reducer, so check with a transpose instead.
  Literal arg = L("s32[3,3]", "{ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} }");
  Layout tiled = LayoutUtil::MakeLayout({1, 0});
  tiled.add_tile(Tile(std::vector<int64_t>{2, 2}));
  absl::StatusOr<Literal> t = arg.Relayout(tiled);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  a = s32[3,3] parameter(0)
  ROOT r = s32[3,3] transpose(a), dimensions={1,0}
})",
                       {std::move(t).value()}),
                 "s32[3,3]", "{ {1, 4, 7}, {2, 5, 8}, {3, 6, 9} }");
}

TEST(DataMovementTest, ZeroSizedDimensions) {
  // broadcast to [0,3]; slice of nothing; transpose of [0,2].
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  s = f32[] constant(1)
  b = f32[0,3] broadcast(s), dimensions={}
  t = f32[3,0] transpose(b), dimensions={1,0}
  ROOT r = (f32[0,3], f32[3,0]) tuple(b, t)
})");
  EXPECT_EQ(r.tuple_element(0).element_count(), 0);
  EXPECT_EQ(r.tuple_element(1).element_count(), 0);
  EXPECT_EQ(r.tuple_element(1).shape().dimensions(0), 3);
}

TEST(DataMovementTest, OptimizationBarrierIsIdentity) {
  Literal r = RunOk(R"(HloModule m
ENTRY e {
  a = s32[2] constant({1, 2})
  b = f32[] constant(3)
  t = (s32[2], f32[]) tuple(a, b)
  ROOT o = (s32[2], f32[]) opt-barrier(t)
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[2]", "{1, 2}");
  EXPECT_LITERAL(r.tuple_element(1), "f32[]", "3");
}

TEST(DataMovementTest, ResultInEntryComputationLayout) {
  // entry_computation_layout asks for the result column-major ({0,1});
  // values {{1,2,3},{4,5,6}}, bytes 1 4 2 5 3 6.
  Literal r = RunOk(
      R"(HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{0,1}}
ENTRY e {
  a = f32[2,3] parameter(0)
  ROOT r = f32[2,3] negate(a)
})",
      {L("f32[2,3]", "{ {-1, -2, -3}, {-4, -5, -6} }")});
  float raw[6];
  ASSERT_EQ(r.data().size(), sizeof(raw));
  std::memcpy(raw, r.data().data(), sizeof(raw));
  EXPECT_EQ(raw[1], 4.0f);
  EXPECT_EQ(raw[2], 2.0f);
  EXPECT_LITERAL(r, "f32[2,3]", "{ {1, 2, 3}, {4, 5, 6} }");
}

}  // namespace
}  // namespace plexa::eval_test
