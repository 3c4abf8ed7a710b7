#include "core/verifier/verifier.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/infer/infer_test_util.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/text/hlo_parser.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using testing_util::S;

// Builds computations through the IR API.
class CompBuilder {
 public:
  explicit CompBuilder(const std::string& name)
      : comp_(std::make_unique<Computation>(name)) {}

  Instruction* Param(int64_t n, const char* shape, const std::string& name) {
    InstructionAttrs a;
    a.parameter_number = n;
    auto inst = Instruction::Create(HloOpcode::kParameter, S(shape), {}, a);
    inst->set_name(name);
    return comp_->AddInstruction(std::move(inst));
  }
  Instruction* Op(HloOpcode op, const char* shape,
                  std::vector<Instruction*> operands,
                  const std::string& name = "", InstructionAttrs attrs = {},
                  std::vector<Computation*> called = {}) {
    auto inst = Instruction::Create(op, S(shape), std::move(operands),
                                    std::move(attrs), std::move(called));
    inst->set_name(name);
    return comp_->AddInstruction(std::move(inst));
  }
  Computation* comp() { return comp_.get(); }
  // Moves the computation into the module.
  Computation* AddTo(Module* m, Instruction* root, bool entry = false) {
    comp_->set_root_instruction(root);
    return m->AddComputation(std::move(comp_), entry);
  }

 private:
  std::unique_ptr<Computation> comp_;
};

// add = f32[] (f32[], f32[]) as a module computation.
Computation* AddScalarAdder(Module* m, const char* type = "f32[]") {
  CompBuilder b("adder");
  Instruction* x = b.Param(0, type, "x");
  Instruction* y = b.Param(1, type, "y");
  return b.AddTo(m, b.Op(HloOpcode::kAdd, type, {x, y}, "sum"));
}

std::unique_ptr<Module> SimpleModule(const char* add_shape = "f32[2,3]") {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[2,3]", "p");
  Instruction* q = b.Param(1, "f32[2,3]", "q");
  b.AddTo(m.get(), b.Op(HloOpcode::kAdd, add_shape, {p, q}, "sum"), true);
  return m;
}

TEST(VerifierTest, ValidModule) {
  EXPECT_TRUE(VerifyModule(*SimpleModule()).ok());
}

TEST(VerifierTest, DeclaredShapeMustMatchInferred) {
  absl::Status s = VerifyModule(*SimpleModule("f32[3,2]"));
  EXPECT_INVALID(s, "main", "sum", "f32[3,2]", "f32[2,3]");
  // The element type is exact too.
  EXPECT_INVALID(VerifyModule(*SimpleModule("f64[2,3]")), "sum", "f64[2,3]",
                 "f32[2,3]");
}

// XLA's ShapeVerifier (not layout sensitive, as HloVerifier runs by
// default): a declared shape must be compatible with the inferred one
// (ShapeUtil::Compatible ignores layouts and which dimensions are dynamic),
// and the bounds must agree.
TEST(VerifierTest, LayoutsAreIgnoredAndDynamicDimensionsAsXla) {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[2,3]", "p");
  Shape with_layout = S("f32[2,3]");
  with_layout.set_layout(Layout({0, 1}));
  Instruction* neg = b.Op(HloOpcode::kNegate, "f32[2,3]", {p}, "neg");
  *neg->mutable_shape() = with_layout;
  b.AddTo(m.get(), neg, true);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);

  auto m2 = std::make_unique<Module>("m2");
  CompBuilder b2("main");
  Instruction* p2 = b2.Param(0, "f32[4]", "p");
  b2.AddTo(m2.get(), b2.Op(HloOpcode::kNegate, "f32[<=4]", {p2}, "neg"), true);
  EXPECT_TRUE(VerifyModule(*m2).ok()) << VerifyModule(*m2);

  auto m3 = std::make_unique<Module>("m3");
  CompBuilder b3("main");
  Instruction* p3 = b3.Param(0, "f32[4]", "p");
  b3.AddTo(m3.get(), b3.Op(HloOpcode::kTuple, "(f32[<=4])", {p3}, "t"), true);
  EXPECT_TRUE(VerifyModule(*m3).ok()) << VerifyModule(*m3);

  auto m4 = std::make_unique<Module>("m4");
  CompBuilder b4("main");
  Instruction* p4 = b4.Param(0, "f32[4]", "p");
  b4.AddTo(m4.get(), b4.Op(HloOpcode::kNegate, "f32[<=5]", {p4}, "neg"), true);
  EXPECT_INVALID(VerifyModule(*m4), "neg", "f32[<=5]", "f32[4]");
}

TEST(VerifierTest, InvalidLayoutRejected) {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[2,3]", "p");
  Shape bad = S("f32[2,3]");
  bad.set_layout(Layout({0, 0}));
  *p->mutable_shape() = bad;
  b.AddTo(m.get(), p, true);
  EXPECT_INVALID(VerifyModule(*m), "main", "p", "invalid shape");
}

TEST(VerifierTest, NeedsEntryAndRoot) {
  Module empty("m");
  EXPECT_INVALID(VerifyModule(empty), "no entry computation");

  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  b.Param(0, "f32[]", "p");
  Computation* c = b.AddTo(m.get(), nullptr, true);
  EXPECT_INVALID(VerifyModule(*m), "main", "no root");
  (void)c;
}

