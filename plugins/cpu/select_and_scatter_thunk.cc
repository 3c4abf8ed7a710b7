#include "plugins/cpu/select_and_scatter_thunk.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "core/ir/window_util.h"
#include "core/shape/index_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/reducer.h"
#include "plugins/cpu/scatter_thunk.h"

namespace plexa::cpu {

absl::Status SelectAndScatterThunk::Run(Frame& f) const {
  uint8_t* out = f.ptr[outputs[0]];
  const uint8_t* init = f.ptr[inputs[2]];
  for (int64_t i = 0; i < elements_; ++i) {
    std::memcpy(out + i * element_bytes_, init, element_bytes_);
  }
  const int64_t rank = static_cast<int64_t>(select_.source_dims.size());
  std::vector<int64_t> selected(std::max<int64_t>(1, sources_ * rank));
  if (absl::Status s = SelectInWindows(select_, f.ptr[inputs[0]],
                                       selected.data(), PoolOf(f));
      !s.ok()) {
    return s;
  }
  return ::plexa::cpu::Scatter(scatter_, out, selected.data(),
                               f.ptr[inputs[1]]);
}

namespace {

// The select computation as `x DIR c` of its parameters (x the current
// selection, c the candidate), when it is one comparison of them that is
// not a total order; nullopt otherwise.
std::optional<SelectDirection> MatchSelect(const Computation& c) {
  const Instruction* root = c.root_instruction();
  if (c.num_parameters() != 2 || root == nullptr ||
      root->opcode() != HloOpcode::kCompare ||
      root->attrs().comparison_type == ComparisonType::kFloatTotalOrder) {
    return std::nullopt;
  }
  const std::optional<bool> parameters =
      backend::MatchParameterOperands(c, *root);
  if (!parameters.has_value()) return std::nullopt;
  const bool swapped = *parameters;  // c DIR x
  switch (root->attrs().comparison_direction) {
    case ComparisonDirection::kGe:
      return swapped ? SelectDirection::kLe : SelectDirection::kGe;
    case ComparisonDirection::kGt:
      return swapped ? SelectDirection::kLt : SelectDirection::kGt;
    case ComparisonDirection::kLe:
      return swapped ? SelectDirection::kGe : SelectDirection::kLe;
    case ComparisonDirection::kLt:
      return swapped ? SelectDirection::kGt : SelectDirection::kLt;
    default:
      return std::nullopt;
  }
}

}  // namespace

std::unique_ptr<Thunk> MakeSelectAndScatter(const Instruction& h) {
  const Shape operand = WithLayout(h.operand(0)->shape());
  const Shape source = WithLayout(h.operand(1)->shape());
  const Shape result = WithLayout(h.shape());
  const PrimitiveType et = result.element_type();
  const std::optional<ScatterType> type = ToScatterType(et);
  if (!type.has_value() || *type == ScatterType::kPred ||
      operand.element_type() != et || source.element_type() != et ||
      h.operand(2)->shape().element_type() != et ||
      !ShapeUtil::IsDenseArray(operand) || !ShapeUtil::IsDenseArray(source) ||
      !ShapeUtil::IsDenseArray(result) || !h.attrs().window.has_value() ||
      h.select() == nullptr || h.scatter() == nullptr) {
    return nullptr;
  }
  const int64_t rank = operand.rank();
  const Window& window = WindowOf(h);
  if (static_cast<int64_t>(window.dimensions.size()) != rank ||
      source.rank() != rank) {
    return nullptr;
  }
  const std::optional<SelectDirection> direction = MatchSelect(*h.select());
  bool update_first = false;
  const std::optional<ScatterCombiner> combiner =
      MatchScatterCombiner(*h.scatter(), &update_first);
  if (!direction.has_value() || !combiner.has_value()) return nullptr;
  WindowSelectDesc select;
  select.element_type = *type;
  select.direction = *direction;
  select.operand.dims.assign(operand.dimensions().begin(),
                             operand.dimensions().end());
  select.operand.strides = IndexUtil::LayoutStrides(operand);
  select.source_dims.assign(source.dimensions().begin(),
                            source.dimensions().end());
  for (const WindowDimension& w : window.dimensions) {
    if (w.window_dilation != 1 || w.base_dilation != 1 || w.window_reversal ||
        w.padding_low < 0) {
      return nullptr;
    }
    select.window_size.push_back(w.size);
    select.window_stride.push_back(w.stride);
    select.padding_low.push_back(w.padding_low);
  }
  ScatterDesc scatter;
  scatter.element_type = *type;
  scatter.combiner = *combiner;
  scatter.update_first = update_first;
  scatter.operand.dims = select.operand.dims;
  scatter.operand.strides = IndexUtil::LayoutStrides(result);
  scatter.index_type = ScatterType::kS64;
  scatter.indices.dims = select.source_dims;
  scatter.indices.dims.push_back(rank);
  scatter.indices.strides.assign(rank + 1, 1);
  for (int64_t k = rank - 1; k >= 0; --k) {
    scatter.indices.strides[k] =
        scatter.indices.strides[k + 1] * scatter.indices.dims[k + 1];
  }
  scatter.updates.dims = select.source_dims;
  scatter.updates.strides = IndexUtil::LayoutStrides(source);
  for (int64_t k = 0; k < rank; ++k) {
    scatter.inserted_window_dims.push_back(k);
    scatter.scatter_dims_to_operand_dims.push_back(k);
  }
  scatter.index_vector_dim = rank;
  if (!ValidateScatter(scatter).ok()) return nullptr;
  return std::make_unique<SelectAndScatterThunk>(
      std::move(select), std::move(scatter), primitive_util::ByteWidth(et));
}

}  // namespace plexa::cpu
