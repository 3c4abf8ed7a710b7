// Layout conversion and small literal helpers of the evaluator.
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/eval/eval_internal.h"
#include "core/shape/index_util.h"
#include "core/shape/layout_util.h"

namespace plexa::eval {

Shape StripLayout(const Shape& shape) {
  Shape s = shape;
  s.clear_layout();
  return s;
}

Literal MakeLiteral(const Shape& shape) { return Literal(StripLayout(shape)); }

Literal MakeTokenLiteral() { return Literal(ShapeUtil::MakeTokenShape()); }

bool IsDefaultDense(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const Layout& layout = shape.layout();
  if (!layout.tiles().empty() || !layout.padded_dimensions().empty()) {
    return false;
  }
  if (layout.element_size_in_bits() != 0 &&
      layout.element_size_in_bits() !=
          primitive_util::BitWidth(shape.element_type())) {
    return false;
  }
  const int64_t rank = shape.rank();
  if (static_cast<int64_t>(layout.minor_to_major().size()) != rank) {
    return false;
  }
  for (int64_t i = 0; i < rank; ++i) {
    if (layout.minor_to_major(i) != rank - 1 - i) return false;
  }
  return true;
}

namespace {

// Copies every element between two array literals of equal dimensions and
// element type, whatever their layouts.
void CopyElementsAcrossLayouts(const Literal& src, Literal* dst) {
  const Shape& s = src.shape();
  const Shape& d = dst->shape();
  const int64_t width = primitive_util::ByteWidth(s.element_type());
  const bool src_dense = IsDefaultDense(s);
  const bool dst_dense = IsDefaultDense(d);
  const uint8_t* in = src.data().data();
  uint8_t* out = dst->mutable_data().data();
  int64_t linear = 0;
  ShapeUtil::ForEachIndex(s, [&](absl::Span<const int64_t> index) {
    const int64_t from =
        src_dense ? linear
                  : IndexUtil::MultidimensionalIndexToLinearIndex(s, index);
    const int64_t to =
        dst_dense ? linear
                  : IndexUtil::MultidimensionalIndexToLinearIndex(d, index);
    std::memcpy(out + to * width, in + from * width, width);
    ++linear;
  });
}

}  // namespace

absl::StatusOr<Literal> ToDefaultLayout(const Literal& literal) {
  const Shape& shape = literal.shape();
  if (shape.IsTuple()) {
    std::vector<Literal> elements;
    elements.reserve(literal.tuple_element_count());
    for (int64_t i = 0; i < literal.tuple_element_count(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(Literal e,
                             ToDefaultLayout(literal.tuple_element(i)));
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal(literal);
  if (IsDefaultDense(shape)) {
    Literal copy(literal);
    return copy;
  }
  Literal out = MakeLiteral(shape);
  CopyElementsAcrossLayouts(literal, &out);
  return out;
}

absl::StatusOr<Literal> ToLayoutOf(const Literal& dense, const Shape& target) {
  const Shape& shape = dense.shape();
  if (shape.IsTuple()) {
    if (!target.IsTuple() ||
        target.tuple_shapes_size() != dense.tuple_element_count()) {
      return absl::InternalError(absl::StrCat("evaluator: cannot lay out ",
                                              shape.ToString(), " as ",
                                              target.ToString()));
    }
    std::vector<Literal> elements;
    elements.reserve(dense.tuple_element_count());
    for (int64_t i = 0; i < dense.tuple_element_count(); ++i) {
      PLEXA_ASSIGN_OR_RETURN(Literal e, ToLayoutOf(dense.tuple_element(i),
                                                   target.tuple_shapes(i)));
      elements.push_back(std::move(e));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal(dense);
  if (!target.IsArray() || !ShapeUtil::SameDimensions(shape, target) ||
      shape.element_type() != target.element_type()) {
    return absl::InternalError(absl::StrCat("evaluator: cannot lay out ",
                                            shape.ToString(), " as ",
                                            target.ToString()));
  }
  if (!target.has_layout() || IsDefaultDense(target)) {
    if (!shape.has_layout() || IsDefaultDense(shape)) {
      Literal copy(dense);
      return copy;
    }
  }
  Shape with_layout = shape;
  with_layout.set_layout(LayoutUtil::EffectiveLayout(target));
  PLEXA_RETURN_IF_ERROR(
      LayoutUtil::ValidateLayoutForShape(with_layout.layout(), with_layout));
  Literal out(with_layout);
  CopyElementsAcrossLayouts(dense, &out);
  return out;
}

Literal TransposeLiteral(const Literal& in, absl::Span<const int64_t> perm) {
  const Shape& shape = in.shape();
  std::vector<int64_t> out_dims(perm.size());
  const std::vector<int64_t> in_strides = RowMajorStrides(shape.dimensions());
  std::vector<int64_t> stride(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out_dims[i] = shape.dimensions(perm[i]);
    stride[i] = in_strides[perm[i]];
  }
  Literal out =
      MakeLiteral(ShapeUtil::MakeShape(shape.element_type(), out_dims));
  const int64_t w = primitive_util::ByteWidth(shape.element_type());
  const uint8_t* src = in.data().data();
  uint8_t* dst = out.mutable_data().data();
  int64_t linear = 0;
  ForEachIndexRowMajor(out_dims, [&](absl::Span<const int64_t> idx) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * stride[d];
    std::memcpy(dst + linear * w, src + off * w, w);
    ++linear;
  });
  return out;
}

void NormalizePred(Literal* literal) {
  const Shape& shape = literal->shape();
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < literal->tuple_element_count(); ++i) {
      NormalizePred(literal->mutable_tuple_element(i));
    }
    return;
  }
  if (shape.element_type() != PrimitiveType::PRED) return;
  for (uint8_t& b : literal->mutable_data()) b = b != 0;
}

void WrapSubByteIntegers(Literal* literal) {
  const Shape& shape = literal->shape();
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < literal->tuple_element_count(); ++i) {
      WrapSubByteIntegers(literal->mutable_tuple_element(i));
    }
    return;
  }
  const PrimitiveType t = shape.element_type();
  if (!primitive_util::IsSubByteType(t)) return;
  const int bits = static_cast<int>(primitive_util::BitWidth(t));
  const bool is_signed = primitive_util::IsSignedIntegralType(t);
  for (uint8_t& b : literal->mutable_data()) {
    b = is_signed ? static_cast<uint8_t>(
                        WrapSignedToBits(static_cast<int8_t>(b), bits))
                  : static_cast<uint8_t>(WrapUnsignedToBits(b, bits));
  }
}

std::vector<int64_t> RowMajorStrides(absl::Span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int64_t i = static_cast<int64_t>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * dims[i + 1];
  }
  return strides;
}

