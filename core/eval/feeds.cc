// infeed, outfeed and after-all.
//
// infeed(token) pops the oldest literal of the replica's infeed queue and
// returns (data, token); order between feeds comes from token chaining, and
// the evaluator runs instructions in a fixed post order. An infeed of an
// empty tuple reads nothing (seed 004). outfeed(data, token) pushes the data
// (in the outfeed_shape's layout if given, else the operand's layout) and
// returns a token.
#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

bool SameShapeIgnoringLayout(const Shape& a, const Shape& b) {
  return Shape::Equal().IgnoreLayout().IgnoreDynamicDimension()(a, b);
}

}  // namespace

absl::StatusOr<Literal> EvalInfeed(Interpreter& interp,
                                   const Instruction& instr, Operands) {
  const Shape& shape = instr.shape();
  if (!shape.IsTuple() || shape.tuple_shapes_size() != 2) {
    return Invalid(instr, "expected a (data, token) result");
  }
  const Shape& data_shape = shape.tuple_shapes(0);
  Literal data;
  if (data_shape.IsTuple() && data_shape.tuple_shapes_size() == 0) {
    data = Literal::MakeTuple({});
  } else {
    absl::StatusOr<Literal> item =
        interp.feeds().Infeed(interp.device(), instr.name(), data_shape);
    if (!item.ok()) {
      return absl::Status(item.status().code(),
                          absl::StrCat("evaluator: ", InstrName(instr), ": ",
                                       item.status().message()));
    }
    if (!SameShapeIgnoringLayout(item->shape(), data_shape)) {
      return absl::InvalidArgumentError(
          absl::StrCat("evaluator: ", InstrName(instr), " expects ",
                       data_shape.ToString(false), " but the host fed ",
                       item->shape().ToString(false)));
    }
    PLEXA_ASSIGN_OR_RETURN(data, ToDefaultLayout(*item));
    NormalizePred(&data);
  }
  std::vector<Literal> elements;
  elements.push_back(std::move(data));
  elements.push_back(MakeTokenLiteral());
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> EvalOutfeed(Interpreter& interp,
                                    const Instruction& instr, Operands ops) {
  if (ops.size() != 2) return Invalid(instr, "expected data and a token");
  const Shape& target = instr.attrs().outfeed_shape.has_value()
                            ? *instr.attrs().outfeed_shape
                            : instr.operand(0)->shape();
  PLEXA_ASSIGN_OR_RETURN(Literal data, ToLayoutOf(*ops[0], target));
  absl::Status s =
      interp.feeds().Outfeed(interp.device(), instr.name(), std::move(data));
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("evaluator: ", InstrName(instr),
                                               ": ", s.message()));
  }
  return MakeTokenLiteral();
}

absl::StatusOr<Literal> EvalAfterAll(Interpreter&, const Instruction&,
                                     Operands) {
  return MakeTokenLiteral();
}

}  // namespace plexa::eval
