// Who takes part in a collective when a program runs on replicas ×
// partitions, as XLA decides it (xla/service/collective_ops_utils.h:
// GetCollectiveOpGroupMode, GetParticipatingDevices). One execution runs
// the program on a grid of devices; device d is replica d / partitions,
// partition d % partitions (XLA's flattened id). The evaluator and every
// plugin's collective thunks ask these functions, so they agree.
//
// The group mode follows from channel_id and use_global_device_ids:
//   no channel_id                      cross-replica: replica_groups name
//                                      replicas; each partition meets alone
//   channel_id, no use_global_device_ids attribute (all-to-all,
//     collective-permute, collective-broadcast)
//                                      cross-partition: the groups (pairs)
//                                      name partitions; each replica alone
//   channel_id, use_global_device_ids=false (all-reduce, all-gather,
//     reduce-scatter)                  cross-replica-and-partition: the
//                                      groups name replicas, and every
//                                      partition of those replicas takes part
//   channel_id, use_global_device_ids=true
//                                      flattened ids: the groups name devices
//                                      (replica * partitions + partition)
//
// Plexa's one leniency: in an execution with a single partition, a
// cross-partition collective reads its groups and pairs as replicas, so
// that replicated programs which give all-to-all or collective-permute a
// channel_id (as many hand-written ones do) mean what their authors meant
// instead of being the identity. With partitions > 1 the rule is XLA's.
#ifndef PLEXA_CORE_IR_COLLECTIVE_GROUPS_H_
#define PLEXA_CORE_IR_COLLECTIVE_GROUPS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/ir/instruction.h"
#include "core/ir/module.h"

namespace plexa {

// The devices of one execution.
struct DeviceGrid {
  int64_t replicas = 1;
  int64_t partitions = 1;

  int64_t size() const { return replicas * partitions; }
  int64_t Device(int64_t replica, int64_t partition) const {
    return replica * partitions + partition;
  }
  int64_t ReplicaOf(int64_t device) const { return device / partitions; }
  int64_t PartitionOf(int64_t device) const { return device % partitions; }
  // "replica 2", or "replica 2, partition 1" when there are partitions.
  std::string Name(int64_t device) const;
};

enum class CollectiveGroupMode {
  kCrossReplica,
  kCrossPartition,
  kCrossReplicaAndPartition,
  kFlattenedId,
};
absl::string_view CollectiveGroupModeName(CollectiveGroupMode mode);

// Whether the opcode has XLA's use_global_device_ids attribute (all-reduce,
// all-gather, reduce-scatter and their -start forms).
bool HasUseGlobalDeviceIds(HloOpcode opcode);

// The collectives whose backends move rows of row-major buffers between
// devices (all-gather, reduce-scatter, all-to-all, collective-permute,
// collective-broadcast, collective-reduce, ragged-all-to-all and the async
// pairs; not all-reduce itself, whose constrain_layout=true keeps a written
// layout): layout assignment gives them the default layout.
bool MovesRowsBetweenDevices(HloOpcode opcode);

// XLA's mode of `instr` (above). An error for use_global_device_ids
// without a channel_id, naming the instruction.
absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    const Instruction& instr);

// Every group of devices that meets at `instr` in an execution on `grid`,
// each in XLA's order (cross-replica-and-partition: the group's replicas
// in order, every partition of each). Empty replica_groups mean one group
// of every replica (partition, device). An id outside the grid, a device
// in two groups, or flattened ids without groups are errors naming the
// instruction.
absl::StatusOr<std::vector<std::vector<int64_t>>> CollectiveDeviceGroups(
    const Instruction& instr, const DeviceGrid& grid);

// The group `device` belongs to (in the groups' order), and its position in
// it; an error when it is in none.
struct DeviceGroup {
  std::vector<int64_t> devices;
  int64_t position = 0;
};
absl::StatusOr<DeviceGroup> CollectiveDeviceGroupOf(const Instruction& instr,
                                                    const DeviceGrid& grid,
                                                    int64_t device);

// collective-permute's (or a send/recv's) source-target pairs as device
// pairs: without a channel_id the pairs name replicas and hold within
// every partition; with one they name partitions and hold within every
// replica (with a single partition: replicas, the leniency above). An id
// outside the grid is an error naming the instruction.
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> DevicePairs(
    const Instruction& instr,
    absl::Span<const std::pair<int64_t, int64_t>> pairs,
    const DeviceGrid& grid);

// The module header's replica_count or num_partitions (`name`), as XLA
// prints them (`HloModule m, replica_count=2, num_partitions=4`): nullopt
// when absent, an error naming it when not a positive integer.
absl::StatusOr<std::optional<int64_t>> ModuleHeaderCount(
    const Module& module, absl::string_view name);

}  // namespace plexa

#endif  // PLEXA_CORE_IR_COLLECTIVE_GROUPS_H_