TEST(VerifierTest, OperandCountFromOpcodeTable) {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[2]", "p");
  b.AddTo(m.get(), b.Op(HloOpcode::kAdd, "f32[2]", {p}, "bad_add"), true);
  EXPECT_INVALID(VerifyModule(*m), "main", "bad_add", "2 operand(s)");
}

TEST(VerifierTest, ParameterNumbering) {
  {
    auto m = std::make_unique<Module>("m");
    CompBuilder b("main");
    Instruction* p0 = b.Param(0, "f32[]", "p0");
    b.Param(2, "f32[]", "p2");
    b.AddTo(m.get(), p0, true);
    EXPECT_INVALID(VerifyModule(*m), "main", "p2", "parameter number 2");
  }
  {
    auto m = std::make_unique<Module>("m");
    CompBuilder b("main");
    Instruction* p0 = b.Param(0, "f32[]", "a");
    b.Param(0, "f32[]", "b");
    b.AddTo(m.get(), p0, true);
    EXPECT_INVALID(VerifyModule(*m), "main", "parameter number 0");
  }
}

TEST(VerifierTest, InstructionNamesUnique) {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[]", "p");
  Instruction* n = b.Op(HloOpcode::kNegate, "f32[]", {p}, "n");
  n->set_name("p");  // renamed behind the computation's back
  b.AddTo(m.get(), n, true);
  EXPECT_INVALID(VerifyModule(*m), "main", "'p'", "more than once");
}

TEST(VerifierTest, CyclesThroughControlDependencies) {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[]", "p");
  Instruction* a = b.Op(HloOpcode::kNegate, "f32[]", {p}, "a");
  Instruction* c = b.Op(HloOpcode::kNegate, "f32[]", {a}, "c");
  c->AddControlDependencyTo(a);  // a waits for c, c uses a
  b.AddTo(m.get(), c, true);
  EXPECT_INVALID(VerifyModule(*m), "main", "cycle");
}

TEST(VerifierTest, OperandFromAnotherComputation) {
  auto m = std::make_unique<Module>("m");
  CompBuilder other("other");
  Instruction* foreign = other.Param(0, "f32[]", "foreign");
  other.AddTo(m.get(), foreign);
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[]", "p");
  b.AddTo(m.get(), b.Op(HloOpcode::kAdd, "f32[]", {p, foreign}, "mix"), true);
  EXPECT_INVALID(VerifyModule(*m), "main", "mix", "another computation");
}

TEST(VerifierTest, ReduceChecksItsReducer) {
  auto m = std::make_unique<Module>("m");
  Computation* adder = AddScalarAdder(m.get(), "s32[]");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[2,3]", "p");
  Instruction* zero = b.Param(1, "f32[]", "zero");
  InstructionAttrs attrs;
  attrs.dimensions = {1};
  b.AddTo(m.get(),
          b.Op(HloOpcode::kReduce, "f32[2]", {p, zero}, "r", attrs, {adder}),
          true);
  EXPECT_INVALID(VerifyModule(*m), "main", "'r'", "s32[]", "f32[]");
}

TEST(VerifierTest, ReduceWithGoodReducer) {
  auto m = std::make_unique<Module>("m");
  Computation* adder = AddScalarAdder(m.get());
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[2,3]", "p");
  Instruction* zero = b.Param(1, "f32[]", "zero");
  InstructionAttrs attrs;
  attrs.dimensions = {1};
  b.AddTo(m.get(),
          b.Op(HloOpcode::kReduce, "f32[2]", {p, zero}, "r", attrs, {adder}),
          true);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);
}

TEST(VerifierTest, WhileSignatures) {
  auto m = std::make_unique<Module>("m");
  CompBuilder cond("cond");
  Instruction* cs = cond.Param(0, "(s32[], f32[10])", "state");
  Instruction* i = cond.Op(HloOpcode::kGetTupleElement, "s32[]", {cs}, "i");
  // The condition wrongly returns s32[].
  Computation* cond_c = cond.AddTo(m.get(), i);
  CompBuilder body("body");
  Instruction* bs = body.Param(0, "(s32[], f32[10])", "state");
  Computation* body_c = body.AddTo(m.get(), bs);
  CompBuilder b("main");
  Instruction* init = b.Param(0, "(s32[], f32[10])", "init");
  b.AddTo(m.get(),
          b.Op(HloOpcode::kWhile, "(s32[], f32[10])", {init}, "loop", {},
               {cond_c, body_c}),
          true);
  EXPECT_INVALID(VerifyModule(*m), "main", "loop", "pred[]");
}

TEST(VerifierTest, RecursionRejected) {
  auto m = std::make_unique<Module>("m");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[]", "p");
  Computation* main = b.comp();
  Instruction* call =
      b.Op(HloOpcode::kCall, "f32[]", {p}, "self_call", {}, {main});
  b.AddTo(m.get(), call, true);
  EXPECT_INVALID(VerifyModule(*m), "main", "calls itself");
}

TEST(VerifierTest, CalledComputationMustBeInModule) {
  auto m = std::make_unique<Module>("m");
  Computation stray("stray");
  CompBuilder b("main");
  Instruction* p = b.Param(0, "f32[]", "p");
  b.AddTo(m.get(), b.Op(HloOpcode::kCall, "f32[]", {p}, "c", {}, {&stray}),
          true);
  EXPECT_INVALID(VerifyModule(*m), "main", "stray", "not in the module");
}

