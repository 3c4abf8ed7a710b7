// Shape-manipulating operations: broadcast, reshape, transpose, reverse,
// concatenate, slice, pad, dynamic-slice, dynamic-update-slice, iota,
// bitcast, get-dimension-size, tuple, get-tuple-element.
//
// They move bytes without looking at values, so they work on any element
// type through the element width.
#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/eval/eval_internal.h"
#include "core/shape/layout_util.h"

namespace plexa::eval {
namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("evaluator: ", InstrName(instr), ": ", what));
}

int64_t Width(const Shape& s) {
  return primitive_util::ByteWidth(s.element_type());
}

absl::Status ExpectArrays(const Instruction& instr, Operands ops,
                          size_t count) {
  if (ops.size() < count) return Invalid(instr, "too few operands");
  for (size_t i = 0; i < count; ++i) {
    if (!ops[i]->shape().IsArray()) {
      return Invalid(instr, absl::StrCat("operand ", i, " is not an array: ",
                                         ops[i]->shape().ToString()));
    }
  }
  if (!instr.shape().IsArray()) {
    return Invalid(instr, "the result is not an array");
  }
  return absl::OkStatus();
}

// Reads the start indices of dynamic-slice / dynamic-update-slice: either
// `rank` scalar operands from `first`, or (older HLO) one rank-1 operand.
absl::StatusOr<std::vector<int64_t>> ReadStartIndices(const Instruction& instr,
                                                      Operands ops,
                                                      size_t first,
                                                      int64_t rank) {
  std::vector<int64_t> starts;
  const size_t available = ops.size() - first;
  if (available == 1 && ops[first]->shape().rank() == 1 &&
      ops[first]->shape().dimensions(0) == rank) {
    for (int64_t i = 0; i < rank; ++i) {
      PLEXA_ASSIGN_OR_RETURN(int64_t v, ReadIndexElement(*ops[first], i));
      starts.push_back(v);
    }
    return starts;
  }
  if (static_cast<int64_t>(available) != rank) {
    return Invalid(instr, absl::StrCat("expected ", rank,
                                       " start indices; got ", available));
  }
  for (size_t i = first; i < ops.size(); ++i) {
    if (ElementCount(ops[i]->shape().dimensions()) != 1) {
      return Invalid(instr, "start indices must be scalars");
    }
    PLEXA_ASSIGN_OR_RETURN(int64_t v, ReadIndexElement(*ops[i], 0));
    starts.push_back(v);
  }
  return starts;
}

}  // namespace

absl::StatusOr<Literal> EvalBroadcast(Interpreter&, const Instruction& instr,
                                      Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 1));
  const Shape& in = ops[0]->shape();
  const Shape& out_shape = instr.shape();
  const absl::Span<const int64_t> dims = instr.dimensions();
  if (static_cast<int64_t>(dims.size()) != in.rank()) {
    return Invalid(instr, "dimensions do not match the operand rank");
  }
  for (int64_t i = 0; i < in.rank(); ++i) {
    if (dims[i] < 0 || dims[i] >= out_shape.rank() ||
        out_shape.dimensions(dims[i]) != in.dimensions(i)) {
      return Invalid(instr, "bad broadcast dimensions");
    }
  }
  Literal out = MakeLiteral(out_shape);
  const int64_t w = Width(in);
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  // stride of each output dimension in the operand (0 if broadcast).
  std::vector<int64_t> stride(out_shape.rank(), 0);
  for (int64_t i = 0; i < in.rank(); ++i) stride[dims[i]] = in_strides[i];
  const uint8_t* src = ops[0]->data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(out_shape.dimensions(),
                       [&](absl::Span<const int64_t> idx) {
                         int64_t off = 0;
                         for (size_t d = 0; d < idx.size(); ++d) {
                           off += idx[d] * stride[d];
                         }
                         std::memcpy(dst + linear * w, src + off * w, w);
                         ++linear;
                       });
  return out;
}

absl::StatusOr<Literal> EvalReshape(Interpreter&, const Instruction& instr,
                                    Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 1));
  if (ElementCount(ops[0]->shape().dimensions()) !=
          ElementCount(instr.shape().dimensions()) ||
      ops[0]->shape().element_type() != instr.shape().element_type()) {
    return Invalid(instr,
                   absl::StrCat("cannot reshape ", ops[0]->shape().ToString(),
                                " to ", instr.shape().ToString()));
  }
  // Row-major order is kept: the bytes are the same.
  Literal out = MakeLiteral(instr.shape());
  if (!out.data().empty()) {
    std::memcpy(out.mutable_data().data(), ops[0]->data().data(),
                out.data().size());
  }
  return out;
}

