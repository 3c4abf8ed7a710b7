#include "abi/shape/abi_shape.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/shape/layout_util.h"
#include "core/shape/primitive_type.h"
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

}  // namespace

absl::StatusOr<PrimitiveType> PrimitiveTypeFromAbi(int64_t type,
                                                   absl::string_view context) {
  // PLX_Type_PRED .. PLX_Type_F8E8M0FNU share PrimitiveType's numbering
  // (abi/sdk/plugin.cc asserts it).
  if (type <= PLX_Type_INVALID || type > PLX_Type_F8E8M0FNU) {
    return Invalid(context, absl::StrCat("invalid element type ", type));
  }
  return static_cast<PrimitiveType>(type);
}

int64_t AbiByteSize(const Shape& shape) {
  const PrimitiveType t = shape.element_type();
  if (!primitive_util::IsSubByteType(t)) return ShapeUtil::ByteSizeOf(shape);
  const int64_t bits = primitive_util::BitWidth(t);
  return (ShapeUtil::ElementsIn(shape) * bits + 7) / 8;
}

void PackSubByte(PrimitiveType type, absl::Span<const uint8_t> unpacked,
                 uint8_t* packed) {
  const int bits = static_cast<int>(primitive_util::BitWidth(type));
  const int per_byte = 8 / bits;
  const uint8_t mask = static_cast<uint8_t>((1u << bits) - 1);
  const size_t n = unpacked.size();
  std::memset(packed, 0, (n * bits + 7) / 8);
  for (size_t i = 0; i < n; ++i) {
    packed[i / per_byte] |=
        static_cast<uint8_t>((unpacked[i] & mask) << ((i % per_byte) * bits));
  }
}

