#include "plugins/common/collective_thunk.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

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
    Compute(f, {mine}, 0);
    return absl::OkStatus();
  }
  const int64_t me =
      std::find(group.begin(), group.end(), device) - group.begin();
  const std::string key =
      absl::StrCat(key_name_, "#", ctx.collective_runs[this]++);
  absl::StatusOr<std::vector<std::vector<const void*>>> all =
      ctx.hub->Exchange(key, group, device, mine, kind);
  if (!all.ok()) return all.status();
  Compute(f, *all, me);
  // Nobody may overwrite or free its inputs until every member has read
  // them: a second meeting with nothing to exchange.
  return ctx.hub->Exchange(absl::StrCat(key, "/read"), group, device, {}, kind)
      .status();
}

}  // namespace plexa::backend