absl::StatusOr<Literal> EvalTranspose(Interpreter&, const Instruction& instr,
                                      Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 1));
  const Shape& in = ops[0]->shape();
  const absl::Span<const int64_t> perm = instr.dimensions();
  if (static_cast<int64_t>(perm.size()) != in.rank()) {
    return Invalid(instr, "permutation does not match the operand rank");
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in.dimensions());
  // Result dimension i is operand dimension perm[i].
  std::vector<int64_t> stride(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= in.rank()) {
      return Invalid(instr, "bad permutation");
    }
    stride[i] = in_strides[perm[i]];
  }
  Literal out = MakeLiteral(instr.shape());
  const int64_t w = Width(in);
  const uint8_t* src = ops[0]->data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(instr.shape().dimensions(),
                       [&](absl::Span<const int64_t> idx) {
                         int64_t off = 0;
                         for (size_t d = 0; d < idx.size(); ++d) {
                           off += idx[d] * stride[d];
                         }
                         std::memcpy(dst + linear * w, src + off * w, w);
                         ++linear;
                       });
  return out;
}

absl::StatusOr<Literal> EvalReverse(Interpreter&, const Instruction& instr,
                                    Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 1));
  const Shape& in = ops[0]->shape();
  std::vector<bool> reversed(in.rank(), false);
  for (int64_t d : instr.dimensions()) {
    if (d < 0 || d >= in.rank()) return Invalid(instr, "bad dimension");
    reversed[d] = true;
  }
  const std::vector<int64_t> strides = RowMajorStrides(in.dimensions());
  Literal out = MakeLiteral(instr.shape());
  const int64_t w = Width(in);
  const uint8_t* src = ops[0]->data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(in.dimensions(), [&](absl::Span<const int64_t> idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t i = reversed[d] ? in.dimensions(d) - 1 - idx[d] : idx[d];
      off += i * strides[d];
    }
    std::memcpy(dst + linear * w, src + off * w, w);
    ++linear;
  });
  return out;
}

absl::StatusOr<Literal> EvalConcatenate(Interpreter&, const Instruction& instr,
                                        Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, ops.size()));
  if (instr.dimensions().size() != 1 || ops.empty()) {
    return Invalid(instr, "expected one dimension and some operands");
  }
  const Shape& out_shape = instr.shape();
  const int64_t dim = instr.dimensions(0);
  if (dim < 0 || dim >= out_shape.rank())
    return Invalid(instr, "bad dimension");
  Literal out = MakeLiteral(out_shape);
  const int64_t w = Width(out_shape);
  // outer: product of dimensions before `dim`; each operand contributes a
  // contiguous block of dims[dim] * inner elements per outer index.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= out_shape.dimensions(d);
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < out_shape.rank(); ++d) {
    inner *= out_shape.dimensions(d);
  }
  const int64_t out_block = out_shape.dimensions(dim) * inner;
  uint8_t* dst = out.mutable_data().data();
  int64_t offset = 0;
  for (const Literal* op : ops) {
    const Shape& s = op->shape();
    if (s.rank() != out_shape.rank() ||
        s.element_type() != out_shape.element_type()) {
      return Invalid(instr, "rank or type mismatch");
    }
    for (int64_t d = 0; d < s.rank(); ++d) {
      if (d != dim && s.dimensions(d) != out_shape.dimensions(d)) {
        return Invalid(instr, "operands differ outside the dimension");
      }
    }
    const int64_t block = s.dimensions(dim) * inner;
    const uint8_t* src = op->data().data();
    for (int64_t o = 0; o < outer && block > 0; ++o) {
      std::memcpy(dst + (o * out_block + offset) * w, src + o * block * w,
                  block * w);
    }
    offset += block;
  }
  if (offset != out_block) return Invalid(instr, "operand sizes do not add up");
  return out;
}

