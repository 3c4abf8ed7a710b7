#include "core/ir/collective_groups.h"

#include <algorithm>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace plexa {

namespace {

absl::Status Invalid(const Instruction& instr, absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("instruction '", instr.name(), "' (",
                   HloOpcodeString(instr.opcode()), "): ", what));
}

// The mode with Plexa's single-partition leniency applied: the ids name
// replicas.
CollectiveGroupMode EffectiveMode(CollectiveGroupMode mode,
                                  const DeviceGrid& grid) {
  if (mode == CollectiveGroupMode::kCrossPartition && grid.partitions == 1) {
    return CollectiveGroupMode::kCrossReplica;
  }
  return mode;
}

}  // namespace

std::string DeviceGrid::Name(int64_t device) const {
  if (partitions == 1) return absl::StrCat("replica ", device);
  return absl::StrCat("replica ", ReplicaOf(device), ", partition ",
                      PartitionOf(device));
}

absl::string_view CollectiveGroupModeName(CollectiveGroupMode mode) {
  switch (mode) {
    case CollectiveGroupMode::kCrossReplica:
      return "cross-replica";
    case CollectiveGroupMode::kCrossPartition:
      return "cross-partition";
    case CollectiveGroupMode::kCrossReplicaAndPartition:
      return "cross-replica-and-partition";
    case CollectiveGroupMode::kFlattenedId:
      return "flattened-id";
  }
  return "?";
}

bool HasUseGlobalDeviceIds(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

bool MovesRowsBetweenDevices(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kRaggedAllToAll:
    case HloOpcode::kCollectiveBroadcast:
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart:
    case HloOpcode::kCollectivePermuteDone:
    case HloOpcode::kReduceScatter:
      return true;
    default:
      return false;
  }
}

absl::StatusOr<CollectiveGroupMode> CollectiveGroupModeOf(
    const Instruction& instr) {
  const InstructionAttrs& a = instr.attrs();
  if (!a.channel_id.has_value()) {
    if (a.use_global_device_ids) {
      return Invalid(instr, "use_global_device_ids=true needs a channel_id");
    }
    return CollectiveGroupMode::kCrossReplica;
  }
  if (!HasUseGlobalDeviceIds(instr.opcode())) {
    return CollectiveGroupMode::kCrossPartition;
  }
  return a.use_global_device_ids
             ? CollectiveGroupMode::kFlattenedId
             : CollectiveGroupMode::kCrossReplicaAndPartition;
}

absl::StatusOr<std::vector<std::vector<int64_t>>> CollectiveDeviceGroups(
    const Instruction& instr, const DeviceGrid& grid) {
  PLEXA_ASSIGN_OR_RETURN(CollectiveGroupMode declared,
                         CollectiveGroupModeOf(instr));
  const CollectiveGroupMode mode = EffectiveMode(declared, grid);
  // How many ids the groups may name, and what they name.
  int64_t ids = grid.replicas;
  absl::string_view what = "replica";
  if (mode == CollectiveGroupMode::kCrossPartition) {
    ids = grid.partitions;
    what = "partition";
  } else if (mode == CollectiveGroupMode::kFlattenedId) {
    ids = grid.size();
    what = "device";
  }
  std::vector<std::vector<int64_t>> id_groups = instr.attrs().replica_groups;
  if (id_groups.empty()) {
    if (mode == CollectiveGroupMode::kFlattenedId) {
      return Invalid(instr,
                     "use_global_device_ids=true needs explicit "
                     "replica_groups (flattened device ids)");
    }
    id_groups.emplace_back();
    for (int64_t i = 0; i < ids; ++i) id_groups.back().push_back(i);
  }
  std::vector<bool> seen(ids, false);
  for (const std::vector<int64_t>& g : id_groups) {
    for (int64_t id : g) {
      if (id < 0 || id >= ids) {
        return Invalid(
            instr,
            absl::StrCat("replica_groups mention ", what, " ", id, " but ", ids,
                         " ", what, "(s) run (", grid.replicas,
                         " replica(s) x ", grid.partitions, " partition(s), ",
                         CollectiveGroupModeName(declared), " mode)"));
      }
      if (seen[id]) {
        return Invalid(instr, absl::StrCat("replica_groups mention ", what, " ",
                                           id, " twice"));
      }
      seen[id] = true;
    }
  }
  std::vector<std::vector<int64_t>> groups;
  for (const std::vector<int64_t>& g : id_groups) {
    switch (mode) {
      case CollectiveGroupMode::kCrossReplica:
        for (int64_t p = 0; p < grid.partitions; ++p) {
          groups.emplace_back();
          for (int64_t r : g) groups.back().push_back(grid.Device(r, p));
        }
        break;
      case CollectiveGroupMode::kCrossPartition:
        for (int64_t r = 0; r < grid.replicas; ++r) {
          groups.emplace_back();
          for (int64_t p : g) groups.back().push_back(grid.Device(r, p));
        }
        break;
      case CollectiveGroupMode::kCrossReplicaAndPartition:
        groups.emplace_back();
        for (int64_t r : g) {
          for (int64_t p = 0; p < grid.partitions; ++p) {
            groups.back().push_back(grid.Device(r, p));
          }
        }
        break;
      case CollectiveGroupMode::kFlattenedId:
        groups.push_back(g);
        break;
    }
  }
  return groups;
}

absl::StatusOr<DeviceGroup> CollectiveDeviceGroupOf(const Instruction& instr,
                                                    const DeviceGrid& grid,
                                                    int64_t device) {
  PLEXA_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> groups,
                         CollectiveDeviceGroups(instr, grid));
  for (std::vector<int64_t>& g : groups) {
    auto it = std::find(g.begin(), g.end(), device);
    if (it != g.end()) {
      DeviceGroup out;
      out.position = it - g.begin();
      out.devices = std::move(g);
      return out;
    }
  }
  return Invalid(instr, absl::StrCat(grid.Name(device),
                                     " is in none of the replica_groups"));
}

absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> DevicePairs(
    const Instruction& instr,
    absl::Span<const std::pair<int64_t, int64_t>> pairs,
    const DeviceGrid& grid) {
  const bool by_partition =
      instr.attrs().channel_id.has_value() && grid.partitions > 1;
  const int64_t ids = by_partition ? grid.partitions : grid.replicas;
  const int64_t others = by_partition ? grid.replicas : grid.partitions;
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const auto& [s, t] : pairs) {
    if (s < 0 || s >= ids || t < 0 || t >= ids) {
      return Invalid(
          instr, absl::StrCat(
                     "source_target_pairs mention {", s, ",", t, "} but ", ids,
                     by_partition ? " partition(s)" : " replica(s)", " run"));
    }
    for (int64_t o = 0; o < others; ++o) {
      out.emplace_back(by_partition ? grid.Device(o, s) : grid.Device(s, o),
                       by_partition ? grid.Device(o, t) : grid.Device(t, o));
    }
  }
  return out;
}

absl::StatusOr<std::optional<int64_t>> ModuleHeaderCount(
    const Module& module, absl::string_view name) {
  for (const auto& [key, value] : module.opaque_attributes()) {
    if (key != name) continue;
    int64_t n = 0;
    if (!absl::SimpleAtoi(value, &n) || n < 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("module '", module.name(), "': the header's ", name, "=",
                       value, " is not a positive integer"));
    }
    return n;
  }
  return std::nullopt;
}

}  // namespace plexa
