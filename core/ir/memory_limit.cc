#include "core/ir/memory_limit.h"

#include <unistd.h>

#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/shape/primitive_type.h"
#include "core/shape/shape_util.h"

namespace plexa {

int64_t MachineMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) {
    return std::numeric_limits<int64_t>::max();
  }
  const __int128 bytes = static_cast<__int128>(pages) * page_size;
  return bytes > std::numeric_limits<int64_t>::max()
             ? std::numeric_limits<int64_t>::max()
             : static_cast<int64_t>(bytes);
}

int64_t CheckedArrayBytes(const Shape& shape) {
  if (!shape.IsArray()) return 0;
  constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
  // The unpadded size first, in 128 bits.
  __int128 bytes = primitive_util::ByteWidth(shape.element_type());
  for (int64_t d : shape.dimensions()) {
    bytes *= d;
    if (bytes > kMax) return -1;
  }
  // ByteSizeOf adds tile and seed-000 padding with int64 arithmetic; a
  // generous bound on it (each dimension grown by 2^16, the bytes x16)
  // must fit before it is asked. Past that, the unpadded size (a lower
  // bound, already far beyond any machine) answers.
  __int128 padded = 16 * 16;
  for (int64_t d : shape.dimensions()) {
    padded *= static_cast<__int128>(d) + (int64_t{1} << 16);
    if (padded > kMax) return static_cast<int64_t>(bytes);
  }
  return ShapeUtil::ByteSizeOf(shape);
}

std::string HumanBytes(int64_t bytes) {
  static constexpr const char* kUnits[] = {"B",   "KiB", "MiB", "GiB",
                                           "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  return unit == 0 ? absl::StrCat(bytes, " B")
                   : absl::StrFormat("%.1f %s", v, kUnits[unit]);
}

absl::Status CheckShapeFitsLimit(const Shape& shape, int64_t limit_bytes,
                                 absl::string_view what) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      absl::Status s = CheckShapeFitsLimit(element, limit_bytes, what);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  }
  if (!shape.IsArray()) return absl::OkStatus();
  const int64_t bytes = CheckedArrayBytes(shape);
  if (bytes >= 0 && bytes <= limit_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      what, " (", shape.ToString(true), ") needs ",
      bytes < 0 ? std::string("more than 2^63") : absl::StrCat(bytes),
      " bytes, more than the memory limit of ", limit_bytes, " bytes (",
      HumanBytes(limit_bytes), ")"));
}

absl::Status CheckModuleFitsLimit(const Module& module, int64_t limit_bytes) {
  for (const Computation* c : module.computations()) {
    for (const Instruction* inst : c->instructions()) {
      absl::Status s =
          CheckShapeFitsLimit(inst->shape(), limit_bytes,
                              absl::StrCat("instruction '", inst->name(), "'"));
      if (!s.ok()) return s;
    }
  }
  return absl::OkStatus();
}

}  // namespace plexa
