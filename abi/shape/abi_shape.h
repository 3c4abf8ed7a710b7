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
#include "core/shape/shape.h"
#include "plexa/plexa_c_api.h"

namespace plexa::abi {

// The core's element type for a PLX_Type value: INVALID_ARGUMENT for a
// value the ABI does not define, UNIMPLEMENTED (naming it) for one ABI 1.2
// defined that the core cannot hold yet (s4, the f8 family, ...). Errors
// begin with `context`.
absl::StatusOr<PrimitiveType> PrimitiveTypeFromAbi(int64_t type,
                                                   absl::string_view context);

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

}  // namespace plexa::abi

#endif  // PLEXA_ABI_SHAPE_ABI_SHAPE_H_
