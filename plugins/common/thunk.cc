#include "plugins/common/thunk.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "plugins/common/slot_access.h"

namespace plexa::backend {

const char* StepClassName(StepClass c) {
  switch (c) {
    case StepClass::kKernel:
      return "kernel";
    case StepClass::kGemm:
      return "gemm";
    case StepClass::kConvolution:
      return "convolution";
    case StepClass::kLibrary:
      return "library";
    case StepClass::kRuntime:
      return "runtime";
    case StepClass::kCollective:
      return "collective";
    case StepClass::kControlFlow:
      return "control-flow";
    case StepClass::kCustomCall:
      return "custom-call";
    case StepClass::kReference:
      return "reference";
    case StepClass::kCopy:
      return "copy";
  }
  return "runtime";
}

std::string DescribeSteps(
    absl::Span<const std::unique_ptr<CompiledComputation>> computations) {
  std::string out =
      "# plexa program steps: one line per thunk, in the order each "
      "computation runs them\n"
      "# computation\tinstruction\tclass\tkind\n";
  for (const auto& cc : computations) {
    const std::string computation =
        cc->computation != nullptr ? cc->computation->name() : "-";
    std::vector<const Thunk*> steps;
    for (const auto& t : cc->thunks) t->CollectSteps(&steps);
    for (const Thunk* t : steps) {
      absl::StrAppend(&out, computation, "\t", t->name.empty() ? "-" : t->name,
                      "\t", StepClassName(t->step_class()), "\t",
                      t->kind.empty() ? "-" : t->kind, "\n");
    }
  }
  return out;
}

absl::StatusOr<uint8_t*> ExecContext::ArenaFor(int id, int64_t bytes) {
  AlignedMemory& arena = arenas[id];
  if (absl::Status s = arena.Reserve(bytes); !s.ok()) return s;
  return static_cast<uint8_t*>(arena.data());
}

Shape WithLayout(Shape s) {
  if (s.IsArray()) LayoutUtil::SetToDefaultLayoutIfEmpty(&s);
  return s;
}

void FlattenLeafShapes(const Shape& shape, std::vector<Shape>* out) {
  if (shape.IsTuple()) {
    for (const Shape& e : shape.tuple_shapes()) FlattenLeafShapes(e, out);
    return;
  }
  out->push_back(WithLayout(shape));
}

int64_t LeafCount(const Shape& shape) {
  if (!shape.IsTuple()) return 1;
  int64_t n = 0;
  for (const Shape& e : shape.tuple_shapes()) n += LeafCount(e);
  return n;
}

int64_t SlotBytes(const Shape& s) {
  return s.IsArray() ? ShapeUtil::ByteSizeOf(s) : 0;
}
CopyThunk::CopyThunk(int src, int dst, int64_t bytes) : bytes_(bytes) {
  inputs = {src};
  outputs = {dst};
}

absl::Status CopyThunk::Run(Frame& f) const {
  return CopySlotBytes(*f.ctx, f.ptr[outputs[0]], f.ptr[inputs[0]], bytes_);
}

}  // namespace plexa::backend
