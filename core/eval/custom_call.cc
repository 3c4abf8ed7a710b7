// custom-call through the C calling convention of API_VERSION_ORIGINAL:
//
//   extern "C" void target(void* out, const void** in);
//
// Buffers: each array operand in the default row-major layout (or in its
// operand_layout_constraints layout when the custom-call has them); a tuple
// operand or result is an array of pointers to its element buffers
// (recursively), as XLA CPU passes them. A zero-sized array gets a valid
// non-null pointer it must not read; a token gets nullptr.
//
// Targets are resolved by EvaluatorOptions::custom_call_resolver, or by
// default by the process-wide registry, then dlsym(RTLD_DEFAULT, name). An
// unresolved target is an error naming it.
#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/infer/shape_inference.h"

namespace plexa {
namespace eval {
namespace {

// Storage that must outlive the call: pointer tables of tuple buffers.
struct PointerTables {
  std::vector<std::unique_ptr<std::vector<void*>>> tables;
};

alignas(64) uint8_t kEmptyBuffer[64];

void* BufferOf(Literal& literal, PointerTables& keep) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    auto table = std::make_unique<std::vector<void*>>();
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      table->push_back(BufferOf(*literal.mutable_tuple_element(i), keep));
    }
    if (table->empty()) table->push_back(nullptr);
    void* p = table->data();
    keep.tables.push_back(std::move(table));
    return p;
  }
  if (!shape.IsArray()) return nullptr;
  if (literal.data().empty()) return kEmptyBuffer;
  return literal.mutable_data().data();
}

}  // namespace

absl::StatusOr<Literal> EvalCustomCall(Interpreter& interp,
                                       const Instruction& instr, Operands ops) {
  const InstructionAttrs& attrs = instr.attrs();
  if (interp.options().custom_call_handler) {
    if (CustomCallHandler handler =
            interp.options().custom_call_handler(attrs.custom_call_target)) {
      std::vector<Literal> operands;
      std::vector<const Literal*> ptrs;
      operands.reserve(ops.size());
      for (const Literal* op : ops) {
        PLEXA_ASSIGN_OR_RETURN(Literal dense, ToDefaultLayout(*op));
        operands.push_back(std::move(dense));
      }
      for (const Literal& op : operands) ptrs.push_back(&op);
      absl::StatusOr<Literal> result = handler(instr, ptrs);
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat("evaluator: ", InstrName(instr), ": ",
                                         result.status().message()));
      }
      if (!Shape::Equal().IgnoreLayout()(result->shape(), instr.shape())) {
        return absl::InternalError(absl::StrCat(
            "evaluator: ", InstrName(instr),
            ": the custom-call handler "
            "returned ",
            result->shape().ToString(), " for ", instr.shape().ToString()));
      }
      PLEXA_ASSIGN_OR_RETURN(Literal dense, ToDefaultLayout(*result));
      NormalizePred(&dense);
      return dense;
    }
  }
  const CustomCallResolver& resolver = interp.options().custom_call_resolver;
  if (attrs.custom_call_target == "TopK") {
    // XLA's well-known TopK (largest first), unless something registered
    // the name: the default pipeline rewrites it into topk
    // (TopKCustomCallRewriter); a module run unoptimized gets it here.
    CustomCallTarget registered =
        resolver ? resolver(attrs.custom_call_target)
                 : DefaultCustomCallResolver(attrs.custom_call_target);
    if (registered == nullptr) {
      PLEXA_ASSIGN_OR_RETURN(int64_t k,
                             shape_inference::TopKCustomCallK(instr));
      return TopKKernel(instr, *ops[0], k, /*largest=*/true);
    }
  }
  if (attrs.api_version != CustomCallApiVersion::kUnspecified &&
      attrs.api_version != CustomCallApiVersion::kOriginal) {
    return absl::UnimplementedError(absl::StrCat(
        "evaluator: ", InstrName(instr), " (custom_call_target=\"",
        attrs.custom_call_target,
        "\") uses api_version=", CustomCallApiVersionString(attrs.api_version),
        "; the reference evaluator calls only API_VERSION_ORIGINAL targets "
        "(void target(void* out, const void** in))"));
  }
  CustomCallTarget target =
      resolver ? resolver(attrs.custom_call_target)
               : DefaultCustomCallResolver(attrs.custom_call_target);
  if (target == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("evaluator: ", InstrName(instr), ": custom-call target \"",
                     attrs.custom_call_target,
                     "\" is not registered and not found by dlsym"));
  }
  const bool constrained = attrs.has_layout_constraints;
  if (constrained && attrs.operand_shapes_with_layout.size() != ops.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "evaluator: ", InstrName(instr),
        ": operand_layout_constraints does not list every operand"));
  }
  std::vector<Literal> operands;
  operands.reserve(ops.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    const Shape target_shape = constrained ? attrs.operand_shapes_with_layout[i]
                                           : StripLayout(ops[i]->shape());
    PLEXA_ASSIGN_OR_RETURN(Literal laid_out, ToLayoutOf(*ops[i], target_shape));
    operands.push_back(std::move(laid_out));
  }
  // The result buffer: the custom-call's layout when constrained, else the
  // default layout.
  Shape result_shape = constrained ? instr.shape() : StripLayout(instr.shape());
  Literal result(result_shape);
  PointerTables keep;
  std::vector<const void*> in;
  in.reserve(operands.size() + 1);
  for (Literal& op : operands) in.push_back(BufferOf(op, keep));
  if (in.empty()) in.push_back(nullptr);
  void* out = BufferOf(result, keep);
  target(out, in.data());
  PLEXA_ASSIGN_OR_RETURN(Literal dense, ToDefaultLayout(result));
  NormalizePred(&dense);
  return dense;
}

}  // namespace eval
}  // namespace plexa
