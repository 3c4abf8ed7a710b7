// ScalarFn: a called computation applied to scalars.
//
// Reducers, comparators, scatter combiners and mapped functions are called
// once per element, so building literals for every call would dominate the
// run time. A computation whose instructions are all scalar parameters,
// scalar constants and scalar elementwise operations (with an optional
// tuple root) is compiled to a list of steps over 16-byte slots and run with
// the same kernels as whole arrays (n = 1). Anything else runs through the
// interpreter.
#include <cstring>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

bool IsScalarArray(const Shape& s) { return s.IsArray() && s.rank() == 0; }

}  // namespace

absl::StatusOr<std::unique_ptr<ScalarFn>> ScalarFn::Create(
    const Computation& computation, Interpreter* interpreter) {
  std::unique_ptr<ScalarFn> fn(new ScalarFn());
  fn->computation_ = &computation;
  fn->interpreter_ = interpreter;
  for (int64_t i = 0; i < computation.num_parameters(); ++i) {
    const Instruction* p = computation.parameter_instruction(i);
    if (p == nullptr || !IsScalarArray(p->shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "computation ", computation.name(),
          " is applied to scalars but its parameter ", i, " is ",
          p == nullptr ? std::string("missing") : p->shape().ToString()));
    }
    fn->param_types_.push_back(p->shape().element_type());
  }
  const Instruction* root = computation.root_instruction();
  if (root == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("computation ", computation.name(), " has no root"));
  }
  if (root->shape().IsTuple()) {
    for (const Shape& e : root->shape().tuple_shapes()) {
      if (!IsScalarArray(e)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "computation ", computation.name(),
            " must return scalars; it returns ", root->shape().ToString()));
      }
      fn->result_types_.push_back(e.element_type());
    }
  } else if (IsScalarArray(root->shape())) {
    fn->result_types_.push_back(root->shape().element_type());
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "computation ", computation.name(), " must return scalars; it returns ",
        root->shape().ToString()));
  }

  // Try to compile.
  const std::vector<Instruction*> order =
      computation.MakeInstructionPostOrder();
  absl::flat_hash_map<const Instruction*, int32_t> slot_of;
  bool compilable = true;
  for (const Instruction* instr : order) {
    const HloOpcode op = instr->opcode();
    if (op == HloOpcode::kTuple && instr == root) {
      for (const Instruction* operand : instr->operands()) {
        if (!slot_of.contains(operand)) compilable = false;
      }
      continue;
    }
    if (!IsScalarArray(instr->shape())) {
      compilable = false;
      break;
    }
    if (op == HloOpcode::kParameter) {
      // Slot assigned below.
    } else if (op == HloOpcode::kConstant) {
      if (instr->attrs().literal == nullptr ||
          !IsScalarArray(instr->literal().shape())) {
        compilable = false;
        break;
      }
    } else if (IsKernelOpcode(op)) {
      for (const Instruction* operand : instr->operands()) {
        if (!slot_of.contains(operand) || !IsScalarArray(operand->shape())) {
          compilable = false;
        }
      }
      if (!compilable) break;
    } else {
      compilable = false;
      break;
    }
    const int32_t slot = static_cast<int32_t>(slot_of.size());
    slot_of[instr] = slot;
  }
  if (!compilable) return fn;

  fn->slots_.assign(slot_of.size(), std::complex<double>());
  fn->param_slots_.assign(computation.num_parameters(), -1);
  for (const Instruction* instr : order) {
    auto it = slot_of.find(instr);
    if (it == slot_of.end()) continue;
    const int32_t slot = it->second;
    switch (instr->opcode()) {
      case HloOpcode::kParameter:
        if (instr->parameter_number() < 0 ||
            instr->parameter_number() >= computation.num_parameters()) {
          return absl::InvalidArgumentError(absl::StrCat(
              "computation ", computation.name(), " has a bad parameter"));
        }
        fn->param_slots_[instr->parameter_number()] = slot;
        break;
      case HloOpcode::kConstant: {
        const Literal& lit = instr->literal();
        const int64_t width =
            primitive_util::ByteWidth(lit.shape().element_type());
        std::memcpy(&fn->slots_[slot], lit.data().data(), width);
        break;
      }
      default: {
        Step step;
        step.instr = instr;
        for (const Instruction* operand : instr->operands()) {
          step.operands.push_back(slot_of.at(operand));
        }
        step.out = slot;
        fn->steps_.push_back(std::move(step));
        break;
      }
    }
  }
  if (root->opcode() == HloOpcode::kTuple && root->shape().IsTuple()) {
    for (const Instruction* operand : root->operands()) {
      fn->result_slots_.push_back(slot_of.at(operand));
    }
  } else {
    fn->result_slots_.push_back(slot_of.at(root));
  }
  fn->compiled_ = true;
  return fn;
}

