// Removes the annotations a single-device program keeps from SPMD
// partitioning, as XLA's ShardingRemover does when there is one partition:
// custom-calls to "Sharding" (jax.lax.with_sharding_constraint,
// jit's in/out shardings), "SPMDFullToShardShape" and "SPMDShardToFullShape"
// (shard_map) with one operand whose shape equals the call's (ignoring
// layout) become that operand. On one device they are identities; no
// backend has a target for them. Calls whose shapes differ (a program
// partitioned for several devices) stay, and a backend reports the target
// as not found. `sharding={...}` attributes are kept verbatim and change
// nothing.
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