TEST(VerifierTest, EntryComputationLayout) {
  auto m = SimpleModule();
  ProgramShape layout;
  layout.parameters = {S("f32[2,3]"), S("f32[2,3]")};
  layout.result = S("f32[2,3]");
  layout.parameters[0].set_layout(Layout({0, 1}));
  m->set_entry_computation_layout(layout);
  EXPECT_TRUE(VerifyModule(*m).ok()) << VerifyModule(*m);

  layout.result = S("f32[3,2]");
  m->set_entry_computation_layout(layout);
  EXPECT_INVALID(VerifyModule(*m), "entry_computation_layout", "f32[3,2]",
                 "f32[2,3]");

  layout.result = S("f32[2,3]");
  layout.parameters.pop_back();
  m->set_entry_computation_layout(layout);
  EXPECT_INVALID(VerifyModule(*m), "entry_computation_layout", "1 parameters");
}

// ---- Through the text parser ----------------------------------------------

absl::Status VerifyText(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (!m.ok()) {
    ADD_FAILURE() << "parse error: " << m.status();
    return m.status();
  }
  return VerifyModule(**m);
}

TEST(VerifierTextTest, ReduceModule) {
  EXPECT_TRUE(VerifyText(R"(
HloModule reduce

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4,2,3] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[3] reduce(p, zero), dimensions={0,1}, to_apply=add
}
)")
                  .ok());
}

TEST(VerifierTextTest, WrongReduceResult) {
  EXPECT_INVALID(VerifyText(R"(
HloModule reduce

add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT s = f32[] add(x, y)
}

ENTRY main {
  p = f32[4,2,3] parameter(0)
  zero = f32[] constant(0)
  ROOT r = f32[4,2] reduce(p, zero), dimensions={0,1}, to_apply=add
}
)"),
                 "main", "'r'", "f32[4,2]", "f32[3]");
}

TEST(VerifierTextTest, RngBitGeneratorStateIsNamed) {
  EXPECT_TRUE(VerifyText(R"(
HloModule m

ENTRY main {
  s = u64[2] parameter(0)
  ROOT r = (u64[2], u32[2,3]) rng-bit-generator(s), algorithm=rng_three_fry
}
)")
                  .ok());
  EXPECT_INVALID(VerifyText(R"(
HloModule m

ENTRY main {
  s = u64[3] parameter(0)
  ROOT r = (u64[3], u32[2,3]) rng-bit-generator(s), algorithm=rng_three_fry
}
)"),
                 "'r'", "u64[3]", "rng_three_fry", "must be u64[2]");
  EXPECT_INVALID(VerifyText(R"(
HloModule m

ENTRY main {
  s = u32[2] parameter(0)
  ROOT r = (u32[2], u32[4]) rng-bit-generator(s), algorithm=rng_philox
}
)"),
                 "'r'", "u32[2]", "u64[2] or u64[3]");
  EXPECT_INVALID(VerifyText(R"(
HloModule m

ENTRY main {
  s = u64[2] parameter(0)
  ROOT r = u32[4] rng-bit-generator(s), algorithm=rng_philox
}
)"),
                 "'r'", "(state, data) tuple");
}

TEST(VerifierTextTest, ScalarPlusArrayRejectedInHlo) {
  EXPECT_INVALID(VerifyText(R"(
HloModule m

ENTRY main {
  p = f32[2,3] parameter(0)
  c = f32[] constant(1)
  ROOT a = f32[2,3] add(p, c)
}
)"),
                 "'a'", "f32[2,3]", "f32[]");
}

TEST(VerifierTextTest, DotConvolutionAndTuples) {
  EXPECT_TRUE(VerifyText(R"(
HloModule m

ENTRY main {
  a = f32[8,3,5] parameter(0)
  b = f32[8,5,7] parameter(1)
  d = f32[8,3,7] dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  x = f32[1,5,5,2] parameter(2)
  k = f32[3,3,2,4] parameter(3)
  c = f32[1,3,3,4] convolution(x, k), window={size=3x3}, dim_labels=b01f_01io->b01f
  ROOT t = (f32[8,3,7], f32[1,3,3,4]) tuple(d, c)
}
)")
                  .ok());
}

TEST(VerifierTextTest, BadConvolutionWindow) {
  EXPECT_INVALID(VerifyText(R"(
HloModule m

ENTRY main {
  x = f32[1,5,5,2] parameter(0)
  k = f32[3,3,2,4] parameter(1)
  ROOT c = f32[1,4,4,4] convolution(x, k), window={size=2x2}, dim_labels=b01f_01io->b01f
}
)"),
                 "'c'", "window size 2");
}

