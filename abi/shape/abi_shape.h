// Shape <-> PLX_ArrayShape, once for the host (abi/host) and the plugin SDK
// (abi/sdk), validated in both directions: whatever crosses the ABI is
// checked on the side that reads it, with errors that name the call.
#ifndef PLEXA_ABI_SHAPE_ABI_SHAPE_H_
#define PLEXA_ABI_SHAPE_ABI_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/shape/layout.h"
#include "core/shape/shape.h"
#include "plexa/plexa_c_api.h"

namespace plexa::abi {

// The core's element type for a PLX_Type value: INVALID_ARGUMENT for a
// value the ABI does not define. Errors begin with `context`.
absl::StatusOr<PrimitiveType> PrimitiveTypeFromAbi(int64_t type,
                                                   absl::string_view context);

// ---- Packed sub-byte data ----
// The core holds s4, u4, s2, u2 and f4e2m1fn one element a byte (signed
// integers sign-extended, the others in the low bits); across the ABI a
// dense buffer of them is packed (plexa_c_api.h, "Element types"): element
// i in the bits (i % per_byte) * bits of byte i / per_byte, from the least
// significant end, in the buffer's physical order.

// The bytes `shape`'s data takes across the ABI: ShapeUtil::ByteSizeOf,
// and ceil(elements * bits / 8) for the sub-byte types.
int64_t AbiByteSize(const Shape& shape);
// `unpacked` holds the core's bytes of `type` (one an element); `packed`
// has room for ceil(unpacked.size() * bits / 8) bytes.
void PackSubByte(PrimitiveType type, absl::Span<const uint8_t> unpacked,
                 uint8_t* packed);
// The inverse: fills every byte of `unpacked` from `packed`.
void UnpackSubByte(PrimitiveType type, const uint8_t* packed,
                   absl::Span<uint8_t> unpacked);

// Reads a PLX_ArrayShape that the other side filled: not NULL, struct_size
// at least the 1.0 size, a known element type, rank at most 64, dims given,
// a byte size that fits 64 bits, a layout (HLO text, else minor_to_major,
// else the default) valid for the dimensions. Errors are INVALID_ARGUMENT
// (UNIMPLEMENTED for an element type this build cannot hold, see
// PrimitiveTypeFromAbi) and begin with `context` (the ABI function, say).
absl::StatusOr<Shape> ShapeFromAbi(const PLX_ArrayShape* shape,
                                   absl::string_view context);

// A PLX_ArrayShape view of a Shape and the storage it points into. `view`
// points at this object's own members (and a short layout string lives
// inside the std::string object itself), so the storage never moves once
// the view is handed out: copying and moving are deleted, and containers of
// it must not relocate their elements (std::deque, or a std::vector sized
// once).
struct ArrayShapeStorage {
  ArrayShapeStorage() = default;
  ArrayShapeStorage(const ArrayShapeStorage&) = delete;
  ArrayShapeStorage& operator=(const ArrayShapeStorage&) = delete;

  // Fills the view from an array shape (any layout: tiles and padding go
  // as HLO layout text). INVALID_ARGUMENT for a tuple, a token or an
  // element type the ABI has no value for.
  absl::Status Set(const Shape& shape);

  std::vector<int64_t> dims;
  std::vector<int64_t> minor_to_major;
  std::string layout_text;  // empty: no tiles/padding
  PLX_ArrayShape view{};
};

// ---- Structured layouts (PLX_Layout, ABI 1.2) ----

// Reads a PLX_Layout the other side filled, for an array of `rank`
// dimensions: struct_size at least PLX_Layout_STRUCT_SIZE, num_dims ==
// rank with minor_to_major given, tile_ranks summing to num_tile_dims
// (each tile 1..rank dimensions, sizes positive or Tile::kCombineDimension),
// element_size_in_bits and memory_space not negative. The caller validates
// the result against its shape (LayoutUtil::ValidateLayoutForShape).
absl::StatusOr<Layout> LayoutFromAbi(const PLX_Layout* layout, int64_t rank,
                                     absl::string_view context);

// A PLX_Layout's arrays for a Layout; like ArrayShapeStorage, it must not
// move once handed out.
struct LayoutStorage {
  LayoutStorage() = default;
  LayoutStorage(const LayoutStorage&) = delete;
  LayoutStorage& operator=(const LayoutStorage&) = delete;

  void Set(const Layout& layout);
  // Fills the fields of `out` that its struct_size covers (the caller's
  // header may be older or newer than ours): pointers into this storage.
  void Fill(PLX_Layout* out) const;

  std::vector<int64_t> minor_to_major;
  std::vector<int64_t> tile_ranks;
  std::vector<int64_t> tile_dims;
  int64_t element_size_in_bits = 0;
  int64_t memory_space = 0;
};

// ---- Strided host arrays (PLX_Client_BufferFromHost_Args.byte_strides) ----

// A host array given as element [0, ..., 0] plus byte strides (a numpy
// view). If the strides are those of a dense array in some dimension
// order, that order as a layout (minor_to_major) and the lowest address
// the array touches; `dense` is then false for other strides (the data
// must be gathered).
struct StridedView {
  bool dense = false;
  std::vector<int64_t> minor_to_major;  // when dense
  int64_t min_offset = 0;  // bytes from element [0..0] to the lowest byte
  int64_t max_offset = 0;  // bytes from element [0..0] past the highest
};
// Checks strides (one per dimension, any sign; 0 for a broadcast
// dimension) against the element size and computes the view. An array
// with no elements is dense.
absl::StatusOr<StridedView> AnalyzeStrides(const Shape& shape,
                                           absl::Span<const int64_t> strides,
                                           absl::string_view context);
// Copies the strided array at `origin` (element [0..0]) into `dst`, dense
// and row-major (ShapeUtil::ByteSizeOf of `shape` with the default
// layout). Byte-sized and larger element types only.
void GatherStrided(const uint8_t* origin, const Shape& shape,
                   absl::Span<const int64_t> strides, uint8_t* dst);

}  // namespace plexa::abi

#endif  // PLEXA_ABI_SHAPE_ABI_SHAPE_H_
