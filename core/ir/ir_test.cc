// The IR's own invariants (core/ir): unique names, users kept in step with
// operands, removal rules, post order with unreachable instructions, the
// program shape. Built by hand here (no parser) so that the IR is tested on
// its own.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"
#include "core/shape/shape_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using ::testing::ElementsAre;

Shape F32(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShape(PrimitiveType::F32, dims);
}

Instruction* Param(Computation* c, int64_t number, const std::string& name) {
  InstructionAttrs attrs;
  attrs.parameter_number = number;
  auto p = Instruction::Create(HloOpcode::kParameter, F32({2}), {}, attrs);
  p->set_name(name);
  return c->AddInstruction(std::move(p));
}

Instruction* Binary(Computation* c, HloOpcode op, Instruction* a,
                    Instruction* b, const std::string& name = "") {
  auto inst = Instruction::Create(op, F32({2}), {a, b}, {});
  if (!name.empty()) inst->set_name(name);
  return c->AddInstruction(std::move(inst));
}

std::vector<std::string> Names(const std::vector<Instruction*>& v) {
  std::vector<std::string> out;
  for (const Instruction* i : v) out.push_back(i->name());
  return out;
}

TEST(IrTest, NamesAreMadeUniqueWithinAComputation) {
  Computation c("c");
  Instruction* x = Param(&c, 0, "x");
  Instruction* a = Binary(&c, HloOpcode::kAdd, x, x, "sum");
  Instruction* b = Binary(&c, HloOpcode::kAdd, a, x, "sum");
  Instruction* d = Binary(&c, HloOpcode::kMultiply, a, b);
  EXPECT_EQ(a->name(), "sum");
  EXPECT_NE(b->name(), "sum");
  EXPECT_NE(d->name(), "");
  EXPECT_EQ(c.GetInstructionWithName(b->name()), b);
  EXPECT_EQ(c.parameter_instruction(0), x);
}

TEST(IrTest, UsersFollowOperandsAndReplacement) {
  Computation c("c");
  Instruction* x = Param(&c, 0, "x");
  Instruction* y = Param(&c, 1, "y");
  Instruction* a = Binary(&c, HloOpcode::kAdd, x, x, "a");
  // x is used twice by a, but a is one user.
  EXPECT_THAT(Names(x->users()), ElementsAre("a"));
  ASSERT_TRUE(a->ReplaceOperandWith(0, y).ok());
  // a still reads x through operand 1.
  EXPECT_THAT(Names(x->users()), ElementsAre("a"));
  EXPECT_THAT(Names(y->users()), ElementsAre("a"));
  ASSERT_TRUE(a->ReplaceOperandWith(1, y).ok());
  EXPECT_TRUE(x->users().empty());
  EXPECT_FALSE(a->ReplaceOperandWith(2, y).ok());  // out of range
}

TEST(IrTest, OnlyUnusedNonRootInstructionsAreRemoved) {
  Computation c("c");
  Instruction* x = Param(&c, 0, "x");
  Instruction* a = Binary(&c, HloOpcode::kAdd, x, x, "a");
  Instruction* b = Binary(&c, HloOpcode::kMultiply, a, a, "b");
  c.set_root_instruction(b);
  EXPECT_FALSE(c.RemoveInstruction(a).ok());  // b uses it
  EXPECT_FALSE(c.RemoveInstruction(b).ok());  // the root
  Instruction* dead = Binary(&c, HloOpcode::kSubtract, a, x, "dead");
  ASSERT_TRUE(c.RemoveInstruction(dead).ok());
  EXPECT_EQ(c.GetInstructionWithName("dead"), nullptr);
  EXPECT_THAT(Names(a->users()), ElementsAre("b"));
}

TEST(IrTest, PostOrderHasOperandsFirstAndEveryInstruction) {
  Computation c("c");
  Instruction* x = Param(&c, 0, "x");
  Instruction* a = Binary(&c, HloOpcode::kAdd, x, x, "a");
  Binary(&c, HloOpcode::kSubtract, x, x, "unreachable");
  Instruction* b = Binary(&c, HloOpcode::kMultiply, a, x, "b");
  c.set_root_instruction(b);
  const std::vector<std::string> order = Names(c.MakeInstructionPostOrder());
  ASSERT_EQ(order.size(), 4u);
  auto pos = [&](const std::string& n) {
    return std::find(order.begin(), order.end(), n) - order.begin();
  };
  EXPECT_LT(pos("x"), pos("a"));
  EXPECT_LT(pos("a"), pos("b"));
  EXPECT_LT(pos("x"), pos("unreachable"));
}

TEST(IrTest, ProgramShapeAndEntry) {
  auto module = std::make_unique<Module>("m");
  auto comp = std::make_unique<Computation>("main");
  Instruction* x = Param(comp.get(), 0, "x");
  Instruction* y = Param(comp.get(), 1, "y");
  comp->set_root_instruction(Binary(comp.get(), HloOpcode::kAdd, x, y));
  Computation* main = module->AddComputation(std::move(comp), true);
  EXPECT_EQ(module->entry_computation(), main);
  EXPECT_TRUE(main->IsEntryComputation());
  const ProgramShape ps = main->ComputeProgramShape();
  ASSERT_EQ(ps.parameters.size(), 2u);
  EXPECT_EQ(ps.parameters[1], F32({2}));
  EXPECT_EQ(ps.result, F32({2}));
}

}  // namespace
}  // namespace plexa
