// Tuples, call, while, conditional, custom-call, tokens with infeed and
// outfeed, collectives.
#include "core/builder/builder.h"
#include "core/builder/builder_test_util.h"

namespace plexa::builder_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(TupleTest, SeedExample) {
  // let t: (f32[10], s32) = tuple(v, s); element_1: s32 = gte(t, 1).
  Builder b("tuple");
  Op v = b.Parameter(0, F32({10}), "v");
  Op s = b.ConstantR0<int32_t>(5);
  Op t = b.Tuple({v, s});
  Op e1 = b.GetTupleElement(t, 1);
  ASSERT_OK_AND_ASSIGN(Shape st, b.GetShape(t));
  ASSERT_OK_AND_ASSIGN(Shape se, b.GetShape(e1));
  EXPECT_EQ(st, Tup({F32({10}), S32({})}));
  EXPECT_EQ(se, S32({}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, e1));
  EXPECT_THAT(EntryLines(*mod),
              ElementsAre("%v = f32[10] parameter(0)",
                          "%constant.0 = s32[] constant(5)",
                          "%tuple.0 = (f32[10], s32[]) tuple(%v, %constant.0)",
                          "ROOT %get-tuple-element.0 = s32[] "
                          "get-tuple-element(%tuple.0), index=1"));
  Builder bad("gte_bad");
  bad.GetTupleElement(bad.Tuple({bad.ConstantR0<float>(1)}), 1);
  ExpectBuildError(bad, "GetTupleElement", {"(f32[])"});
  Builder bad2("gte_array");
  bad2.GetTupleElement(bad2.Parameter(0, F32({2}), "x"), 0);
  ExpectBuildError(bad2, "GetTupleElement", {"f32[2]"});
}

TEST(CallTest, CallsAComputation) {
  Builder b("call");
  Computation* add =
      ScalarComputation(b, "add", PrimitiveType::F32, HloOpcode::kAdd);
  Op x = b.Parameter(0, F32({}), "x");
  Op c = b.Call(add, {x, x});
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, c));
  EXPECT_THAT(EntryLines(*mod).back(),
              "ROOT %call.0 = f32[] call(%x, %x), to_apply=%add");
  Builder bad("call_arity");
  Computation* add2 =
      ScalarComputation(bad, "add", PrimitiveType::F32, HloOpcode::kAdd);
  bad.Call(add2, {bad.Parameter(0, F32({}), "x")});
  ExpectBuildError(bad, "Call", {"f32[]"});
}

// The seed's while: state (s32 iteration, f32[10] accumulator); while
// (state.0 < 1000) { state = (state.0 + 1, state.1 + constant_vector) }.
struct SeedLoop {
  Computation* condition;
  Computation* body;
};

SeedLoop MakeSeedLoop(Builder& b, const Shape& state) {
  std::unique_ptr<Builder> cb = b.CreateSubBuilder("condition");
  Op cs = cb->Parameter(0, state, "state");
  absl::StatusOr<Computation*> cond = cb->Build(
      cb->Lt(cb->GetTupleElement(cs, 0), cb->ConstantR0<int32_t>(1000)));
  EXPECT_TRUE(cond.ok()) << cond.status();
  std::unique_ptr<Builder> bb = b.CreateSubBuilder("body");
  Op bs = bb->Parameter(0, state, "state");
  Op iteration =
      bb->Add(bb->GetTupleElement(bs, 0), bb->ConstantR0<int32_t>(1));
  Op vec = bb->Broadcast(bb->ConstantR0<float>(1.5f), {10});
  Op new_vector = bb->Add(bb->GetTupleElement(bs, 1), vec);
  absl::StatusOr<Computation*> body =
      bb->Build(bb->Tuple({iteration, new_vector}));
  EXPECT_TRUE(body.ok()) << body.status();
  return {cond.ok() ? *cond : nullptr, body.ok() ? *body : nullptr};
}

