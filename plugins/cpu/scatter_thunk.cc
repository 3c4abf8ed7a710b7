#include "plugins/cpu/scatter_thunk.h"

#include <cstring>

#include "plugins/common/reducer.h"

namespace plexa::cpu {

absl::Status ScatterThunk::Run(Frame& f) const {
  uint8_t* out = f.ptr[outputs[0]];
  const uint8_t* operand = f.ptr[inputs[0]];
  if (relayout_.has_value()) {
    if (absl::Status s =
            ::plexa::cpu::Scatter(*relayout_, out, nullptr, operand);
        !s.ok()) {
      return s;
    }
  } else if (bytes_ > 0 && out != operand) {
    std::memcpy(out, operand, bytes_);
  }
  return ::plexa::cpu::Scatter(desc_, out, f.ptr[inputs[1]], f.ptr[inputs[2]]);
}

std::optional<ScatterType> ToScatterType(PrimitiveType t) {
  switch (t) {
    case PrimitiveType::PRED:
      return ScatterType::kPred;
    case PrimitiveType::S8:
      return ScatterType::kS8;
    case PrimitiveType::S16:
      return ScatterType::kS16;
    case PrimitiveType::S32:
      return ScatterType::kS32;
    case PrimitiveType::S64:
      return ScatterType::kS64;
    case PrimitiveType::U8:
      return ScatterType::kU8;
    case PrimitiveType::U16:
      return ScatterType::kU16;
    case PrimitiveType::U32:
      return ScatterType::kU32;
    case PrimitiveType::U64:
      return ScatterType::kU64;
    case PrimitiveType::F32:
      return ScatterType::kF32;
    case PrimitiveType::F64:
      return ScatterType::kF64;
    default:
      return std::nullopt;
  }
}

std::optional<ScatterCombiner> MatchScatterCombiner(const Computation& c,
                                                    bool* update_first) {
  const Instruction* root = c.root_instruction();
  if (c.num_parameters() != 2 || root == nullptr) return std::nullopt;
  *update_first = false;
  if (root->opcode() == HloOpcode::kParameter) {
    if (root->parameter_number() != 1) return std::nullopt;
    return ScatterCombiner::kAssign;
  }
  const std::optional<backend::MatchedReducer> reducer =
      backend::MatchReducer(c);
  if (!reducer.has_value()) return std::nullopt;
  *update_first = reducer->swapped;
  switch (reducer->opcode) {
    case HloOpcode::kAdd:
      return ScatterCombiner::kAdd;
    case HloOpcode::kMultiply:
      return ScatterCombiner::kMultiply;
    case HloOpcode::kMaximum:
      return ScatterCombiner::kMax;
    case HloOpcode::kMinimum:
      return ScatterCombiner::kMin;
    case HloOpcode::kAnd:
      return ScatterCombiner::kAnd;
    case HloOpcode::kOr:
      return ScatterCombiner::kOr;
    default:
      return std::nullopt;
  }
}

std::optional<ScatterDesc> MakeScatterDesc(const Instruction& h) {
  if (h.operand_count() != 3 || !h.shape().IsArray() ||
      h.to_apply() == nullptr ||
      !h.attrs().scatter_dimension_numbers.has_value()) {
    return std::nullopt;
  }
  const Shape result = WithLayout(h.shape());
  const Shape operand = WithLayout(h.operand(0)->shape());
  const Shape indices = WithLayout(h.operand(1)->shape());
  const Shape updates = WithLayout(h.operand(2)->shape());
  for (const Shape* s : {&result, &operand, &indices, &updates}) {
    if (!ShapeUtil::IsDenseArray(*s)) return std::nullopt;
  }
  const PrimitiveType et = result.element_type();
  if (operand.element_type() != et || updates.element_type() != et) {
    return std::nullopt;
  }
  const std::optional<ScatterType> type = ToScatterType(et);
  const std::optional<ScatterType> index_type =
      ToScatterType(indices.element_type());
  if (!type.has_value() || !index_type.has_value() ||
      *index_type == ScatterType::kPred) {
    return std::nullopt;
  }
  const Instruction* root = h.to_apply()->root_instruction();
  if (root == nullptr || !root->shape().IsArray() ||
      root->shape().element_type() != et) {
    return std::nullopt;
  }
  bool update_first = false;
  const std::optional<ScatterCombiner> combiner =
      MatchScatterCombiner(*h.to_apply(), &update_first);
  if (!combiner.has_value()) return std::nullopt;
  auto array = [](const Shape& s) {
    ScatterArray a;
    a.dims.assign(s.dimensions().begin(), s.dimensions().end());
    a.strides = IndexUtil::LayoutStrides(s);
    return a;
  };
  const ScatterDimensionNumbers& dn = *h.attrs().scatter_dimension_numbers;
  ScatterDesc d;
  d.element_type = *type;
  d.combiner = *combiner;
  d.update_first = update_first;
  d.operand = array(result);
  d.index_type = *index_type;
  d.indices = array(indices);
  d.updates = array(updates);
  d.update_window_dims = dn.update_window_dims;
  d.inserted_window_dims = dn.inserted_window_dims;
  d.scatter_dims_to_operand_dims = dn.scatter_dims_to_operand_dims;
  d.index_vector_dim = dn.index_vector_dim;
  d.input_batching_dims = dn.input_batching_dims;
  d.scatter_indices_batching_dims = dn.scatter_indices_batching_dims;
  // and/or of floats, bad dimension numbers: the reference kernel decides.
  if (!ValidateScatter(d).ok()) return std::nullopt;
  return d;
}

}  // namespace plexa::cpu