// Seed 004's while: a (s32[], f32[10]) state counting to 1000.
TEST(VerifierTextTest, SeedWhileLoop) {
  EXPECT_TRUE(VerifyText(R"(
HloModule loop, entry_computation_layout={((s32[], f32[10]{0}))->(s32[], f32[10]{0})}

cond {
  s = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}

body {
  s = (s32[], f32[10]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  one = s32[] constant(1)
  next = s32[] add(i, one)
  v = f32[10] get-tuple-element(s), index=1
  c = f32[10] constant({1,1,1,1,1,1,1,1,1,1})
  w = f32[10] add(v, c)
  ROOT t = (s32[], f32[10]) tuple(next, w)
}

ENTRY main {
  init = (s32[], f32[10]) parameter(0)
  ROOT r = (s32[], f32[10]) while(init), condition=cond, body=body
}
)")
                  .ok());
}

TEST(VerifierTextTest, CompareTypeMustSuitElementType) {
  EXPECT_INVALID(VerifyText(R"(
HloModule m

ENTRY main {
  a = s32[4] parameter(0)
  b = s32[4] parameter(1)
  ROOT lt = pred[4] compare(a, b), direction=LT, type=TOTALORDER
}
)"),
                 "'lt'", "TOTALORDER", "s32[4]");
}

TEST(VerifierTextTest, EntryLayoutMismatch) {
  EXPECT_INVALID(VerifyText(R"(
HloModule m, entry_computation_layout={(f32[3]{0})->f32[2]{0}}

ENTRY main {
  p = f32[2] parameter(0)
  ROOT n = f32[2] negate(p)
}
)"),
                 "entry_computation_layout", "f32[3]", "f32[2]");
}

// Collectives: the replica groups and dimensions XLA's verifier checks,
// reported with the computation and instruction.
TEST(VerifierTextTest, AllGatherAndReduceScatter) {
  constexpr absl::string_view kAdd = R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
)";
  auto entry = [&](absl::string_view root) {
    return absl::StrCat(kAdd, "ENTRY main {\n  p = f32[4,2] parameter(0)\n",
                        "  ROOT r = ", root, "\n}\n");
  };
  EXPECT_TRUE(VerifyText(entry("f32[4,4] all-gather(p), "
                               "replica_groups=[2,2]<=[4], dimensions={1}"))
                  .ok());
  EXPECT_TRUE(VerifyText(entry("f32[2,2] reduce-scatter(p), "
                               "replica_groups={{0,1}}, dimensions={0}, "
                               "to_apply=add"))
                  .ok());
  EXPECT_INVALID(VerifyText(entry("f32[8,2] all-gather(p), "
                                  "replica_groups={{0,1},{2}}, "
                                  "dimensions={0}")),
                 "computation 'main', instruction 'r' (all-gather)",
                 "one size");
  EXPECT_INVALID(VerifyText(entry("f32[8,2] all-gather(p), "
                                  "replica_groups={{0,1},{1,2}}, "
                                  "dimensions={0}")),
                 "instruction 'r'", "replica 1", "more than once");
  EXPECT_INVALID(VerifyText(entry("f32[8,2] all-gather(p), "
                                  "replica_groups={{0,1}}, dimensions={2}")),
                 "instruction 'r'", "dimension 2 is out of range", "f32[4,2]");
  EXPECT_INVALID(VerifyText(entry("f32[12,2] all-gather(p), "
                                  "replica_groups={{0,1}}, dimensions={0}")),
                 "instruction 'r'", "f32[12,2]", "f32[8,2]");
  EXPECT_INVALID(VerifyText(entry("f32[1,2] reduce-scatter(p), "
                                  "replica_groups={{0,1,2}}, dimensions={0}, "
                                  "to_apply=add")),
                 "instruction 'r' (reduce-scatter)", "not divisible",
                 "group size 3");
  EXPECT_TRUE(VerifyText(entry("f32[4,2] all-to-all(p), "
                               "replica_groups={{0,1}}, dimensions={0}"))
                  .ok());
  EXPECT_INVALID(VerifyText(entry("f32[4,2] all-to-all(p), "
                                  "replica_groups={{0,1,2}}, dimensions={0}")),
                 "computation 'main', instruction 'r' (all-to-all)",
                 "not divisible by the group size 3");
  EXPECT_INVALID(VerifyText(entry("(f32[4,2]) all-to-all(p), "
                                  "replica_groups={{0,1}}")),
                 "instruction 'r' (all-to-all)", "one operand per member");
  // The async pairs: a -done's operand is its -start, a -start's one user
  // its -done.
  EXPECT_TRUE(
      VerifyText(absl::StrCat(kAdd,
                              "ENTRY main {\n  p = f32[4,2] parameter(0)\n"
                              "  s = (f32[4,2], f32[8,2]) all-gather-start(p), "
                              "replica_groups={{0,1}}, dimensions={0}\n"
                              "  ROOT d = f32[8,2] all-gather-done(s)\n}\n"))
          .ok());
  EXPECT_INVALID(
      VerifyText(absl::StrCat(kAdd,
                              "ENTRY main {\n  p = f32[4,2] parameter(0)\n"
                              "  s = (f32[4,2], f32[4,2], u32[], u32[]) "
                              "collective-permute-start(p), "
                              "source_target_pairs={{0,1}}\n"
                              "  ROOT d = f32[4,2] all-gather-done(s)\n}\n")),
      "instruction 's' (collective-permute-start)",
      "exactly one user, a collective-permute-done; it has 1 user(s): "
      "'d' "
      "(all-gather-done)");
  EXPECT_INVALID(VerifyText(absl::StrCat(
                     kAdd,
                     "ENTRY main {\n  p = (f32[4,2], f32[8,2]) parameter(0)\n"
                     "  ROOT d = f32[8,2] all-gather-done(p)\n}\n")),
                 "instruction 'd' (all-gather-done)",
                 "its operand must be a all-gather-start, not parameter");
  EXPECT_INVALID(VerifyText(absl::StrCat(
                     kAdd,
                     "ENTRY main {\n  p = f32[4,2] parameter(0)\n"
                     "  s = f32[4,2] all-reduce-start(p), to_apply=add\n"
                     "  d = f32[4,2] all-reduce-done(s)\n"
                     "  ROOT t = (f32[4,2], f32[4,2]) tuple(d, s)\n}\n")),
                 "instruction 's' (all-reduce-start)",
                 "exactly one user, a all-reduce-done; it has 2 user(s): 'd' "
                 "(all-reduce-done), 't' (tuple)");
  EXPECT_TRUE(VerifyText(entry("f32[4,2] collective-permute(p), "
                               "source_target_pairs={{0,1},{1,0}}"))
                  .ok());
  EXPECT_INVALID(VerifyText(entry("f32[4,2] collective-permute(p), "
                                  "source_target_pairs={{0,1},{2,1}}")),
                 "computation 'main', instruction 'r' (collective-permute)",
                 "target 1 appears more than once");
  EXPECT_INVALID(VerifyText(entry("f32[2,4] collective-permute(p), "
                                  "source_target_pairs={{0,1}}")),
                 "instruction 'r'", "f32[2,4]", "f32[4,2]");
  EXPECT_TRUE(VerifyText(entry("f32[4,2] collective-broadcast(p), "
                               "channel_id=3, replica_groups={{1,0},{2,3}}"))
                  .ok());
  EXPECT_INVALID(VerifyText(entry("f32[2,4] collective-broadcast(p), "
                                  "replica_groups={{0,1}}")),
                 "computation 'main', instruction 'r' (collective-broadcast)",
                 "f32[2,4]", "f32[4,2]");
  EXPECT_INVALID(VerifyText(entry("f32[4,2] collective-broadcast(p), "
                                  "replica_groups={{0,1},{2}}")),
                 "instruction 'r' (collective-broadcast)", "one size");
}