absl::Status ScalarFn::Call(const void* const* args, void* const* results) {
  if (!compiled_) return CallSlow(args, results);
  for (size_t p = 0; p < param_slots_.size(); ++p) {
    if (param_slots_[p] < 0) continue;
    std::memcpy(&slots_[param_slots_[p]], args[p],
                primitive_util::ByteWidth(param_types_[p]));
  }
  const void* in[8];
  for (const Step& step : steps_) {
    const size_t k = step.operands.size();
    if (k > 8) return absl::InternalError("evaluator: too many operands");
    for (size_t i = 0; i < k; ++i) in[i] = &slots_[step.operands[i]];
    PLEXA_RETURN_IF_ERROR(
        ElementwiseKernel(*step.instr, absl::Span<const void* const>(in, k),
                          &slots_[step.out], 1));
  }
  for (size_t j = 0; j < result_slots_.size(); ++j) {
    std::memcpy(results[j], &slots_[result_slots_[j]],
                primitive_util::ByteWidth(result_types_[j]));
  }
  return absl::OkStatus();
}

absl::Status ScalarFn::CallSlow(const void* const* args, void* const* results) {
  std::vector<Literal> literals;
  literals.reserve(param_types_.size());
  std::vector<const Literal*> ptrs;
  for (size_t p = 0; p < param_types_.size(); ++p) {
    Literal lit = MakeLiteral(ShapeUtil::MakeShape(param_types_[p], {}));
    std::memcpy(lit.mutable_data().data(), args[p],
                primitive_util::ByteWidth(param_types_[p]));
    literals.push_back(std::move(lit));
  }
  for (const Literal& l : literals) ptrs.push_back(&l);
  PLEXA_ASSIGN_OR_RETURN(Literal out,
                         interpreter_->Evaluate(*computation_, ptrs));
  if (out.shape().IsTuple()) {
    if (out.tuple_element_count() != num_results()) {
      return absl::InternalError("evaluator: scalar function result mismatch");
    }
    for (int64_t j = 0; j < num_results(); ++j) {
      std::memcpy(results[j], out.tuple_element(j).data().data(),
                  primitive_util::ByteWidth(result_types_[j]));
    }
  } else {
    std::memcpy(results[0], out.data().data(),
                primitive_util::ByteWidth(result_types_[0]));
  }
  return absl::OkStatus();
}

absl::Status CheckScalarFnTypes(const Instruction& instr, const ScalarFn& fn,
                                absl::Span<const PrimitiveType> params,
                                absl::Span<const PrimitiveType> results) {
  bool ok = fn.num_params() == static_cast<int64_t>(params.size()) &&
            fn.num_results() == static_cast<int64_t>(results.size());
  for (size_t i = 0; ok && i < params.size(); ++i) {
    ok = fn.param_type(i) == params[i];
  }
  for (size_t i = 0; ok && i < results.size(); ++i) {
    ok = fn.result_type(i) == results[i];
  }
  if (ok) return absl::OkStatus();
  std::string want = "(";
  for (size_t i = 0; i < params.size(); ++i) {
    absl::StrAppend(&want, i ? ", " : "", primitive_util::Name(params[i]));
  }
  absl::StrAppend(&want, ") -> (");
  for (size_t i = 0; i < results.size(); ++i) {
    absl::StrAppend(&want, i ? ", " : "", primitive_util::Name(results[i]));
  }
  absl::StrAppend(&want, ")");
  return absl::InvalidArgumentError(absl::StrCat(
      "evaluator: ", InstrName(instr), ": computation ",
      fn.computation().name(), " does not have the signature ", want));
}

}  // namespace plexa::eval
