// XLA's well-known custom-call targets that carry no computation: they
// annotate a value for the SPMD partitioner or for host offloading, and on
// one device each is the identity on its one operand.
//   Sharding                       jax.lax.with_sharding_constraint, jit's
//                                  in/out shardings
//   SPMDFullToShardShape,          shard_map's entry and exit (the shard
//   SPMDShardToFullShape           shape equals the full one on one device)
//   ShardBarrierFrom,              Shardy's sharding barriers
//   ShardBarrierTo
//   MoveToHost, MoveToDevice       host offloading (memory spaces)
//   annotate_device_placement      host offloading's placement annotation
// No backend has a target for them: the default pipeline's
// sharding-remover replaces them by their operand, and the evaluator runs
// them as the identity.
#ifndef PLEXA_CORE_IR_ANNOTATION_TARGETS_H_
#define PLEXA_CORE_IR_ANNOTATION_TARGETS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "core/ir/instruction.h"

namespace plexa {

bool IsAnnotationTarget(absl::string_view custom_call_target);

// For a custom-call to an annotation target: OK when it is an identity on
// one device, i.e. it has one operand whose shape equals the call's
// (ignoring layout). Otherwise InvalidArgument naming the target, the
// instruction (`where`, e.g. its computation) and the shapes.
absl::Status CheckAnnotationIsIdentity(const Instruction& call,
                                       absl::string_view where);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_ANNOTATION_TARGETS_H_
