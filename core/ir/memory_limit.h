// Allocation limits: every buffer whose size a program (or an input file)
// decides is checked against a limit before it is allocated, so a program
// such as `f32[1000000000000] parameter(0)` fails with RESOURCE_EXHAUSTED
// naming the instruction instead of dying in the allocator.
#ifndef PLEXA_CORE_IR_MEMORY_LIMIT_H_
#define PLEXA_CORE_IR_MEMORY_LIMIT_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/ir/module.h"
#include "core/shape/shape.h"

namespace plexa {

// The machine's physical memory in bytes: the default limit. Falls back to
// INT64_MAX if the system does not say.
int64_t MachineMemoryBytes();

// Bytes an array of `shape` occupies (ShapeUtil::ByteSizeOf), or -1 if the
// product of its dimensions and element width overflows int64.
int64_t CheckedArrayBytes(const Shape& shape);

// OK if every array leaf of `shape` fits in `limit_bytes`; otherwise
// RESOURCE_EXHAUSTED: "<what> (<shape>) needs N bytes, more than the memory
// limit of M bytes". `what` names the value ("instruction 'p0'",
// "input 0", ...).
absl::Status CheckShapeFitsLimit(const Shape& shape, int64_t limit_bytes,
                                 absl::string_view what);

// Checks the shape of every instruction of every computation of `module`
// (a program's buffers are sized by them) with CheckShapeFitsLimit.
absl::Status CheckModuleFitsLimit(const Module& module, int64_t limit_bytes);

// "4.0 GiB"-style text for messages.
std::string HumanBytes(int64_t bytes);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_MEMORY_LIMIT_H_
