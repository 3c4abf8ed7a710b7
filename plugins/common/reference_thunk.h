// The evaluator fallback: an instruction a backend has no kernel for runs
// through the reference evaluator on the instruction alone (its operands
// assembled from their leaves into literals, its result scattered back into
// its leaves in their layouts). infeed and outfeed go this way too: the
// evaluator talks to the execution's HostFeeds.
#ifndef PLEXA_PLUGINS_COMMON_REFERENCE_THUNK_H_
#define PLEXA_PLUGINS_COMMON_REFERENCE_THUNK_H_

#include "core/ir/instruction.h"
#include "core/literal/literal.h"
#include "plugins/common/thunk.h"

namespace plexa::backend {

class ReferenceThunk : public Thunk {
 public:
  // inputs: the leaves of `instr`'s operands; outputs: its result's leaves.
  explicit ReferenceThunk(const Instruction* instr) : instr_(instr) {}
  absl::Status Run(Frame& f) const override;
  StepClass step_class() const override { return StepClass::kReference; }

 private:
  Literal Assemble(const Shape& shape, Frame& f, size_t* k) const;
  absl::Status Scatter(Literal value, Frame& f, size_t* k) const;

  const Instruction* instr_;
};

}  // namespace plexa::backend

#endif  // PLEXA_PLUGINS_COMMON_REFERENCE_THUNK_H_