TEST(WhileTest, SeedExample) {
  Builder b("while");
  const Shape state = Tup({S32({}), F32({10})});
  SeedLoop loop = MakeSeedLoop(b, state);
  Op init = b.Tuple(
      {b.ConstantR0<int32_t>(0), b.Broadcast(b.ConstantR0<float>(0.0f), {10})});
  Op w = b.While(loop.condition, loop.body, init);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(w));
  EXPECT_EQ(s, state);
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, w));
  EXPECT_EQ(mod->computation_count(), 3);
  EXPECT_THAT(EntryLines(*mod).back(),
              "ROOT %while.0 = (s32[], f32[10]) while(%tuple.0), "
              "condition=%condition, body=%body");
}

TEST(WhileTest, NestedWhileIsAllowed) {
  // The outer body runs the inner loop on its state.
  Builder b("nested_while");
  const Shape state = Tup({S32({}), F32({10})});
  std::unique_ptr<Builder> outer_body = b.CreateSubBuilder("outer_body");
  SeedLoop inner = MakeSeedLoop(*outer_body, state);
  Op p = outer_body->Parameter(0, state, "state");
  ASSERT_OK_AND_ASSIGN(
      Computation * body,
      outer_body->Build(outer_body->While(inner.condition, inner.body, p)));
  std::unique_ptr<Builder> cb = b.CreateSubBuilder("outer_condition");
  Op cs = cb->Parameter(0, state, "state");
  ASSERT_OK_AND_ASSIGN(Computation * cond,
                       cb->Build(cb->Lt(cb->GetTupleElement(cs, 0),
                                        cb->ConstantR0<int32_t>(5))));
  Op w = b.While(cond, body, b.Parameter(0, state, "init"));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, w));
  EXPECT_EQ(mod->computation_count(), 5);
}

TEST(WhileTest, Errors) {
  {
    Builder b("while_init");
    SeedLoop loop = MakeSeedLoop(b, Tup({S32({}), F32({10})}));
    b.While(loop.condition, loop.body, b.Parameter(0, F32({10}), "x"));
    ExpectBuildError(b, "While", {"f32[10]"});
  }
  {
    // The body must return the loop state.
    Builder b("while_body");
    const Shape state = Tup({S32({}), F32({10})});
    std::unique_ptr<Builder> bb = b.CreateSubBuilder("body");
    Op bs = bb->Parameter(0, state, "state");
    ASSERT_OK_AND_ASSIGN(Computation * body,
                         bb->Build(bb->GetTupleElement(bs, 0)));
    SeedLoop loop = MakeSeedLoop(b, state);
    b.While(loop.condition, body, b.Parameter(0, state, "init"));
    ExpectBuildError(b, "While", {"(s32[], f32[10])"});
  }
}

TEST(ConditionalTest, PredicateAndIndexedForms) {
  Builder b("conditional");
  std::unique_ptr<Builder> tb = b.CreateSubBuilder("on_true");
  Op tx = tb->Parameter(0, F32({}), "x");
  ASSERT_OK_AND_ASSIGN(Computation * on_true, tb->Build(tb->Neg(tx)));
  std::unique_ptr<Builder> fb = b.CreateSubBuilder("on_false");
  Op fx = fb->Parameter(0, S32({2}), "y");
  ASSERT_OK_AND_ASSIGN(
      Computation * on_false,
      fb->Build(fb->ConvertElementType(
          fb->Reduce(fx, fb->ConstantR0<int32_t>(0),
                     ScalarComputation(*fb, "add", PrimitiveType::S32,
                                       HloOpcode::kAdd),
                     {0}),
          PrimitiveType::F32)));
  Op p = b.Parameter(0, Pred({}), "p");
  Op x = b.Parameter(1, F32({}), "x");
  Op y = b.Parameter(2, S32({2}), "y");
  Op c = b.Conditional(p, x, on_true, y, on_false);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(c));
  EXPECT_EQ(s, F32({}));
  Op i = b.Parameter(3, S32({}), "i");
  const Computation* branches[] = {on_true, on_false, on_true};
  Op c3 = b.Conditional(i, branches, {x, y, x});
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({c, c3})));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("conditional(%p, %x, %y), "
                              "true_computation=%on_true, "
                              "false_computation=%on_false"));
  EXPECT_THAT(text, HasSubstr("conditional(%i, %x, %y, %x), "
                              "branch_computations={%on_true, %on_false, "
                              "%on_true}"));
}