int64_t ElementCount(absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

absl::StatusOr<int64_t> ReadIndexElement(const Literal& literal,
                                         int64_t linear) {
  return ArrayTypeSwitch(
      literal.shape().element_type(), [&](auto tag) -> absl::StatusOr<int64_t> {
        using T = typename decltype(tag)::type;
        if constexpr (kIsInt<T>) {
          const T v = DataOf<T>(literal)[linear];
          if constexpr (std::is_unsigned_v<T>) {
            if (static_cast<uint64_t>(v) >
                static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
              return std::numeric_limits<int64_t>::max();
            }
          }
          return static_cast<int64_t>(v);
        } else {
          return absl::InvalidArgumentError(
              absl::StrCat("index operand must be an integer array; got ",
                           literal.shape().ToString()));
        }
      });
}

namespace {

bool SameValueShape(const Shape& a, const Shape& b) {
  if (a.IsTuple() || b.IsTuple()) {
    if (!a.IsTuple() || !b.IsTuple() ||
        a.tuple_shapes_size() != b.tuple_shapes_size()) {
      return false;
    }
    for (int64_t i = 0; i < a.tuple_shapes_size(); ++i) {
      if (!SameValueShape(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (a.IsToken() || b.IsToken()) return a.IsToken() && b.IsToken();
  return a.element_type() == b.element_type() &&
         ShapeUtil::SameDimensions(a, b);
}

}  // namespace

absl::Status CheckResultShape(const Instruction& instr, const Literal& value) {
  if (SameValueShape(instr.shape(), value.shape())) return absl::OkStatus();
  return absl::InternalError(
      absl::StrCat("evaluator: ", InstrName(instr), " produced ",
                   value.shape().ToString(false), " but its shape is ",
                   instr.shape().ToString(false)));
}

std::string InstrName(const Instruction& instr) {
  return absl::StrCat(HloOpcodeString(instr.opcode()), " %", instr.name());
}

}  // namespace plexa::eval
