// Removes the annotations a single-device program keeps from SPMD
// partitioning and host offloading, as XLA's ShardingRemover does with one
// partition: custom-calls to XLA's annotation targets
// (core/ir/annotation_targets.h: Sharding, SPMDFullToShardShape,
// SPMDShardToFullShape, ShardBarrierFrom, ShardBarrierTo, MoveToHost,
// MoveToDevice, annotate_device_placement) become their one operand. On
// one device they are identities and no backend has a target for them, so
// one whose shape differs from its operand's (a program partitioned for
// several devices) or with another number of operands is an error naming
// the target, the instruction and its computation — never a plugin's
// "target not registered". `sharding={...}` attributes are kept verbatim
// and change nothing.
#ifndef PLEXA_CORE_PASSES_SHARDING_REMOVER_H_
#define PLEXA_CORE_PASSES_SHARDING_REMOVER_H_

#include "core/passes/pass.h"

namespace plexa {

class ShardingRemover : public Pass {
 public:
  absl::string_view name() const override { return "sharding-remover"; }
  absl::StatusOr<bool> Run(Module& module) override;
};

}  // namespace plexa

#endif  // PLEXA_CORE_PASSES_SHARDING_REMOVER_H_
