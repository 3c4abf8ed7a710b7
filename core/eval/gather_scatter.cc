// Gather and scatter with XLA's full general semantics, batching dimensions
// included.
//
// Gather: start indices are clamped so every slice lies inside the operand
// (as XLA does). Scatter: an update window that would not lie entirely
// inside the operand is skipped as a whole (as XLA does); updates are applied
// in row-major order of the scatter indices, then of the window, through the
// update computation (operand values first, then update values).
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

bool Contains(absl::Span<const int64_t> v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

// Reads index vectors out of the start/scatter indices array. The indices
// array's dimensions other than index_vector_dim are its "batch" dimensions;
// index_vector_dim == rank means a trailing dimension of size 1.
class IndexReader {
 public:
  IndexReader(const Literal& indices, int64_t index_vector_dim)
      : indices_(indices),
        ivd_(index_vector_dim),
        strides_(RowMajorStrides(indices.shape().dimensions())) {
    for (int64_t d = 0; d < indices.shape().rank(); ++d) {
      if (d != ivd_) batch_dims_.push_back(d);
    }
  }
  // Dimensions of the indices array that index the scatter/gather batch, in
  // order.
  const std::vector<int64_t>& batch_dims() const { return batch_dims_; }
  int64_t vector_size() const {
    return ivd_ < indices_.shape().rank() ? indices_.shape().dimensions(ivd_)
                                          : 1;
  }
  // Element k of the index vector at batch position `batch` (one value per
  // batch_dims() entry).
  absl::StatusOr<int64_t> Read(absl::Span<const int64_t> batch,
                               int64_t k) const {
    int64_t off = 0;
    for (size_t i = 0; i < batch_dims_.size(); ++i) {
      off += batch[i] * strides_[batch_dims_[i]];
    }
    if (ivd_ < indices_.shape().rank()) off += k * strides_[ivd_];
    return ReadIndexElement(indices_, off);
  }

 private:
  const Literal& indices_;
  int64_t ivd_;
  std::vector<int64_t> strides_;
  std::vector<int64_t> batch_dims_;
};

}  // namespace

absl::StatusOr<Literal> EvalGather(Interpreter&, const Instruction& instr,
                                   Operands ops) {
  if (ops.size() != 2 || !instr.attrs().gather_dimension_numbers) {
    return Invalid(instr, "expected operand, indices and dimension numbers");
  }
  const Literal& operand = *ops[0];
  const Literal& indices = *ops[1];
  const GatherDimensionNumbers& dn = *instr.attrs().gather_dimension_numbers;
  const absl::Span<const int64_t> slice_sizes =
      instr.attrs().gather_slice_sizes;
  const Shape& in = operand.shape();
  const Shape& out_shape = instr.shape();
  const int64_t rank = in.rank();
  if (static_cast<int64_t>(slice_sizes.size()) != rank ||
      dn.index_vector_dim < 0 || dn.index_vector_dim > indices.shape().rank()) {
    return Invalid(instr, "bad slice sizes or index_vector_dim");
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > in.dimensions(d)) {
      return Invalid(instr, "slice size larger than the operand");
    }
  }
  IndexReader reader(indices, dn.index_vector_dim);
  if (static_cast<int64_t>(dn.start_index_map.size()) != reader.vector_size()) {
    return Invalid(instr, "start_index_map does not match the index vector");
  }
  // Output batch dimensions (not offset dims), matching reader.batch_dims().
  std::vector<int64_t> out_batch_dims;
  for (int64_t d = 0; d < out_shape.rank(); ++d) {
    if (!Contains(dn.offset_dims, d)) out_batch_dims.push_back(d);
  }
  if (out_batch_dims.size() != reader.batch_dims().size()) {
    return Invalid(instr, "output batch dimensions do not match the indices");
  }
  // Operand dimensions that appear in the output, in order, matching
  // offset_dims (sorted).
  std::vector<int64_t> window_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) &&
        !Contains(dn.operand_batching_dims, d)) {
      window_dims.push_back(d);
    }
  }
  std::vector<int64_t> offset_dims(dn.offset_dims.begin(),
                                   dn.offset_dims.end());
  std::sort(offset_dims.begin(), offset_dims.end());
  if (window_dims.size() != offset_dims.size()) {
    return Invalid(instr, "offset_dims do not match the slice");
  }
  // For each operand batching dim, the position of its indices batch dim in
  // reader.batch_dims().
  std::vector<int64_t> batching_pos;
  for (size_t j = 0; j < dn.operand_batching_dims.size(); ++j) {
    const auto& bd = reader.batch_dims();
    auto it = std::find(bd.begin(), bd.end(),
                        dn.start_indices_batching_dims.size() > j
                            ? dn.start_indices_batching_dims[j]
                            : -1);
    if (it == bd.end()) return Invalid(instr, "bad batching dimensions");
    batching_pos.push_back(it - bd.begin());
  }
  for (int64_t m : dn.start_index_map) {
    if (m < 0 || m >= rank) return Invalid(instr, "bad start_index_map");
  }

  Literal out = MakeLiteral(out_shape);
  // A slice with no element (a size-0 slice along a collapsed dimension of,
  // say, an empty operand) reads nothing: XLA's result is zeros.
  for (int64_t d = 0; d < rank; ++d) {
    if (slice_sizes[d] == 0) return out;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  const int64_t w = primitive_util::ByteWidth(in.element_type());
  uint8_t* dst = out.mutable_data().data();
  const uint8_t* src = operand.data().data();
  std::vector<int64_t> batch(out_batch_dims.size());
  std::vector<int64_t> start(rank);
  absl::Status status;
  int64_t linear = 0;
  ForEachIndexRowMajor(
      out_shape.dimensions(), [&](absl::Span<const int64_t> idx) {
        if (!status.ok()) return;
        for (size_t i = 0; i < out_batch_dims.size(); ++i) {
          batch[i] = idx[out_batch_dims[i]];
        }
        std::fill(start.begin(), start.end(), 0);
        for (size_t k = 0; k < dn.start_index_map.size(); ++k) {
          absl::StatusOr<int64_t> v = reader.Read(batch, k);
          if (!v.ok()) {
            status = v.status();
            return;
          }
          const int64_t d = dn.start_index_map[k];
          start[d] =
              std::clamp<int64_t>(*v, 0, in.dimensions(d) - slice_sizes[d]);
        }
        for (size_t j = 0; j < dn.operand_batching_dims.size(); ++j) {
          start[dn.operand_batching_dims[j]] = batch[batching_pos[j]];
        }
        int64_t off = 0;
        for (int64_t d = 0; d < rank; ++d) off += start[d] * in_strides[d];
        for (size_t k = 0; k < window_dims.size(); ++k) {
          off += idx[offset_dims[k]] * in_strides[window_dims[k]];
        }
        std::memcpy(dst + linear * w, src + off * w, w);
        ++linear;
      });
  PLEXA_RETURN_IF_ERROR(status);
  return out;
}