TEST(VerifierTest, StochasticConvertAsXla) {
  auto module = [](absl::string_view random, absl::string_view result) {
    return absl::StrCat(
        "HloModule m\nENTRY main {\n  x = f32[3] parameter(0)\n  b = ", random,
        " parameter(1)\n  ROOT r = ", result, " stochastic-convert(x, b)\n}\n");
  };
  EXPECT_TRUE(VerifyText(module("u32[3]", "s32[3]")).ok());
  EXPECT_TRUE(VerifyText(module("u32[3]", "s8[3]")).ok());
  EXPECT_INVALID(VerifyText(module("u16[3]", "s32[3]")),
                 "computation 'main', instruction 'r' (stochastic-convert)",
                 "the random is 16 bits and the operand is 32 bits");
  EXPECT_INVALID(VerifyText(module("s32[3]", "s32[3]")),
                 "instruction 'r' (stochastic-convert)",
                 "must be unsigned integers");
  EXPECT_INVALID(VerifyText(module("u32[3]", "s32[4]")),
                 "instruction 'r' (stochastic-convert)", "s32[4]", "s32[3]");
}

// fft and topk: the declared shape must be XLA's inferred one; the error
// names the computation, the instruction and both shapes.
TEST(VerifierTest, FftShapesAsXla) {
  auto verify = [](const char* operand, const char* result, FftType type,
                   std::vector<int64_t> length) {
    auto m = std::make_unique<Module>("m");
    CompBuilder b("main");
    Instruction* x = b.Param(0, operand, "x");
    InstructionAttrs a;
    a.fft_type = type;
    a.fft_length = std::move(length);
    b.AddTo(m.get(), b.Op(HloOpcode::kFft, result, {x}, "f", a), true);
    return VerifyModule(*m);
  };
  EXPECT_TRUE(verify("f32[3,8]", "c64[3,5]", FftType::kRfft, {8}).ok());
  EXPECT_TRUE(verify("c128[2,5]", "f64[2,8]", FftType::kIrfft, {2, 8}).ok());
  EXPECT_TRUE(verify("c64[4,6]", "c64[4,6]", FftType::kIfft, {4, 6}).ok());
  // RFFT's last dimension is fft_length/2+1, not fft_length.
  EXPECT_INVALID(verify("f32[3,8]", "c64[3,8]", FftType::kRfft, {8}), "main",
                 "f", "c64[3,8]", "c64[3,5]");
  // IRFFT's operand must hold fft_length/2+1 values.
  EXPECT_INVALID(verify("c64[8]", "f32[8]", FftType::kIrfft, {8}), "f",
                 "fft_length/2+1");
  // The element type follows the transform.
  EXPECT_INVALID(verify("c64[8]", "c128[8]", FftType::kFft, {8}), "f",
                 "c128[8]", "c64[8]");
}

TEST(VerifierTest, TopKShapesAsXla) {
  auto verify = [](const char* operand, const char* result, int64_t k) {
    auto m = std::make_unique<Module>("m");
    CompBuilder b("main");
    Instruction* x = b.Param(0, operand, "x");
    InstructionAttrs a;
    a.k = k;
    b.AddTo(m.get(), b.Op(HloOpcode::kTopK, result, {x}, "t", a), true);
    return VerifyModule(*m);
  };
  EXPECT_TRUE(verify("f32[4,16]", "(f32[4,2], s32[4,2])", 2).ok());
  EXPECT_INVALID(verify("f32[4,16]", "(f32[4,2], s64[4,2])", 2), "t",
                 "s64[4,2]", "s32[4,2]");
  EXPECT_INVALID(verify("f32[4,16]", "(f32[4,3], s32[4,3])", 2), "t",
                 "(f32[4,3], s32[4,3])");
  EXPECT_INVALID(verify("f32[4,16]", "(f32[4,20], s32[4,20])", 20), "t",
                 "k=20");
}

}  // namespace
}  // namespace plexa