absl::StatusOr<Literal> EvalSlice(Interpreter&, const Instruction& instr,
                                  Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 1));
  const Shape& in = ops[0]->shape();
  const auto& slice = instr.attrs().slice;
  if (static_cast<int64_t>(slice.size()) != in.rank()) {
    return Invalid(instr, "slice does not match the operand rank");
  }
  for (int64_t d = 0; d < in.rank(); ++d) {
    const SliceDimension& s = slice[d];
    if (s.stride < 1 || s.start < 0 || s.limit > in.dimensions(d) ||
        s.start > s.limit) {
      return Invalid(instr, "slice bounds out of range");
    }
  }
  const std::vector<int64_t> strides = RowMajorStrides(in.dimensions());
  Literal out = MakeLiteral(instr.shape());
  const int64_t w = Width(in);
  const uint8_t* src = ops[0]->data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(
      instr.shape().dimensions(), [&](absl::Span<const int64_t> idx) {
        int64_t off = 0;
        for (size_t d = 0; d < idx.size(); ++d) {
          off += (slice[d].start + idx[d] * slice[d].stride) * strides[d];
        }
        std::memcpy(dst + linear * w, src + off * w, w);
        ++linear;
      });
  return out;
}

absl::StatusOr<Literal> EvalPad(Interpreter&, const Instruction& instr,
                                Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 2));
  const Shape& in = ops[0]->shape();
  const Shape& out_shape = instr.shape();
  if (!instr.attrs().padding_config.has_value() ||
      static_cast<int64_t>(instr.attrs().padding_config->dimensions.size()) !=
          in.rank() ||
      ElementCount(ops[1]->shape().dimensions()) != 1) {
    return Invalid(instr, "bad padding config or padding value");
  }
  const auto& config = instr.attrs().padding_config->dimensions;
  Literal out = MakeLiteral(out_shape);
  const int64_t w = Width(in);
  uint8_t* dst = out.mutable_data().data();
  const int64_t n_out = ElementCount(out_shape.dimensions());
  const uint8_t* pad = ops[1]->data().data();
  for (int64_t i = 0; i < n_out; ++i) std::memcpy(dst + i * w, pad, w);
  // Interior padding goes between elements first; then edge padding is
  // added (negative: removed) at both ends.
  const std::vector<int64_t> out_strides =
      RowMajorStrides(out_shape.dimensions());
  const uint8_t* src = ops[0]->data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(in.dimensions(), [&](absl::Span<const int64_t> idx) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < idx.size(); ++d) {
      const int64_t pos = config[d].edge_padding_low +
                          idx[d] * (config[d].interior_padding + 1);
      if (pos < 0 || pos >= out_shape.dimensions(d)) {
        inside = false;
        break;
      }
      off += pos * out_strides[d];
    }
    if (inside) std::memcpy(dst + off * w, src + linear * w, w);
    ++linear;
  });
  return out;
}

absl::StatusOr<Literal> EvalDynamicSlice(Interpreter&, const Instruction& instr,
                                         Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, ops.size()));
  const Shape& in = ops[0]->shape();
  const Shape& out_shape = instr.shape();
  if (out_shape.rank() != in.rank()) return Invalid(instr, "rank mismatch");
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                         ReadStartIndices(instr, ops, 1, in.rank()));
  // Today's XLA clamps each start index to [0, dim - size] so the slice is
  // always in bounds (SEMANTICS.md; seed 004 describes the older modulo).
  for (int64_t d = 0; d < in.rank(); ++d) {
    const int64_t size = out_shape.dimensions(d);
    if (size > in.dimensions(d)) return Invalid(instr, "slice too large");
    starts[d] = std::clamp<int64_t>(starts[d], 0, in.dimensions(d) - size);
  }
  const std::vector<int64_t> strides = RowMajorStrides(in.dimensions());
  Literal out = MakeLiteral(out_shape);
  const int64_t w = Width(in);
  const uint8_t* src = ops[0]->data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(out_shape.dimensions(),
                       [&](absl::Span<const int64_t> idx) {
                         int64_t off = 0;
                         for (size_t d = 0; d < idx.size(); ++d) {
                           off += (starts[d] + idx[d]) * strides[d];
                         }
                         std::memcpy(dst + linear * w, src + off * w, w);
                         ++linear;
                       });
  return out;
}

