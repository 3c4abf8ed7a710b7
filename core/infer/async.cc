// Shape inference for the generic async wrappers (async-start, -update,
// -done), copy-start / copy-done, add-dependency, domain and
// rng-get-and-update-state, with XLA's rules (xla/service/hlo_verifier.cc).
#include <vector>

#include "core/infer/infer_util.h"
#include "core/infer/shape_inference.h"

namespace plexa::shape_inference {

using internal::Compatible;
using internal::Invalid;
using internal::MakeArray;
using internal::NoLayout;
using internal::Str;

absl::StatusOr<Shape> InferAsyncStartShape(
    absl::Span<const Shape* const> operands, const ProgramShape& wrapped,
    const Shape* declared) {
  const std::string what =
      absl::StrCat("async-start(", Str(operands), ") calling ", Str(wrapped));
  if (wrapped.parameters.size() != operands.size()) {
    return Invalid(what, ": the wrapped computation takes ",
                   wrapped.parameters.size(), " parameter(s), the start has ",
                   operands.size(), " operand(s).");
  }
  std::vector<Shape> ins;
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!Compatible(*operands[i], wrapped.parameters[i])) {
      return Invalid(what, ": operand ", i, " ", Str(*operands[i]),
                     " differs from the wrapped computation's parameter ", i,
                     " ", Str(wrapped.parameters[i]), ".");
    }
    ins.push_back(NoLayout(*operands[i]));
  }
  Shape inferred(
      std::vector<Shape>{Shape(std::move(ins)), NoLayout(wrapped.result)});
  if (declared == nullptr) return inferred;
  // XLA: ((operands), result, context...): the context elements are the
  // backend's, so they come from the declared shape.
  if (!declared->IsTuple() || declared->tuple_shapes_size() < 2) {
    return Invalid(what, ": its shape must be a tuple ((operands), result, ",
                   "context...), got ", Str(*declared), ".");
  }
  for (int i = 0; i < 2; ++i) {
    if (!Compatible(declared->tuple_shapes(i), inferred.tuple_shapes(i))) {
      return Invalid(what, ": element ", i, " of its shape ", Str(*declared),
                     " must be ", Str(inferred.tuple_shapes(i)),
                     i == 0 ? " (the operands)" : " (the wrapped result)", ".");
    }
  }
  return NoLayout(*declared);
}

absl::StatusOr<Shape> InferAsyncUpdateShape(const Shape& operand) {
  if (!operand.IsTuple() || operand.tuple_shapes_size() < 2) {
    return Invalid(
        "async-update expects the tuple an async-start returns; "
        "got ",
        Str(operand), ".");
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferAsyncWrapperDoneShape(const Shape& operand) {
  if (!operand.IsTuple() || operand.tuple_shapes_size() < 2) {
    return Invalid("async-done expects the tuple an async-start returns; got ",
                   Str(operand), ".");
  }
  return NoLayout(operand.tuple_shapes(1));
}

absl::StatusOr<Shape> InferCopyStartShape(const Shape& operand,
                                          const Shape* declared) {
  const std::string what = absl::StrCat("copy-start(", Str(operand), ")");
  if (operand.IsToken()) {
    return Invalid(what, ": a token cannot be copied.");
  }
  Shape inferred(std::vector<Shape>{NoLayout(operand), NoLayout(operand),
                                    MakeArray(PrimitiveType::U32, {})});
  if (declared != nullptr && !Compatible(*declared, inferred)) {
    return Invalid(what, ": its shape must be ", Str(inferred),
                   " (destination, ", "source, u32[] context), got ",
                   Str(*declared), ".");
  }
  return inferred;
}

absl::StatusOr<Shape> InferCopyDoneShape(const Shape& operand) {
  if (!operand.IsTuple() || operand.tuple_shapes_size() != 3 ||
      !Compatible(operand.tuple_shapes(0), operand.tuple_shapes(1))) {
    return Invalid("copy-done expects the (destination, source, u32[]) tuple ",
                   "a copy-start returns; got ", Str(operand), ".");
  }
  // XLA: the destination, element 0.
  return NoLayout(operand.tuple_shapes(0));
}

absl::StatusOr<Shape> InferAddDependencyShape(const Shape& operand,
                                              const Shape& token) {
  if (!token.IsToken()) {
    return Invalid("add-dependency(", Str(operand), ", ", Str(token),
                   "): the second operand must be a token.");
  }
  return NoLayout(operand);
}

absl::StatusOr<Shape> InferRngGetAndUpdateStateShape() {
  // XLA's verifier: u64[2], the 128-bit state as two words.
  return MakeArray(PrimitiveType::U64, {2});
}

}  // namespace plexa::shape_inference