namespace plexa {
namespace {

constexpr absl::string_view kWrapped = R"(
HloModule m

wrapped {
  a = f32[4] parameter(0)
  ROOT n = f32[4] negate(a)
}

other {
  a = f32[4] parameter(0)
  ROOT e = f32[4] exponential(a)
}
)";

std::string AsyncModule(absl::string_view body) {
  return absl::StrCat(kWrapped, "ENTRY main {\n  p = f32[4] parameter(0)\n",
                      body, "\n}\n");
}

absl::Status VerifyAsyncText(absl::string_view text) {
  absl::StatusOr<std::unique_ptr<Module>> m = ParseHloModule(text);
  if (!m.ok()) return m.status();
  return VerifyModule(**m);
}

// XLA's pairing rules for async-start/-update/-done and copy-start/-done,
// with located errors.
TEST(VerifierAsyncTest, WrapperPairing) {
  EXPECT_TRUE(
      VerifyAsyncText(
          AsyncModule("  s = ((f32[4]), f32[4], s32[]) async-start(p), "
                      "calls=wrapped\n"
                      "  u = ((f32[4]), f32[4], s32[]) async-update(s)\n"
                      "  ROOT d = f32[4] async-done(u), calls=wrapped"))
          .ok());
  EXPECT_INVALID(VerifyAsyncText(AsyncModule(
                     "  s = ((f32[4]), f32[4], s32[]) async-start(p), "
                     "calls=wrapped\n"
                     "  d = f32[4] async-done(s)\n"
                     "  ROOT t = (f32[4], ((f32[4]), f32[4], s32[])) "
                     "tuple(d, s)")),
                 "instruction 's' (async-start)",
                 "exactly one user, an async-update or async-done; it has 2 "
                 "user(s): 'd' (async-done), 't' (tuple)");
  EXPECT_INVALID(VerifyAsyncText(AsyncModule(
                     "  t = ((f32[4]), f32[4], s32[]) parameter(1)\n"
                     "  ROOT d = f32[4] async-done(t)")),
                 "instruction 'd' (async-done)",
                 "its operand must be an async-start or async-update, not 't' "
                 "(parameter)");
  EXPECT_INVALID(VerifyAsyncText(AsyncModule(
                     "  s = ((f32[4]), f32[4], s32[]) async-start(p), "
                     "calls=wrapped\n"
                     "  ROOT d = f32[4] async-done(s), calls=other")),
                 "instruction 'd' (async-done)",
                 "calls 'other', but its async-start 's' calls 'wrapped'");
  // Shapes: element 1 must be the wrapped computation's result.
  EXPECT_INVALID(VerifyAsyncText(AsyncModule(
                     "  s = ((f32[4]), s32[4], s32[]) async-start(p), "
                     "calls=wrapped\n"
                     "  ROOT d = s32[4] async-done(s)")),
                 "async-start", "element 1", "f32[4]", "wrapped result");
}

TEST(VerifierAsyncTest, CopyPairingAndOrderingOps) {
  EXPECT_TRUE(VerifyAsyncText(
                  AsyncModule("  s = (f32[4], f32[4], u32[]) copy-start(p)\n"
                              "  ROOT d = f32[4] copy-done(s)"))
                  .ok());
  EXPECT_INVALID(VerifyAsyncText(
                     AsyncModule("  s = (f32[4], f32[4], u32[]) copy-start(p)\n"
                                 "  d = f32[4] copy-done(s)\n"
                                 "  ROOT t = (f32[4], (f32[4], f32[4], u32[])) "
                                 "tuple(d, s)")),
                 "instruction 's' (copy-start)",
                 "exactly one user, a copy-done; it has 2 user(s)");
  EXPECT_INVALID(VerifyAsyncText(
                     AsyncModule("  s = (f32[4], f32[4], u32[]) copy-start(p)\n"
                                 "  ROOT d = f32[4] copy-done(s)\n"
                                 "  x = f32[4] copy-done(s)")),
                 "(copy-start)", "exactly one user");
  // copy-start's shape is (x, x, u32[]).
  EXPECT_INVALID(VerifyAsyncText(
                     AsyncModule("  s = (f32[4], f32[4], s32[]) copy-start(p)\n"
                                 "  ROOT d = f32[4] copy-done(s)")),
                 "copy-start", "(f32[4], f32[4], u32[])");
  // add-dependency's second operand is a token.
  EXPECT_INVALID(
      VerifyAsyncText(AsyncModule("  ROOT d = f32[4] add-dependency(p, p)")),
      "add-dependency", "token");
  EXPECT_TRUE(VerifyAsyncText(AsyncModule("  t = token[] after-all()\n"
                                          "  ROOT d = f32[4] "
                                          "add-dependency(p, t)"))
                  .ok());
  // rng-get-and-update-state is u64[2].
  EXPECT_INVALID(VerifyAsyncText(AsyncModule(
                     "  ROOT r = u64[3] rng-get-and-update-state(), delta=1")),
                 "u64[2]", "u64[3]");
}

// Built through the IR (the text parser checks arity first): a done
// without an operand is an error, never a crash.
TEST(VerifierAsyncTest, ADoneWithoutOperandIsAnError) {
  Module m("m");
  CompBuilder b("main");
  Instruction* d = b.Op(HloOpcode::kCopyDone, "f32[4]", {}, "d");
  b.AddTo(&m, d, /*entry=*/true);
  EXPECT_INVALID(VerifyModule(m), "instruction 'd' (copy-done)",
                 "takes one operand");
}

// The channel instructions: XLA's shapes and pairing checks.
std::string ChannelModule(absl::string_view body) {
  return absl::StrCat(
      "HloModule c\nENTRY main {\n  p = f32[4] parameter(0)\n"
      "  t = token[] after-all()\n",
      body, "\n}\n");
}

constexpr absl::string_view kPair =
    "  r = (f32[4], u32[], token[]) recv(t), channel_id=1\n"
    "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1\n"
    "  rd = (f32[4], token[]) recv-done(r), channel_id=1\n"
    "  sd = token[] send-done(s), channel_id=1\n";

TEST(VerifierChannelTest, AValidPairAcrossReplicasAndWithinOne) {
  EXPECT_TRUE(
      VerifyAsyncText(
          ChannelModule(absl::StrCat(
              kPair, "  ROOT d = f32[4] get-tuple-element(rd), index=0")))
          .ok());
  EXPECT_TRUE(
      VerifyAsyncText(
          ChannelModule(
              "  r = (f32[4], u32[], token[]) recv(t), channel_id=1, "
              "frontend_attributes={_xla_send_recv_source_target_pairs="
              "\"{{0,1},{1,0}}\"}\n"
              "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1, "
              "frontend_attributes={_xla_send_recv_source_target_pairs="
              "\"{{0,1},{1,0}}\"}\n"
              "  rd = (f32[4], token[]) recv-done(r), channel_id=1\n"
              "  sd = token[] send-done(s), channel_id=1\n"
              "  ROOT d = f32[4] get-tuple-element(rd), index=0"))
          .ok());
}

TEST(VerifierChannelTest, ShapesAsXla) {
  // send's shape is (data, u32[], token[]); its second operand a token.
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], s32[], token[]) send(p, t), channel_id=1\n"
                     "  ROOT sd = token[] send-done(s), channel_id=1")),
                 "(f32[4], u32[], token[])");
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, p), channel_id=1\n"
                     "  ROOT sd = token[] send-done(s), channel_id=1")),
                 "send expects a token");
  // recv-done's shape is (recv's data, token[]).
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  r = (f32[4], u32[], token[]) recv(t), channel_id=1\n"
                     "  ROOT rd = (f32[2], token[]) recv-done(r), "
                     "channel_id=1")),
                 "recv-done", "(f32[4], token[])");
}

