// gather and scatter; expected values computed by hand.
#include "core/eval/eval_test_util.h"
#include "gtest/gtest.h"

namespace plexa::eval_test {
namespace {

constexpr char kAdd[] = R"(
add {
  x = s32[] parameter(0)
  y = s32[] parameter(1)
  ROOT r = s32[] add(x, y)
}
)";

TEST(GatherTest, RowsOfAMatrix) {
  // Rows 0 and 2 of {{1,2,3},{4,5,6},{7,8,9}}.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[2] constant({0, 2})
  ROOT g = s32[2,3] gather(o, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}
})"),
                 "s32[2,3]", "{ {1, 2, 3}, {7, 8, 9} }");
}

TEST(GatherTest, StartIndicesAreClamped) {
  // A 2-row slice starting at row 2 of a 3-row operand is clamped to start
  // at row 1 (rows 1, 2); start -5 is clamped to 0 (rows 0, 1).
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[2] constant({2, -5})
  ROOT g = s32[2,2,3] gather(o, i), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}
})"),
                 "s32[2,2,3]",
                 "{ { {4, 5, 6}, {7, 8, 9} }, { {1, 2, 3}, {4, 5, 6} } }");
}

TEST(GatherTest, PointGatherWithIndexVectors) {
  // Index vectors (0,1) and (2,2) pick o[0][1] = 2 and o[2][2] = 9.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[2,2] constant({ {0, 1}, {2, 2} })
  ROOT g = s32[2] gather(o, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}
})"),
                 "s32[2]", "{2, 9}");
  // The same with index_vector_dim=0 (index vectors are columns):
  // columns (0,2) and (1,2) pick o[0][2] = 3 and o[1][2] = 6.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[2,2] constant({ {0, 1}, {2, 2} })
  ROOT g = s32[2] gather(o, i), offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=0, slice_sizes={1,1}
})"),
                 "s32[2]", "{3, 6}");
}

TEST(GatherTest, BatchingDimensions) {
  // Batch b of the operand is indexed by batch b of the indices:
  // o[0][2] = 3 and o[1][0] = 4.
  EXPECT_LITERAL(RunOk(R"(HloModule m
ENTRY e {
  o = s32[2,3] constant({ {1, 2, 3}, {4, 5, 6} })
  i = s32[2,1] constant({ {2}, {0} })
  ROOT g = s32[2] gather(o, i), offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=1, slice_sizes={1,1}
})"),
                 "s32[2]", "{3, 4}");
}

TEST(ScatterTest, AddRows) {
  // Rows 0 and 2 get {10,20,30} and {70,80,90} added.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[2] constant({0, 2})
  u = s32[2,3] constant({ {10, 20, 30}, {70, 80, 90} })
  ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"),
                 "s32[3,3]", "{ {11, 22, 33}, {4, 5, 6}, {77, 88, 99} }");
}

TEST(ScatterTest, DuplicateIndicesCombine) {
  // Row 1 twice: 4+1+2 = 7, 5+1+2 = 8, 6+1+2 = 9.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[2] constant({1, 1})
  u = s32[2,3] constant({ {1, 1, 1}, {2, 2, 2} })
  ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"),
                 "s32[3,3]", "{ {1, 2, 3}, {7, 8, 9}, {7, 8, 9} }");
}

TEST(ScatterTest, OutOfBoundsUpdatesAreSkipped) {
  // Index 3 and -1 are outside the 3 rows: those updates are dropped.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[3] constant({3, -1, 1})
  u = s32[3,3] constant({ {100, 100, 100}, {100, 100, 100}, {1, 1, 1} })
  ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"),
                 "s32[3,3]", "{ {1, 2, 3}, {5, 6, 7}, {7, 8, 9} }");
  // A 2-row window starting at row 2 would stick out of a 3-row operand:
  // the whole window is skipped (no clamping, unlike gather).
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  o = s32[3,3] constant({ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} })
  i = s32[1] constant({2})
  u = s32[1,2,3] constant({ { {100, 100, 100}, {100, 100, 100} } })
  ROOT s = s32[3,3] scatter(o, i, u), update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add
})"),
                 "s32[3,3]", "{ {1, 2, 3}, {4, 5, 6}, {7, 8, 9} }");
}

TEST(ScatterTest, OverwriteComputation) {
  // The update computation returns its second parameter (the update):
  // element [1] becomes 42.
  EXPECT_LITERAL(RunOk(R"(HloModule m
assign {
  old = f32[] parameter(0)
  ROOT new = f32[] parameter(1)
}
ENTRY e {
  o = f32[4] constant({0, 0, 0, 0})
  i = s32[1,1] constant({ {1} })
  u = f32[1] constant({42})
  ROOT s = f32[4] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=assign
})"),
                 "f32[4]", "{0, 42, 0, 0}");
}

TEST(ScatterTest, VariadicScatter) {
  // Two operands updated together: sums into the first, maxima into the
  // second. Index 0 gets (5, 5) and (1, 9): sum 0+5+1 = 6, max(0,5,9) = 9.
  Literal r = RunOk(R"(HloModule m
combine {
  a0 = s32[] parameter(0)
  b0 = s32[] parameter(1)
  a1 = s32[] parameter(2)
  b1 = s32[] parameter(3)
  s = s32[] add(a0, a1)
  m = s32[] maximum(b0, b1)
  ROOT t = (s32[], s32[]) tuple(s, m)
}
ENTRY e {
  o0 = s32[2] constant({0, 0})
  o1 = s32[2] constant({0, 0})
  i = s32[2] constant({0, 0})
  u0 = s32[2] constant({5, 1})
  u1 = s32[2] constant({5, 9})
  ROOT s = (s32[2], s32[2]) scatter(o0, o1, i, u0, u1), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=combine
})");
  EXPECT_LITERAL(r.tuple_element(0), "s32[2]", "{6, 0}");
  EXPECT_LITERAL(r.tuple_element(1), "s32[2]", "{9, 0}");
}

TEST(ScatterTest, BatchingDimensions) {
  // Batch 0 writes 5 at column 2, batch 1 writes 7 at column 0.
  EXPECT_LITERAL(RunOk(std::string("HloModule m\n") + kAdd + R"(
ENTRY e {
  o = s32[2,3] constant({ {0, 0, 0}, {0, 0, 0} })
  i = s32[2,1] constant({ {2}, {0} })
  u = s32[2] constant({5, 7})
  ROOT s = s32[2,3] scatter(o, i, u), update_window_dims={}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=1, to_apply=add
})"),
                 "s32[2,3]", "{ {0, 0, 5}, {7, 0, 0} }");
}

}  // namespace
}  // namespace plexa::eval_test