TEST(ConditionalTest, Errors) {
  Builder b("conditional_bad");
  std::unique_ptr<Builder> tb = b.CreateSubBuilder("t");
  Op tx = tb->Parameter(0, F32({}), "x");
  ASSERT_OK_AND_ASSIGN(Computation * t, tb->Build(tb->Neg(tx)));
  std::unique_ptr<Builder> fb = b.CreateSubBuilder("f");
  Op fx = fb->Parameter(0, F32({}), "x");
  ASSERT_OK_AND_ASSIGN(Computation * f, fb->Build(fb->ConvertElementType(
                                            fx, PrimitiveType::S32)));
  Op x = b.Parameter(0, F32({}), "x");
  // The branches return different shapes (f32[] and s32[]).
  b.Conditional(b.Parameter(1, Pred({}), "p"), x, t, x, f);
  ExpectBuildError(b, "Conditional", {"f32[]", "s32[]"});
  Builder b2("conditional_pred");
  std::unique_ptr<Builder> tb2 = b2.CreateSubBuilder("t");
  Op tx2 = tb2->Parameter(0, F32({}), "x");
  ASSERT_OK_AND_ASSIGN(Computation * t2, tb2->Build(tb2->Neg(tx2)));
  Op x2 = b2.Parameter(0, F32({}), "x");
  b2.Conditional(b2.Parameter(1, S32({}), "p"), x2, t2, x2, t2);
  ExpectBuildError(b2, "Conditional", {"pred[]", "s32[]"});
}

TEST(OptimizationBarrierTest, TupleThrough) {
  Builder b("barrier");
  Op t = b.Tuple({b.Parameter(0, F32({2}), "x"), b.ConstantR0<int32_t>(1)});
  Op o = b.OptimizationBarrier(t);
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(o));
  EXPECT_EQ(s, Tup({F32({2}), S32({})}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, o));
  EXPECT_THAT(EntryLines(*mod).back(),
              "ROOT %opt-barrier.0 = (f32[2], s32[]) opt-barrier(%tuple.0)");
}

TEST(CustomCallTest, SeedExample) {
  // CustomCall("myfunc", {x, y}, f32[3x3]) with x: f32[2], y: f32[2x3].
  Builder b("custom_call");
  Op x = b.ConstantR1<float>({1, 2});
  Op y = b.ConstantR2<float>({{10, 20, 30}, {40, 50, 60}});
  Op c = b.CustomCall("myfunc", {x, y}, F32({3, 3}));
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(c));
  EXPECT_EQ(s, F32({3, 3}));
  Op d =
      b.CustomCall("typed", {x}, Tup({F32({2}), S32({})}), "cfg=1",
                   CustomCallApiVersion::kTypedFfi, /*has_side_effect=*/true);
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({c, d})));
  const Instruction* call = mod->entry_computation()->instructions()[2];
  EXPECT_EQ(call->attrs().custom_call_target, "myfunc");
  EXPECT_EQ(call->attrs().api_version, CustomCallApiVersion::kOriginal);
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("f32[3,3] custom-call(%constant.0, %constant.1), "
                              "custom_call_target=\"myfunc\""));
  EXPECT_THAT(text, HasSubstr("custom_call_target=\"typed\""));
  EXPECT_THAT(text, HasSubstr("backend_config=\"cfg=1\""));
  EXPECT_THAT(text, HasSubstr("api_version=API_VERSION_TYPED_FFI"));
}