absl::StatusOr<Literal> EvalDynamicUpdateSlice(Interpreter&,
                                               const Instruction& instr,
                                               Operands ops) {
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, ops.size()));
  const Shape& in = ops[0]->shape();
  const Shape& update = ops[1]->shape();
  if (update.rank() != in.rank() ||
      update.element_type() != in.element_type()) {
    return Invalid(instr, "update does not match the operand");
  }
  PLEXA_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                         ReadStartIndices(instr, ops, 2, in.rank()));
  // Clamped to [0, dim - update_dim] as today's XLA (the seed's modulo is
  // the older behaviour).
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (update.dimensions(d) > in.dimensions(d)) {
      return Invalid(instr, "update larger than the operand");
    }
    starts[d] = std::clamp<int64_t>(starts[d], 0,
                                    in.dimensions(d) - update.dimensions(d));
  }
  Literal out(*ops[0]);
  const std::vector<int64_t> strides = RowMajorStrides(in.dimensions());
  const int64_t w = Width(in);
  const uint8_t* src = ops[1]->data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(update.dimensions(), [&](absl::Span<const int64_t> idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) {
      off += (starts[d] + idx[d]) * strides[d];
    }
    std::memcpy(dst + off * w, src + linear * w, w);
    ++linear;
  });
  return out;
}

absl::StatusOr<Literal> EvalIota(Interpreter&, const Instruction& instr,
                                 Operands) {
  const Shape& shape = instr.shape();
  if (!shape.IsArray()) return Invalid(instr, "the result is not an array");
  const int64_t dim = instr.attrs().iota_dimension;
  if (dim < 0 || dim >= shape.rank()) return Invalid(instr, "bad dimension");
  Literal out = MakeLiteral(shape);
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  const int64_t n = ElementCount(shape.dimensions());
  const int64_t size = shape.dimensions(dim);
  PLEXA_RETURN_IF_ERROR(
      ArrayTypeSwitch(shape.element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        T* o = MutableDataOf<T>(out);
        for (int64_t i = 0; i < n; ++i) {
          o[i] = ConvertElement<T>(
              static_cast<int64_t>((i / strides[dim]) % size));
        }
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<Literal> EvalBitcast(Interpreter&, const Instruction& instr,
                                    Operands ops) {
  // Same bytes, reinterpreted: lay the operand out as its instruction's
  // shape says (default layout if none), take the bytes, and read them
  // under the result shape's layout.
  PLEXA_RETURN_IF_ERROR(ExpectArrays(instr, ops, 1));
  PLEXA_ASSIGN_OR_RETURN(Literal src,
                         ToLayoutOf(*ops[0], instr.operand(0)->shape()));
  Shape dst_shape = instr.shape();
  dst_shape.set_layout(LayoutUtil::EffectiveLayout(instr.shape()));
  Literal dst(dst_shape);
  if (dst.data().size() != src.data().size()) {
    return Invalid(instr, absl::StrCat("bitcast from ",
                                       instr.operand(0)->shape().ToString(),
                                       " to ", instr.shape().ToString(),
                                       " changes the byte size"));
  }
  if (!dst.data().empty()) {
    std::memcpy(dst.mutable_data().data(), src.data().data(),
                src.data().size());
  }
  PLEXA_ASSIGN_OR_RETURN(Literal out, ToDefaultLayout(dst));
  NormalizePred(&out);
  return out;
}

absl::StatusOr<Literal> EvalGetDimensionSize(Interpreter&,
                                             const Instruction& instr,
                                             Operands ops) {
  // Values are held at their full (bound) size, so a dynamic dimension
  // reports its bound.
  if (instr.dimensions().size() != 1 || !ops[0]->shape().IsArray() ||
      instr.dimensions(0) < 0 ||
      instr.dimensions(0) >= ops[0]->shape().rank()) {
    return Invalid(instr, "bad dimension");
  }
  Literal out = MakeLiteral(instr.shape());
  const int64_t size = ops[0]->shape().dimensions(instr.dimensions(0));
  PLEXA_RETURN_IF_ERROR(ArrayTypeSwitch(
      instr.shape().element_type(), [&](auto tag) -> absl::Status {
        using T = typename decltype(tag)::type;
        MutableDataOf<T>(out)[0] = ConvertElement<T>(size);
        return absl::OkStatus();
      }));
  return out;
}

absl::StatusOr<Literal> EvalTuple(Interpreter&, const Instruction&,
                                  Operands ops) {
  std::vector<Literal> elements;
  elements.reserve(ops.size());
  for (const Literal* op : ops) elements.push_back(Literal(*op));
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> EvalGetTupleElement(Interpreter&,
                                            const Instruction& instr,
                                            Operands ops) {
  const int64_t index = instr.tuple_index();
  if (!ops[0]->shape().IsTuple() || index < 0 ||
      index >= ops[0]->tuple_element_count()) {
    return Invalid(instr,
                   absl::StrCat("tuple index ", index, " out of range for ",
                                ops[0]->shape().ToString()));
  }
  return Literal(ops[0]->tuple_element(index));
}

}  // namespace plexa::eval