absl::StatusOr<Literal> EvalScatter(Interpreter& interp,
                                    const Instruction& instr, Operands ops) {
  if (ops.size() < 3 || ops.size() % 2 != 1 ||
      !instr.attrs().scatter_dimension_numbers) {
    return Invalid(instr, "expected N operands, indices, N updates");
  }
  const int64_t n = (static_cast<int64_t>(ops.size()) - 1) / 2;
  const Literal& indices = *ops[n];
  const ScatterDimensionNumbers& dn = *instr.attrs().scatter_dimension_numbers;
  const Shape& in = ops[0]->shape();
  const Shape& upd = ops[n + 1]->shape();
  const int64_t rank = in.rank();
  for (int64_t k = 0; k < n; ++k) {
    if (!ShapeUtil::SameDimensions(ops[k]->shape(), in) ||
        !ShapeUtil::SameDimensions(ops[n + 1 + k]->shape(), upd)) {
      return Invalid(instr, "operands or updates differ in shape");
    }
  }
  if (dn.index_vector_dim < 0 || dn.index_vector_dim > indices.shape().rank()) {
    return Invalid(instr, "bad index_vector_dim");
  }
  IndexReader reader(indices, dn.index_vector_dim);
  if (static_cast<int64_t>(dn.scatter_dims_to_operand_dims.size()) !=
      reader.vector_size()) {
    return Invalid(instr,
                   "scatter_dims_to_operand_dims does not match the index "
                   "vector");
  }
  for (int64_t m : dn.scatter_dims_to_operand_dims) {
    if (m < 0 || m >= rank) return Invalid(instr, "bad scatter dims");
  }
  std::vector<int64_t> window_dims_upd(dn.update_window_dims.begin(),
                                       dn.update_window_dims.end());
  std::sort(window_dims_upd.begin(), window_dims_upd.end());
  std::vector<int64_t> scatter_dims_upd;
  for (int64_t d = 0; d < upd.rank(); ++d) {
    if (!Contains(window_dims_upd, d)) scatter_dims_upd.push_back(d);
  }
  if (scatter_dims_upd.size() != reader.batch_dims().size()) {
    return Invalid(instr, "update scatter dimensions do not match indices");
  }
  // Operand dimensions covered by the update window, in order.
  std::vector<int64_t> window_dims_op;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.inserted_window_dims, d) &&
        !Contains(dn.input_batching_dims, d)) {
      window_dims_op.push_back(d);
    }
  }
  if (window_dims_op.size() != window_dims_upd.size()) {
    return Invalid(instr, "update_window_dims do not match the operand");
  }
  // Window size of each operand dimension (1 for inserted/batching dims).
  std::vector<int64_t> window_size(rank, 1);
  for (size_t k = 0; k < window_dims_op.size(); ++k) {
    window_size[window_dims_op[k]] = upd.dimensions(window_dims_upd[k]);
  }
  std::vector<int64_t> batching_pos;
  for (size_t j = 0; j < dn.input_batching_dims.size(); ++j) {
    const auto& bd = reader.batch_dims();
    auto it = std::find(bd.begin(), bd.end(),
                        dn.scatter_indices_batching_dims.size() > j
                            ? dn.scatter_indices_batching_dims[j]
                            : -1);
    if (it == bd.end()) return Invalid(instr, "bad batching dimensions");
    batching_pos.push_back(it - bd.begin());
  }
  PLEXA_ASSIGN_OR_RETURN(ScalarFn * fn, interp.GetScalarFn(*instr.to_apply()));
  {
    std::vector<PrimitiveType> params, results;
    for (int64_t k = 0; k < n; ++k) {
      params.push_back(ops[k]->shape().element_type());
      results.push_back(ops[k]->shape().element_type());
    }
    for (int64_t k = 0; k < n; ++k) {
      params.push_back(ops[n + 1 + k]->shape().element_type());
    }
    PLEXA_RETURN_IF_ERROR(CheckScalarFnTypes(instr, *fn, params, results));
  }

  std::vector<Literal> results;
  for (int64_t k = 0; k < n; ++k) results.push_back(Literal(*ops[k]));
  std::vector<int64_t> widths(n);
  for (int64_t k = 0; k < n; ++k) {
    widths[k] = primitive_util::ByteWidth(ops[k]->shape().element_type());
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  const std::vector<int64_t> upd_strides = RowMajorStrides(upd.dimensions());
  std::vector<int64_t> scatter_extent;
  for (int64_t d : scatter_dims_upd)
    scatter_extent.push_back(upd.dimensions(d));
  std::vector<int64_t> window_extent;
  for (int64_t d : window_dims_upd) window_extent.push_back(upd.dimensions(d));

  std::vector<int64_t> start(rank);
  std::vector<const void*> args(2 * n);
  std::vector<void*> outs(n);
  absl::Status status;
  ForEachIndexRowMajor(scatter_extent, [&](absl::Span<const int64_t> sidx) {
    if (!status.ok()) return;
    std::fill(start.begin(), start.end(), 0);
    for (size_t k = 0; k < dn.scatter_dims_to_operand_dims.size(); ++k) {
      absl::StatusOr<int64_t> v = reader.Read(sidx, k);
      if (!v.ok()) {
        status = v.status();
        return;
      }
      start[dn.scatter_dims_to_operand_dims[k]] = *v;
    }
    for (size_t j = 0; j < dn.input_batching_dims.size(); ++j) {
      start[dn.input_batching_dims[j]] = sidx[batching_pos[j]];
    }
    // The whole window must fit, else this update is skipped.
    for (int64_t d = 0; d < rank; ++d) {
      if (start[d] < 0 || start[d] > in.dimensions(d) - window_size[d]) return;
    }
    int64_t in_base = 0;
    for (int64_t d = 0; d < rank; ++d) in_base += start[d] * in_strides[d];
    int64_t upd_base = 0;
    for (size_t i = 0; i < scatter_dims_upd.size(); ++i) {
      upd_base += sidx[i] * upd_strides[scatter_dims_upd[i]];
    }
    ForEachIndexRowMajor(window_extent, [&](absl::Span<const int64_t> widx) {
      if (!status.ok()) return;
      int64_t in_off = in_base;
      int64_t upd_off = upd_base;
      for (size_t i = 0; i < widx.size(); ++i) {
        in_off += widx[i] * in_strides[window_dims_op[i]];
        upd_off += widx[i] * upd_strides[window_dims_upd[i]];
      }
      for (int64_t k = 0; k < n; ++k) {
        uint8_t* target = results[k].mutable_data().data() + in_off * widths[k];
        args[k] = target;
        args[n + k] = ops[n + 1 + k]->data().data() + upd_off * widths[k];
        outs[k] = target;
      }
      status = fn->Call(args.data(), outs.data());
    });
  });
  PLEXA_RETURN_IF_ERROR(status);
  if (instr.shape().IsTuple()) return Literal::MakeTuple(std::move(results));
  return std::move(results[0]);
}

}  // namespace plexa::eval
