#include "plugins/common/collective_thunk.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "core/base/status_macros.h"

namespace plexa::backend {

absl::Status CollectiveThunk::Run(Frame& f) const {
  ExecContext& ctx = *f.ctx;
  std::vector<const void*> mine;
  for (int s : inputs) mine.push_back(f.ptr[s]);
  const int64_t device = ctx.device_index();
  const int64_t devices = ctx.replica_count * ctx.partition_count;
  std::vector<int64_t> group;
  if (devices > 1 && ctx.hub != nullptr) {
    for (const auto& g : groups_) {
      if (std::find(g.begin(), g.end(), device) != g.end()) group = g;
    }
    if (group.empty()) {
      for (int64_t d = 0; d < devices; ++d) group.push_back(d);
    }
  }
  if (group.size() <= 1) {
    const std::vector<std::vector<const void*>> alone = {mine};
    PLEXA_RETURN_IF_ERROR(Check(alone, 0));
    Compute(f, alone, 0);
    return absl::OkStatus();
  }
  const int64_t me =
      std::find(group.begin(), group.end(), device) - group.begin();
  const std::string key =
      absl::StrCat(key_name_, "#", ctx.collective_runs[this]++);
  absl::StatusOr<std::vector<std::vector<const void*>>> all =
      ctx.hub->Exchange(key, group, device, mine, kind);
  if (!all.ok()) return all.status();
  const absl::Status checked = Check(*all, me);
  if (checked.ok()) Compute(f, *all, me);
  // Nobody may overwrite or free its inputs until every member has read
  // them: a second meeting with nothing to exchange.
  const absl::Status read =
      ctx.hub->Exchange(absl::StrCat(key, "/read"), group, device, {}, kind)
          .status();
  return checked.ok() ? read : checked;
}

}  // namespace plexa::backend
