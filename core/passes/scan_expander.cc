#include "core/passes/scan_expander.h"

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/infer/shape_inference.h"
#include "core/passes/pass_util.h"
#include "core/shape/shape_util.h"

namespace plexa {
namespace {

// An array shape without its layout (the pass runs before layouts).
Shape NoLayout(const Shape& s) {
  return Shape(s.element_type(), s.dimensions());
}

Shape LeafOf(const Shape& s, int64_t i) {
  return NoLayout(s.IsTuple() ? s.tuple_shapes(i) : s);
}

// `dims` with a 1 inserted at d.
std::vector<int64_t> WithUnitDim(absl::Span<const int64_t> dims, int64_t d) {
  std::vector<int64_t> out(dims.begin(), dims.end());
  out.insert(out.begin() + d, 1);
  return out;
}

// The start indices of a slice at t along d of a rank-`rank` array.
std::vector<Instruction*> Starts(Instruction* zero, Instruction* t,
                                 int64_t rank, int64_t d) {
  std::vector<Instruction*> out(rank, zero);
  out[d] = t;
  return out;
}

absl::Status Expand(Instruction* scan, SideEffects* side_effects) {
  Computation* c = scan->parent();
  Module* module = c->parent();
  const Computation& f = *scan->to_apply();
  const InstructionAttrs& a = scan->attrs();
  std::vector<const Shape*> shapes;
  for (const Instruction* op : scan->operands()) shapes.push_back(&op->shape());
  PLEXA_ASSIGN_OR_RETURN(
      int64_t carries,
      shape_inference::ScanNumCarries(shapes, a.dimensions, a.num_carries,
                                      f.ComputeProgramShape()));
  const int64_t d = a.dimensions.at(0);
  const int64_t inputs = scan->operand_count() - carries;
  const Shape& result = scan->shape();
  const int64_t leaves = result.IsTuple() ? result.tuple_shapes_size() : 1;
  const int64_t outputs = leaves - carries;
  const int64_t n = scan->operand(0)->shape().dimensions(d);

  // The loop state: (k, xs..., out buffers..., carries...).
  std::vector<Instruction*> init;
  PLEXA_ASSIGN_OR_RETURN(Instruction * k0,
                         AddScalarConstant(c, PrimitiveType::S32, 0));
  init.push_back(k0);
  for (int64_t i = 0; i < inputs; ++i) init.push_back(scan->mutable_operand(i));
  for (int64_t j = 0; j < outputs; ++j) {
    const Shape out = LeafOf(result, j);
    PLEXA_ASSIGN_OR_RETURN(Instruction * zero,
                           AddScalarConstant(c, out.element_type(), 0));
    PLEXA_ASSIGN_OR_RETURN(Instruction * buffer,
                           AddBroadcast(c, zero, out.dimensions(), {}));
    init.push_back(buffer);
  }
  for (int64_t j = 0; j < carries; ++j) {
    init.push_back(scan->mutable_operand(inputs + j));
  }
  if (n == 0) {
    // No step: the (empty) output buffers and the inits.
    std::vector<Instruction*> results(init.begin() + 1 + inputs, init.end());
    Instruction* replacement = results.at(0);
    if (result.IsTuple()) {
      PLEXA_ASSIGN_OR_RETURN(replacement,
                             AddInstruction(c, HloOpcode::kTuple, results));
    }
    return ReplaceInstruction(scan, replacement, side_effects);
  }
  PLEXA_ASSIGN_OR_RETURN(Instruction * state0,
                         AddInstruction(c, HloOpcode::kTuple, init));
  const Shape state_shape = state0->shape();
  auto add_parameter = [&](Computation* into) {
    InstructionAttrs p;
    p.parameter_number = 0;
    auto param = Instruction::Create(HloOpcode::kParameter, state_shape, {}, p);
    param->set_name("state");
    return into->AddInstruction(std::move(param));
  };

  // k < n
  auto cond =
      std::make_unique<Computation>(absl::StrCat(scan->name(), ".cond"));
  {
    Instruction* state = add_parameter(cond.get());
    PLEXA_ASSIGN_OR_RETURN(Instruction * k, AddGte(cond.get(), state, 0));
    PLEXA_ASSIGN_OR_RETURN(Instruction * limit,
                           AddScalarConstant(cond.get(), PrimitiveType::S32,
                                             static_cast<double>(n)));
    InstructionAttrs lt;
    lt.comparison_direction = ComparisonDirection::kLt;
    PLEXA_ASSIGN_OR_RETURN(
        Instruction * less,
        AddInstruction(cond.get(), HloOpcode::kCompare, {k, limit}, lt));
    cond->set_root_instruction(less);
  }

  auto body =
      std::make_unique<Computation>(absl::StrCat(scan->name(), ".body"));
  {
    Computation* b = body.get();
    Instruction* state = add_parameter(b);
    std::vector<Instruction*> parts;
    for (int64_t i = 0; i < state_shape.tuple_shapes_size(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(Instruction * e, AddGte(b, state, i));
      parts.push_back(e);
    }
    Instruction* k = parts[0];
    Instruction* t = k;
    if (a.is_reverse) {
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * last,
          AddScalarConstant(b, PrimitiveType::S32, static_cast<double>(n - 1)));
      PLEXA_ASSIGN_OR_RETURN(
          t, AddInstruction(b, HloOpcode::kSubtract, {last, k}));
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * zero,
                           AddScalarConstant(b, PrimitiveType::S32, 0));
    std::vector<Instruction*> args;
    for (int64_t i = 0; i < inputs; ++i) {
      Instruction* x = parts[1 + i];
      const Shape& xs = x->shape();
      std::vector<Instruction*> ds_ops = {x};
      for (Instruction* s : Starts(zero, t, xs.rank(), d)) ds_ops.push_back(s);
      InstructionAttrs ds;
      ds.dynamic_slice_sizes.assign(xs.dimensions().begin(),
                                    xs.dimensions().end());
      ds.dynamic_slice_sizes[d] = 1;
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * slice,
          AddInstruction(b, HloOpcode::kDynamicSlice, ds_ops, ds));
      const Shape declared = NoLayout(f.parameter_instruction(i)->shape());
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * reshaped,
          AddInstruction(b, HloOpcode::kReshape, {slice}, {}, {}, &declared));
      args.push_back(reshaped);
    }
    for (int64_t j = 0; j < carries; ++j) {
      args.push_back(parts[1 + inputs + outputs + j]);
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * r, InlineComputation(b, f, args));
    std::vector<Instruction*> step;  // the step's outputs, then carries
    if (r->shape().IsTuple()) {
      for (int64_t i = 0; i < r->shape().tuple_shapes_size(); ++i) {
        PLEXA_ASSIGN_OR_RETURN(Instruction * e, AddGte(b, r, i));
        step.push_back(e);
      }
    } else {
      step.push_back(r);
    }
    if (static_cast<int64_t>(step.size()) != outputs + carries) {
      return absl::InvalidArgumentError(
          absl::StrCat("scan-expander: ", scan->name(), ": to_apply returns ",
                       step.size(), " value(s) for ", outputs,
                       " output(s) and ", carries, " carry(ies)"));
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * one,
                           AddScalarConstant(b, PrimitiveType::S32, 1));
    PLEXA_ASSIGN_OR_RETURN(Instruction * next,
                           AddInstruction(b, HloOpcode::kAdd, {k, one}));
    std::vector<Instruction*> new_state = {next};
    for (int64_t i = 0; i < inputs; ++i) new_state.push_back(parts[1 + i]);
    for (int64_t j = 0; j < outputs; ++j) {
      Instruction* buffer = parts[1 + inputs + j];
      const Shape declared(step[j]->shape().element_type(),
                           WithUnitDim(step[j]->shape().dimensions(), d));
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * update,
          AddInstruction(b, HloOpcode::kReshape, {step[j]}, {}, {}, &declared));
      std::vector<Instruction*> dus_ops = {buffer, update};
      for (Instruction* s : Starts(zero, t, buffer->shape().rank(), d)) {
        dus_ops.push_back(s);
      }
      PLEXA_ASSIGN_OR_RETURN(
          Instruction * written,
          AddInstruction(b, HloOpcode::kDynamicUpdateSlice, dus_ops));
      new_state.push_back(written);
    }
    for (int64_t j = 0; j < carries; ++j) {
      new_state.push_back(step[outputs + j]);
    }
    PLEXA_ASSIGN_OR_RETURN(Instruction * root,
                           AddInstruction(b, HloOpcode::kTuple, new_state));
    b->set_root_instruction(root);
  }
  Computation* cond_c = module->AddComputation(std::move(cond));
  Computation* body_c = module->AddComputation(std::move(body));
  PLEXA_ASSIGN_OR_RETURN(
      Instruction * loop,
      AddInstruction(c, HloOpcode::kWhile, {state0}, {}, {cond_c, body_c},
                     nullptr, absl::StrCat(scan->name(), ".loop")));
  std::vector<Instruction*> results;
  for (int64_t j = 0; j < outputs; ++j) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * e, AddGte(c, loop, 1 + inputs + j));
    results.push_back(e);
  }
  for (int64_t j = 0; j < carries; ++j) {
    PLEXA_ASSIGN_OR_RETURN(Instruction * e,
                           AddGte(c, loop, 1 + inputs + outputs + j));
    results.push_back(e);
  }
  Instruction* replacement = results.at(0);
  if (result.IsTuple()) {
    PLEXA_ASSIGN_OR_RETURN(replacement,
                           AddInstruction(c, HloOpcode::kTuple, results));
  }
  return ReplaceInstruction(scan, replacement, side_effects);
}

}  // namespace

absl::StatusOr<bool> ScanExpander::Run(Module& module) {
  bool changed = false;
  SideEffects side_effects;
  for (Computation* c : module.MakeComputationPostOrder()) {
    for (Instruction* x : c->MakeInstructionPostOrder()) {
      if (x->opcode() != HloOpcode::kScan) continue;
      // A scan with no input has no length to run (the verifier refuses
      // one; leave it to whoever reports that).
      if (x->operand_count() == 0 || !x->operand(0)->shape().IsArray() ||
          x->attrs().dimensions.size() != 1) {
        continue;
      }
      PLEXA_RETURN_IF_ERROR(Expand(x, &side_effects));
      changed = true;
    }
  }
  return changed;
}

}  // namespace plexa
