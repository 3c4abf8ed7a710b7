#include "plugins/onednn/onednn_thunk.h"

#include <omp.h>

#include <unordered_map>
#include <utility>

#include "absl/strings/str_cat.h"

namespace plexa::onednn {

OneDnnThunk::OneDnnThunk(Plan plan, std::vector<int> input_index,
                         dnnl::engine engine, int num_threads)
    : plan_(std::move(plan)),
      input_index_(std::move(input_index)),
      engine_(std::move(engine)),
      num_threads_(num_threads) {
  for (const PlanArg& a : plan_.inputs) {
    to_prim_.push_back(a.reorder ? dnnl::reorder(dnnl::reorder::primitive_desc(
                                       engine_, a.user, engine_, a.staged))
                                 : dnnl::reorder());
  }
  if (plan_.dst.reorder) {
    from_prim_ = dnnl::reorder(dnnl::reorder::primitive_desc(
        engine_, plan_.dst.staged, engine_, plan_.dst.user));
  }
}

absl::Status OneDnnThunk::Run(backend::Frame& f) const {
  // OpenMP's team size is per calling thread: each run sets it, so the
  // client's num_threads holds whichever thread runs the program.
  omp_set_num_threads(num_threads_);
  // The scratch is the last output, after the result's leaves.
  uint8_t* scratch = plan_.scratch_bytes > 0 ? f.ptr[outputs.back()] : nullptr;
  try {
    dnnl::stream stream(engine_);
    std::unordered_map<int, dnnl::memory> args;
    void* dst = plan_.dst.reorder ? scratch + plan_.dst.scratch_offset
                                  : f.ptr[outputs[0]];
    for (size_t i = 0; i < plan_.inputs.size(); ++i) {
      const PlanArg& a = plan_.inputs[i];
      void* user = f.ptr[inputs[input_index_[i]]];
      if (!a.reorder) {
        args.emplace(a.dnnl_arg, dnnl::memory(a.prim, engine_, user));
        continue;
      }
      // A sum post-op's operand goes into the destination itself.
      void* copy = a.dnnl_arg == kSumArg ? dst : scratch + a.scratch_offset;
      dnnl::memory from(a.user, engine_, user);
      dnnl::memory to(a.staged, engine_, copy);
      to_prim_[i].execute(stream, from, to);
      if (a.dnnl_arg != kSumArg) {
        args.emplace(a.dnnl_arg, dnnl::memory(a.prim, engine_, copy));
      }
    }
    args.emplace(DNNL_ARG_DST, dnnl::memory(plan_.dst.prim, engine_, dst));
    for (size_t i = 0; i < plan_.more_outputs.size(); ++i) {
      const PlanArg& a = plan_.more_outputs[i];
      args.emplace(a.dnnl_arg,
                   dnnl::memory(a.prim, engine_, f.ptr[outputs[1 + i]]));
    }
    if (plan_.scratchpad_bytes > 0) {
      args.emplace(DNNL_ARG_SCRATCHPAD,
                   dnnl::memory(plan_.scratchpad, engine_, scratch));
    }
    plan_.primitive.execute(stream, args);
    if (plan_.dst.reorder) {
      dnnl::memory from(plan_.dst.staged, engine_, dst);
      dnnl::memory to(plan_.dst.user, engine_, f.ptr[outputs[0]]);
      from_prim_.execute(stream, from, to);
    }
    stream.wait();
  } catch (const dnnl::error& e) {
    return absl::InternalError(
        absl::StrCat("oneDNN ", plan_.impl, " failed: ", e.what()));
  }
  return absl::OkStatus();
}

}  // namespace plexa::onednn