void UnpackSubByte(PrimitiveType type, const uint8_t* packed,
                   absl::Span<uint8_t> unpacked) {
  const int bits = static_cast<int>(primitive_util::BitWidth(type));
  const int per_byte = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  const bool sign_extend = primitive_util::IsSignedIntegralType(type);
  for (size_t i = 0; i < unpacked.size(); ++i) {
    unsigned v = (packed[i / per_byte] >> ((i % per_byte) * bits)) & mask;
    if (sign_extend && (v >> (bits - 1)) != 0) v |= ~mask;  // negative
    unpacked[i] = static_cast<uint8_t>(v);
  }
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
  if (type <= PLX_Type_INVALID || type > PLX_Type_F8E8M0FNU) {
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

namespace plexa::abi {

absl::StatusOr<Layout> LayoutFromAbi(const PLX_Layout* layout, int64_t rank,
                                     absl::string_view context) {
  if (layout == nullptr) return Invalid(context, "layout is NULL");
  if (layout->struct_size < PLX_Layout_STRUCT_SIZE) {
    return Invalid(context, absl::StrCat("layout struct_size is ",
                                         layout->struct_size, ", at least ",
                                         PLX_Layout_STRUCT_SIZE, " expected"));
  }
  if (static_cast<int64_t>(layout->num_dims) != rank) {
    return Invalid(context, absl::StrCat("layout has ", layout->num_dims,
                                         " dimensions, the array ", rank));
  }
  if (rank > 0 && layout->minor_to_major == nullptr) {
    return Invalid(context, "layout minor_to_major is NULL");
  }
  Layout out = LayoutUtil::MakeLayout(
      absl::MakeConstSpan(layout->minor_to_major, layout->num_dims));
  if (layout->num_tiles > 0 &&
      (layout->tile_ranks == nullptr || layout->tile_dims == nullptr)) {
    return Invalid(context,
                   "layout has tiles but tile_ranks or tile_dims "
                   "is NULL");
  }
  if (layout->num_tiles > 64 || layout->num_tile_dims > 64 * 64) {
    return Invalid(context, absl::StrCat("layout has ", layout->num_tiles,
                                         " tiles of ", layout->num_tile_dims,
                                         " dimensions in all: implausible"));
  }
  size_t next = 0;
  for (size_t t = 0; t < layout->num_tiles; ++t) {
    const int64_t r = layout->tile_ranks[t];
    if (r < 1 || r > std::max<int64_t>(rank, 1) ||
        next + static_cast<size_t>(r) > layout->num_tile_dims) {
      return Invalid(context,
                     absl::StrCat("layout tile ", t, " has ", r,
                                  " dimensions (the array has ", rank, ", ",
                                  layout->num_tile_dims - next, " left)"));
    }
    Tile tile;
    for (int64_t i = 0; i < r; ++i) {
      const int64_t d = layout->tile_dims[next++];
      if (d <= 0 && d != Tile::kCombineDimension) {
        return Invalid(context, absl::StrCat("layout tile ", t, " dimension ",
                                             i, " is ", d));
      }
      tile.add_dimension(d);
    }
    out.mutable_tiles()->push_back(std::move(tile));
  }
  if (next != layout->num_tile_dims) {
    return Invalid(context,
                   absl::StrCat("layout tile_ranks cover ", next, " of its ",
                                layout->num_tile_dims, " tile_dims"));
  }
  if (layout->element_size_in_bits < 0 || layout->memory_space < 0) {
    return Invalid(
        context,
        absl::StrCat("layout element_size_in_bits ",
                     layout->element_size_in_bits, " and memory_space ",
                     layout->memory_space, " must not be negative"));
  }
  out.set_element_size_in_bits(layout->element_size_in_bits);
  out.set_memory_space(layout->memory_space);
  return out;
}

void LayoutStorage::Set(const Layout& layout) {
  minor_to_major.assign(layout.minor_to_major().begin(),
                        layout.minor_to_major().end());
  tile_ranks.clear();
  tile_dims.clear();
  for (const Tile& t : layout.tiles()) {
    tile_ranks.push_back(static_cast<int64_t>(t.dimensions().size()));
    tile_dims.insert(tile_dims.end(), t.dimensions().begin(),
                     t.dimensions().end());
  }
  element_size_in_bits = layout.element_size_in_bits();
  memory_space = layout.memory_space();
}

void LayoutStorage::Fill(PLX_Layout* out) const {
  // Only what the caller's struct covers (PLX_Layout may grow).
  const size_t size = out->struct_size;
  auto covers = [size](size_t end) { return size >= end; };
  if (covers(PLX_STRUCT_SIZE(PLX_Layout, num_dims))) {
    out->minor_to_major = minor_to_major.data();
    out->num_dims = minor_to_major.size();
  }
  if (covers(PLX_STRUCT_SIZE(PLX_Layout, num_tile_dims))) {
    out->tile_ranks = tile_ranks.empty() ? nullptr : tile_ranks.data();
    out->num_tiles = tile_ranks.size();
    out->tile_dims = tile_dims.empty() ? nullptr : tile_dims.data();
    out->num_tile_dims = tile_dims.size();
  }
  if (covers(PLX_STRUCT_SIZE(PLX_Layout, element_size_in_bits))) {
    out->element_size_in_bits = element_size_in_bits;
  }
  if (covers(PLX_STRUCT_SIZE(PLX_Layout, memory_space))) {
    out->memory_space = memory_space;
  }
}

absl::StatusOr<StridedView> AnalyzeStrides(const Shape& shape,
                                           absl::Span<const int64_t> strides,
                                           absl::string_view context) {
  const int64_t rank = static_cast<int64_t>(shape.dimensions().size());
  if (static_cast<int64_t>(strides.size()) != rank) {
    return Invalid(context, absl::StrCat(strides.size(), " byte_strides for ",
                                         shape.ToString()));
  }
  const int64_t esize = primitive_util::ByteWidth(shape.element_type());
  if (esize == 0 ||
      ShapeUtil::ByteSizeOf(shape) != ShapeUtil::ElementsIn(shape) * esize) {
    return absl::UnimplementedError(
        absl::StrCat(context, ": byte_strides for ", shape.ToString(),
                     " (only byte-sized element types can be strided)"));
  }
  StridedView v;
  v.max_offset = esize;
  if (ShapeUtil::ElementsIn(shape) == 0) {
    v.dense = true;
    v.max_offset = 0;
    for (int64_t d = rank - 1; d >= 0; --d) v.minor_to_major.push_back(d);
    return v;
  }
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t extent = shape.dimensions(d) - 1;
    const int64_t s = strides[d];
    if (s != 0 && s % esize != 0) {
      return Invalid(context,
                     absl::StrCat("byte_strides[", d, "] = ", s,
                                  " is not a multiple of the element size ",
                                  esize, " of ", shape.ToString()));
    }
    // |s| * extent fits: the strides describe memory the caller has.
    if (s != 0 && extent > (int64_t{1} << 62) / (s < 0 ? -s : s)) {
      return Invalid(context,
                     absl::StrCat("byte_strides[", d, "] = ", s,
                                  " overflows for ", extent + 1, " elements"));
    }
    if (s < 0) v.min_offset += s * extent;
    if (s > 0) v.max_offset += s * extent;
  }
  // Dense in some order: sorting the dimensions by stride, each stride is
  // the product of the extents below it (size-1 dimensions fit anywhere).
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d) order.push_back(d);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    const bool a1 = shape.dimensions(a) == 1, b1 = shape.dimensions(b) == 1;
    if (a1 != b1) return b1;  // size-1 dimensions last (most major)
    if (a1) return b > a;     // among them: row-major
    return strides[a] < strides[b];
  });
  int64_t expected = esize;
  bool dense = true;
  for (int64_t d : order) {
    if (shape.dimensions(d) == 1) continue;
    dense &= strides[d] == expected;
    expected *= shape.dimensions(d);
  }
  v.dense = dense;
  if (dense) v.minor_to_major = order;
  return v;
}

void GatherStrided(const uint8_t* origin, const Shape& shape,
                   absl::Span<const int64_t> strides, uint8_t* dst) {
  const int64_t rank = static_cast<int64_t>(shape.dimensions().size());
  const int64_t esize = primitive_util::ByteWidth(shape.element_type());
  const int64_t n = ShapeUtil::ElementsIn(shape);
  if (n == 0) return;
  std::vector<int64_t> index(rank, 0);
  const uint8_t* src = origin;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * esize, src, esize);
    // Row-major odometer: advance the last dimension first.
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) {
        src += strides[d];
        break;
      }
      src -= strides[d] * (shape.dimensions(d) - 1);
      index[d] = 0;
    }
  }
}

}  // namespace plexa::abi