TEST(CustomCallTest, LayoutConstraintsAndErrors) {
  {
    Builder b("custom_call_layouts");
    Op x = b.Parameter(0, F32({2, 3}), "x");
    const Shape col_major =
        ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3}, {0, 1});
    const Shape out =
        ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {3}, {0});
    Op c = b.CustomCall("f", {x}, out, "", CustomCallApiVersion::kOriginal,
                        false, {col_major});
    ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, c));
    EXPECT_THAT(Text(*mod),
                HasSubstr("operand_layout_constraints={f32[2,3]{0,1}}"));
  }
  {
    Builder b("custom_call_empty");
    b.CustomCall("", {}, F32({}));
    ExpectBuildError(b, "CustomCall", {"target name is empty"});
  }
  {
    Builder b("custom_call_constraint_mismatch");
    Op x = b.Parameter(0, F32({2, 3}), "x");
    b.CustomCall("f", {x}, F32({}), "", CustomCallApiVersion::kOriginal, false,
                 {F32({3, 2})});
    ExpectBuildError(b, "CustomCall", {"f32[3,2]", "f32[2,3]"});
  }
  {
    Builder b("custom_call_bad_shape");
    b.CustomCall("f", {}, F32({-1}));
    ExpectBuildError(b, "CustomCall", {});
  }
}

TEST(TokenTest, AfterAllAndErrors) {
  Builder b("tokens");
  Op t1 = b.CreateToken();
  Op t2 = b.CreateToken();
  Op all = b.AfterAll({t1, t2});
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(all));
  EXPECT_TRUE(s.IsToken());
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, all));
  EXPECT_THAT(EntryLines(*mod),
              ElementsAre("%after-all.0 = token[] after-all()",
                          "%after-all.1 = token[] after-all()",
                          "ROOT %after-all.2 = token[] after-all(%after-all.0, "
                          "%after-all.1)"));
  Builder bad("after_all_bad");
  bad.AfterAll({bad.CreateToken(), bad.Parameter(0, F32({}), "x")});
  ExpectBuildError(bad, "AfterAll", {"f32[]"});
}

TEST(InfeedOutfeedTest, WithTokens) {
  Builder b("infeed");
  Op token = b.CreateToken();
  const Shape data =
      ShapeUtil::MakeShapeWithLayout(PrimitiveType::F32, {2, 3}, {0, 1});
  Op in = b.InfeedWithToken(token, data, "cfg");
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(in));
  EXPECT_EQ(s.tuple_shapes_size(), 2);
  EXPECT_EQ(s.tuple_shapes(0), data);  // the layout is kept
  EXPECT_TRUE(s.tuple_shapes(1).IsToken());
  Op value = b.GetTupleElement(in, 0);
  Op next = b.GetTupleElement(in, 1);
  Op out = b.OutfeedWithToken(value, next, data, "ocfg");
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, out));
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("(f32[2,3]{0,1}, token[]) infeed(%after-all.0), "
                              "infeed_config=\"cfg\""));
  EXPECT_THAT(text, HasSubstr("token[] outfeed(%get-tuple-element.0, "
                              "%get-tuple-element.1), "
                              "outfeed_shape=f32[2,3]{0,1}, "
                              "outfeed_config=\"ocfg\""));
}

TEST(InfeedOutfeedTest, SeedFormChainsTokens) {
  // Two seed-form infeeds and an outfeed are ordered by one token chain.
  Builder b("infeed_chain");
  Op a = b.Infeed(F32({2}));
  Op c = b.Infeed(S32({}));
  Op o = b.Outfeed(a, F32({2}));
  ASSERT_OK_AND_ASSIGN(Shape sa, b.GetShape(a));
  ASSERT_OK_AND_ASSIGN(Shape sc, b.GetShape(c));
  EXPECT_EQ(sa, F32({2}));
  EXPECT_EQ(sc, S32({}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({a, c, o})));
  EXPECT_THAT(
      EntryLines(*mod),
      ElementsAre(
          "%after-all.0 = token[] after-all()",
          "%infeed.0 = (f32[2], token[]) infeed(%after-all.0)",
          "%get-tuple-element.0 = token[] get-tuple-element(%infeed.0), "
          "index=1",
          "%get-tuple-element.1 = f32[2] get-tuple-element(%infeed.0), "
          "index=0",
          "%infeed.1 = (s32[], token[]) infeed(%get-tuple-element.0)",
          "%get-tuple-element.2 = token[] get-tuple-element(%infeed.1), "
          "index=1",
          "%get-tuple-element.3 = s32[] get-tuple-element(%infeed.1), "
          "index=0",
          "%outfeed.0 = token[] outfeed(%get-tuple-element.1, "
          "%get-tuple-element.2), outfeed_shape=f32[2]",
          "ROOT %tuple.0 = (f32[2], s32[], token[]) "
          "tuple(%get-tuple-element.1, %get-tuple-element.3, %outfeed.0)"));
}