TEST(VerifierChannelTest, PairingErrorsNameTheInstruction) {
  // send-done's operand must be a send of the same channel.
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1\n"
                     "  ROOT sd = token[] send-done(s), channel_id=2")),
                 "instruction 'sd' (send-done)",
                 "channel_id=2 differs from its send 's' (channel_id=1)");
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  q = (f32[4], u32[], token[]) parameter(1)\n"
                     "  ROOT sd = token[] send-done(q), channel_id=1")),
                 "instruction 'sd' (send-done)",
                 "its operand must be a send, not 'q' (parameter)");
  // A send's one user is its send-done.
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1\n"
                     "  sd = token[] send-done(s), channel_id=1\n"
                     "  ROOT g = f32[4] get-tuple-element(s), index=0")),
                 "instruction 's' (send)",
                 "exactly one user, a send-done; it has 2");
  // One send and one recv per channel.
  EXPECT_INVALID(
      VerifyAsyncText(ChannelModule(absl::StrCat(
          kPair,
          "  s2 = (f32[4], u32[], token[]) send(p, t), channel_id=1\n"
          "  sd2 = token[] send-done(s2), channel_id=1\n"
          "  ROOT d = f32[4] get-tuple-element(rd), index=0"))),
      "channel 1 already has a send");
  // A channel is used by send/recv or by another kind of instruction.
  EXPECT_INVALID(
      VerifyAsyncText(absl::StrCat(
          kWrapped,
          ChannelModule(
              absl::StrCat(kPair,
                           "  cp = f32[4] collective-permute(p), channel_id=1, "
                           "source_target_pairs={{0,0}}\n"
                           "  ROOT d = f32[4] get-tuple-element(rd), index=0"))
              .substr(std::string("HloModule c\n").size()))),
      "instruction 'cp' (collective-permute)",
      "channel_id=1 is also the channel of");
  // The two ends agree on the data shape, host transfer and pairs.
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  r = (f32[2], u32[], token[]) recv(t), channel_id=1\n"
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1\n"
                     "  rd = (f32[2], token[]) recv-done(r), channel_id=1\n"
                     "  sd = token[] send-done(s), channel_id=1\n"
                     "  ROOT d = f32[2] get-tuple-element(rd), index=0")),
                 "instruction 'r' (recv)", "receives f32[2]", "sends f32[4]");
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  r = (f32[4], u32[], token[]) recv(t), channel_id=1, "
                     "frontend_attributes={_xla_send_recv_source_target_pairs="
                     "\"{{0,1}}\"}\n"
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1, "
                     "frontend_attributes={_xla_send_recv_source_target_pairs="
                     "\"{{1,0}}\"}\n"
                     "  rd = (f32[4], token[]) recv-done(r), channel_id=1\n"
                     "  sd = token[] send-done(s), channel_id=1\n"
                     "  ROOT d = f32[4] get-tuple-element(rd), index=0")),
                 "instruction 'r' (recv)", "differ from those of send 's'");
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1, "
                     "frontend_attributes={_xla_send_recv_source_target_pairs="
                     "\"{{0,x}}\"}\n"
                     "  ROOT sd = token[] send-done(s), channel_id=1")),
                 "instruction 's'", "{0,x} is not two integers");
  // As collective-permute's pairs: no replica is a target twice.
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1, "
                     "frontend_attributes={_xla_send_recv_source_target_pairs="
                     "\"{{0,1},{2,1}}\"}\n"
                     "  ROOT sd = token[] send-done(s), channel_id=1")),
                 "instruction 's' (send)",
                 "_xla_send_recv_source_target_pairs: ");
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1, "
                     "is_host_transfer=true\n"
                     "  ROOT sd = token[] send-done(s), channel_id=1")),
                 "instruction 'sd' (send-done)",
                 "is_host_transfer differs from its send 's'");
  // As XLA: a host channel has one send or one recv.
  EXPECT_INVALID(
      VerifyAsyncText(ChannelModule(
          "  r = (f32[4], u32[], token[]) recv(t), channel_id=1, "
          "is_host_transfer=true\n"
          "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1, "
          "is_host_transfer=true\n"
          "  rd = (f32[4], token[]) recv-done(r), channel_id=1, "
          "is_host_transfer=true\n"
          "  sd = token[] send-done(s), channel_id=1, is_host_transfer=true\n"
          "  ROOT d = f32[4] get-tuple-element(rd), index=0")),
      "instruction 'r' (recv)",
      "channel 1 is a host transfer and already "
      "has send 's'");
}

