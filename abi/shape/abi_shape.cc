#include "abi/shape/abi_shape.h"

#include <cstring>
#include <iterator>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "core/text/hlo_parser.h"

namespace plexa::abi {
namespace {

// An enum field a C caller filled may hold any int; read the bits as the
// underlying integer (loading an out-of-range value as the enum type is
// undefined behaviour).
int64_t RawElementType(const PLX_Type& field) {
  std::make_signed_t<std::underlying_type_t<PLX_Type>> v;
  std::memcpy(&v, &field, sizeof(v));
  return static_cast<int64_t>(v);
}

absl::Status Invalid(absl::string_view context, absl::string_view message) {
  return absl::InvalidArgumentError(absl::StrCat(context, ": ", message));
}

// The element types ABI 1.2 added (PLX_Type_S4 ... PLX_Type_F8E8M0FNU), in
// order, by their HLO spelling: the ABI can name them, the core cannot
// hold them yet.
constexpr absl::string_view kTypesWithoutCore[] = {"s4",
                                                   "u4",
                                                   "s2",
                                                   "u2",
                                                   "f8e5m2",
                                                   "f8e4m3fn",
                                                   "f8e4m3b11fnuz",
                                                   "f8e5m2fnuz",
                                                   "f8e4m3fnuz",
                                                   "f8e4m3",
                                                   "f8e3m4",
                                                   "f4e2m1fn",
                                                   "f8e8m0fnu"};
static_assert(PLX_Type_S4 + std::size(kTypesWithoutCore) - 1 ==
              PLX_Type_F8E8M0FNU);

}  // namespace

absl::StatusOr<PrimitiveType> PrimitiveTypeFromAbi(int64_t type,
                                                   absl::string_view context) {
  // PLX_Type_PRED .. PLX_Type_C128 share PrimitiveType's numbering
  // (abi/sdk/plugin.cc asserts it).
  if (type > PLX_Type_INVALID && type <= PLX_Type_C128) {
    return static_cast<PrimitiveType>(type);
  }
  if (type >= PLX_Type_S4 && type <= PLX_Type_F8E8M0FNU) {
    return absl::UnimplementedError(absl::StrCat(
        context, ": element type ", kTypesWithoutCore[type - PLX_Type_S4],
        " (PLX_Type ", type, ", ABI 1.2) is not supported by this build yet"));
  }
  return Invalid(context, absl::StrCat("invalid element type ", type));
}

absl::StatusOr<Shape> ShapeFromAbi(const PLX_ArrayShape* s,
                                   absl::string_view context) {
  if (s == nullptr) return Invalid(context, "shape is NULL");
  if (s->struct_size < PLX_ArrayShape_STRUCT_SIZE) {
    return Invalid(context, absl::StrCat("shape struct_size ", s->struct_size,
                                         " < ", PLX_ArrayShape_STRUCT_SIZE));
  }
  absl::StatusOr<PrimitiveType> element_type =
      PrimitiveTypeFromAbi(RawElementType(s->element_type), context);
  if (!element_type.ok()) return element_type.status();
  if (s->num_dims > 64) {
    return Invalid(context,
                   absl::StrCat("rank ", s->num_dims, " is more than 64"));
  }
  if (s->num_dims > 0 && s->dims == nullptr) {
    return Invalid(context, absl::StrCat("shape has ", s->num_dims,
                                         " dims but dims is NULL"));
  }
  std::vector<int64_t> dims(s->dims, s->dims + s->num_dims);
  // The byte size must be representable: ShapeUtil's arithmetic is int64
  // and overflow there is undefined behaviour. 16 bytes is the widest
  // element (c128).
  int64_t bytes = 16;
  for (int64_t d : dims) {
    if (d > 0 && __builtin_mul_overflow(bytes, d, &bytes)) {
      return Invalid(context,
                     absl::StrCat("shape [", absl::StrJoin(dims, ","),
                                  "] is too large (its byte size overflows "
                                  "64 bits)"));
    }
  }
  absl::StatusOr<Shape> shape =
      ShapeUtil::MakeValidatedShape(*element_type, dims);
  if (!shape.ok()) return Invalid(context, shape.status().message());
  if (s->layout != nullptr) {
    absl::StatusOr<Layout> layout = ParseLayout(s->layout);
    if (!layout.ok()) {
      return Invalid(context, absl::StrCat("bad layout '", s->layout,
                                           "': ", layout.status().message()));
    }
    *shape->mutable_layout() = *layout;
  } else if (s->minor_to_major != nullptr) {
    *shape->mutable_layout() = LayoutUtil::MakeLayout(
        absl::MakeConstSpan(s->minor_to_major, s->num_dims));
  } else {
    LayoutUtil::SetToDefaultLayout(&*shape);
  }
  if (absl::Status v =
          LayoutUtil::ValidateLayoutForShape(shape->layout(), *shape);
      !v.ok()) {
    return Invalid(context, v.message());
  }
  return shape;
}

absl::Status ArrayShapeStorage::Set(const Shape& shape) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "only arrays cross the ABI as PLX_ArrayShape, not ", shape.ToString()));
  }
  const int64_t type = static_cast<int64_t>(shape.element_type());
  if (type <= PLX_Type_INVALID || type > PLX_Type_C128) {
    return absl::InvalidArgumentError(
        absl::StrCat("element type of ", shape.ToString(),
                     " has no PLX_Type value in this ABI version"));
  }
  dims.assign(shape.dimensions().begin(), shape.dimensions().end());
  const Layout layout = LayoutUtil::EffectiveLayout(shape);
  minor_to_major.assign(layout.minor_to_major().begin(),
                        layout.minor_to_major().end());
  const bool plain = layout.tiles().empty() &&
                     layout.padded_dimensions().empty() &&
                     layout.tail_padding_alignment_in_elements() == 1 &&
                     layout.element_size_in_bits() == 0;
  layout_text = plain ? "" : layout.ToString();
  view = PLX_ArrayShape{};
  view.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  view.element_type = static_cast<PLX_Type>(shape.element_type());
  view.dims = dims.data();
  view.num_dims = dims.size();
  view.minor_to_major = minor_to_major.data();
  view.layout = layout_text.empty() ? nullptr : layout_text.c_str();
  return absl::OkStatus();
}

}  // namespace plexa::abi