TEST(InfeedOutfeedTest, Errors) {
  {
    Builder b("infeed_not_token");
    b.InfeedWithToken(b.Parameter(0, F32({}), "x"), F32({2}));
    ExpectBuildError(b, "InfeedWithToken", {"f32[]"});
  }
  {
    Builder b("infeed_token_data");
    b.Infeed(ShapeUtil::MakeTokenShape());
    ExpectBuildError(b, "Infeed", {"token[]"});
  }
  {
    Builder b("outfeed_shape");
    b.Outfeed(b.Parameter(0, F32({2}), "x"), F32({3}));
    ExpectBuildError(b, "Outfeed", {"f32[3]", "f32[2]"});
  }
}

TEST(CollectivesTest, CrossReplicaSumIsAllReduceWithAdd) {
  Builder b("cross_replica_sum");
  Op x = b.Parameter(0, F32({2}), "x");
  Op s1 = b.CrossReplicaSum(x);
  Op s2 = b.CrossReplicaSum(s1, {{0, 1}, {2, 3}});
  Op p = b.CrossReplicaSum(b.Parameter(1, Pred({3}), "p"));
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(s2));
  EXPECT_EQ(s, F32({2}));
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, b.Tuple({s2, p})));
  // One add computation per element type, reused: add_f32, add_pred, entry.
  std::vector<std::string> names;
  for (const Computation* c : mod->computations()) names.push_back(c->name());
  EXPECT_THAT(names, ElementsAre("add_f32", "add_pred", "cross_replica_sum"));
  EXPECT_EQ(mod->computations()[0]->root_instruction()->opcode(),
            HloOpcode::kAdd);
  EXPECT_EQ(mod->computations()[1]->root_instruction()->opcode(),
            HloOpcode::kOr);
  const std::string text = Text(*mod);
  EXPECT_THAT(text, HasSubstr("f32[2] all-reduce(%x), replica_groups={}, "
                              "to_apply=%add_f32"));
  EXPECT_THAT(text, HasSubstr("all-reduce(%all-reduce.0), "
                              "replica_groups={{0,1},{2,3}}, "
                              "to_apply=%add_f32"));
}

TEST(CollectivesTest, AllReduceReplicaIdAndErrors) {
  Builder b("all_reduce");
  Computation* max =
      ScalarComputation(b, "max", PrimitiveType::U32, HloOpcode::kMaximum);
  Op id = b.ReplicaId();
  ASSERT_OK_AND_ASSIGN(Shape s, b.GetShape(id));
  EXPECT_EQ(s, S(PrimitiveType::U32, {}));
  Op r = b.AllReduce(id, max);
  ASSERT_OK_AND_ASSIGN(auto mod, BuildChecked(b, r));
  EXPECT_THAT(EntryLines(*mod),
              ElementsAre("%replica-id.0 = u32[] replica-id()",
                          "ROOT %all-reduce.0 = u32[] "
                          "all-reduce(%replica-id.0), replica_groups={}, "
                          "to_apply=%max"));
  Builder bad("all_reduce_types");
  Computation* fmax =
      ScalarComputation(bad, "max", PrimitiveType::F32, HloOpcode::kMaximum);
  bad.AllReduce(bad.Parameter(0, S32({2}), "x"), fmax);
  ExpectBuildError(bad, "AllReduce", {"s32[2]"});
  Builder bad2("crs_tuple");
  bad2.CrossReplicaSum(bad2.Parameter(0, Tup({F32({2})}), "t"));
  ExpectBuildError(bad2, "CrossReplicaSum", {"(f32[2])"});
}

}  // namespace
}  // namespace plexa::builder_test