// XLA's parser test SendRecvWoChannelID: send and recv without channel_id
// parse and verify (XLA's parser no longer requires one); such ends pair
// with nothing, and a -done still needs its own start as operand.
TEST(VerifierChannelTest, SendAndRecvWithoutChannelIdAsXla) {
  EXPECT_TRUE(VerifyText(R"(HloModule SendRecvWoChannelID_module

ENTRY %computation () -> (f32[], token[]) {
  %token0 = token[] after-all()
  %recv = (f32[], u32[], token[]) recv(token[] %token0)
  ROOT %recv-done = (f32[], token[]) recv-done((f32[], u32[], token[]) %recv)
  %constant = f32[] constant(2.1)
  %send = (f32[], u32[], token[]) send(f32[] %constant, token[] %token0)
  %send-done = token[] send-done((f32[], u32[], token[]) %send)
}
)")
                  .ok());
  // A -done whose start has a channel while it has none still differs.
  EXPECT_INVALID(VerifyAsyncText(ChannelModule(
                     "  s = (f32[4], u32[], token[]) send(p, t), channel_id=1\n"
                     "  sd = token[] send-done(s)\n"
                     "  ROOT d = f32[4] negate(p)")),
                 "instruction 'sd' (send-done)", "differs from its send 's'");
}

// ragged-dot: the declared shape must be the inferred one (XLA's
// ShapeVerifier::HandleRaggedDot); bad dimension numbers and group sizes
// name the computation and the instruction.
TEST(VerifierTest, RaggedDotShapesAsXla) {
  auto verify = [](const char* lhs, const char* rhs, const char* sizes,
                   const char* result, std::vector<int64_t> ragged,
                   std::vector<int64_t> group) {
    auto m = std::make_unique<Module>("m");
    CompBuilder b("main");
    Instruction* x = b.Param(0, lhs, "x");
    Instruction* y = b.Param(1, rhs, "y");
    Instruction* g = b.Param(2, sizes, "g");
    InstructionAttrs a;
    a.dot_dimension_numbers.emplace();
    a.dot_dimension_numbers->lhs_contracting_dimensions = {1};
    a.dot_dimension_numbers->rhs_contracting_dimensions = {1};
    a.lhs_ragged_dimensions = std::move(ragged);
    a.rhs_group_dimensions = std::move(group);
    b.AddTo(m.get(), b.Op(HloOpcode::kRaggedDot, result, {x, y, g}, "rd", a),
            true);
    return VerifyModule(*m);
  };
  EXPECT_TRUE(
      verify("f32[6,4]", "f32[3,4,5]", "s64[3]", "f32[6,5]", {0}, {0}).ok());
  // A result type other than the operands' is the preferred type, as dot.
  EXPECT_TRUE(
      verify("s8[6,4]", "s8[3,4,5]", "s32[3]", "s32[6,5]", {0}, {0}).ok());
  // The group dimension is not in the result.
  EXPECT_INVALID(
      verify("f32[6,4]", "f32[3,4,5]", "s64[3]", "f32[6,3,5]", {0}, {0}),
      "main", "rd", "f32[6,3,5]", "f32[6,5]");
  EXPECT_INVALID(
      verify("f32[6,4]", "f32[3,4,5]", "s64[2]", "f32[6,5]", {0}, {0}), "rd",
      "has 2 groups");
  EXPECT_INVALID(
      verify("f32[6,4]", "f32[3,4,5]", "s64[3]", "f32[6,5]", {}, {0}), "rd",
      "exactly one ragged dimension");
  EXPECT_INVALID(
      verify("f32[6,4]", "f32[3,4,5]", "f32[3]", "f32[6,5]", {0}, {0}), "rd",
      "integer element type");
  // Ragged in the contracting dimension: the result gains the groups in
  // front, and the rhs has no group dimension.
  EXPECT_TRUE(
      verify("f32[6,4]", "f32[5,4]", "s32[2]", "f32[2,6,5]", {1}, {}).ok());
  EXPECT_INVALID(verify("f32[6,4]", "f32[5,4]", "s32[2]", "f32[6,5]", {1}, {}),
                 "rd", "f32[2,6,5]");
}

}  // namespace
}  // namespace plexa
