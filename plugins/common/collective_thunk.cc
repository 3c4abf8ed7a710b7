#include "plugins/common/collective_thunk.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace plexa::backend {

absl::Status CollectiveThunk::Run(Frame& f) const {
  ExecContext& ctx = *f.ctx;
  std::vector<const void*> mine;
  for (int s : inputs) mine.push_back(f.ptr[s]);
  std::vector<int64_t> group;
  if (ctx.replica_count > 1 && ctx.hub != nullptr) {
    for (const auto& g : groups_) {
      if (std::find(g.begin(), g.end(), ctx.replica_id) != g.end()) group = g;
    }
    if (group.empty()) {
      for (int64_t r = 0; r < ctx.replica_count; ++r) group.push_back(r);
    }
  }
  if (group.size() <= 1) {
    Compute(f, {mine}, 0);
    return absl::OkStatus();
  }
  const int64_t me =
      std::find(group.begin(), group.end(), ctx.replica_id) - group.begin();
  const std::string key =
      absl::StrCat(key_name_, "#", ctx.collective_runs[this]++);
  absl::StatusOr<std::vector<std::vector<const void*>>> all =
      ctx.hub->Exchange(key, group, ctx.replica_id, mine, kind);
  if (!all.ok()) return all.status();
  Compute(f, *all, me);
  // Nobody may overwrite or free its inputs until every member has read
  // them: a second meeting with nothing to exchange.
  return ctx.hub
      ->Exchange(absl::StrCat(key, "/read"), group, ctx.replica_id, {}, kind)
      .status();
}

}  // namespace plexa::backend
