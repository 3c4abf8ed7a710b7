#include "core/ir/annotation_targets.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace plexa {

bool IsAnnotationTarget(absl::string_view target) {
  return target == "Sharding" || target == "SPMDFullToShardShape" ||
         target == "SPMDShardToFullShape" || target == "ShardBarrierFrom" ||
         target == "ShardBarrierTo" || target == "MoveToHost" ||
         target == "MoveToDevice" || target == "annotate_device_placement";
}

absl::Status CheckAnnotationIsIdentity(const Instruction& call,
                                       absl::string_view where) {
  const std::string& target = call.attrs().custom_call_target;
  if (call.operand_count() == 1 &&
      Shape::Equal().IgnoreLayout()(call.operand(0)->shape(), call.shape())) {
    return absl::OkStatus();
  }
  std::vector<std::string> operands;
  for (const Instruction* op : call.operands()) {
    operands.push_back(op->shape().ToString());
  }
  return absl::InvalidArgumentError(absl::StrCat(
      where, "custom-call '", call.name(), "' to \"", target, "\" takes (",
      absl::StrJoin(operands, ", "), ") to ", call.shape().ToString(),
      ": Plexa runs one device, where \"", target,
      "\" is only the identity on one operand of the call's shape; a program "
      "partitioned for several devices cannot run here"));
}

}  // namespace plexa
