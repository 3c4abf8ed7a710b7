// scatter on the scatter kernel (runtime/scatter.h): one dense operand of a
// supported type, an update computation that is a combiner (assign or a
// reducer of its two parameters, reducer.h).
#ifndef PLEXA_PLUGINS_CPU_SCATTER_THUNK_H_
#define PLEXA_PLUGINS_CPU_SCATTER_THUNK_H_

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "core/ir/computation.h"
#include "core/ir/instruction.h"
#include "core/shape/index_util.h"
#include "core/shape/shape.h"
#include "core/shape/shape_util.h"
#include "plugins/cpu/cpu_thunk.h"
#include "plugins/cpu/runtime/scatter.h"

namespace plexa::cpu {

// scatter of one array whose update computation is a combiner
// (runtime/scatter.h): the operand is copied into the result, then the
// updates are applied to it in place, one window after the other in update
// order (as the evaluator does).
class ScatterThunk : public Thunk {
 public:
  // inputs: operand, indices, updates; outputs: the result. `desc`
  // describes the result's layout; `operand` may have another one.
  ScatterThunk(ScatterDesc desc, const Shape& operand)
      : desc_(std::move(desc)), bytes_(ShapeUtil::ByteSizeOf(operand)) {
    std::vector<int64_t> strides = IndexUtil::LayoutStrides(operand);
    if (strides == desc_.operand.strides) return;
    // Another layout: the copy is itself a scatter, assigning the whole
    // operand as one window at the origin (an empty index vector).
    ScatterDesc copy;
    copy.element_type = desc_.element_type;
    copy.combiner = ScatterCombiner::kAssign;
    copy.operand = desc_.operand;
    copy.index_type = ScatterType::kS32;
    copy.indices.dims = {0};
    copy.indices.strides = {1};
    copy.updates.dims = desc_.operand.dims;
    copy.updates.strides = std::move(strides);
    for (size_t d = 0; d < copy.operand.dims.size(); ++d) {
      copy.update_window_dims.push_back(static_cast<int64_t>(d));
    }
    copy.index_vector_dim = 0;
    relayout_ = std::move(copy);
  }
  absl::Status Run(Frame& f) const override;
  bool CanUpdateInPlace() const override { return !relayout_.has_value(); }

 private:
  ScatterDesc desc_;
  int64_t bytes_;
  std::optional<ScatterDesc> relayout_;
};

// The scatter kernel's type for `t`; nullopt for types it has no kernel for.
std::optional<ScatterType> ToScatterType(PrimitiveType t);

// The combiner an update computation applies to (current, update): its
// root is parameter(1) (assign) or a reducer of its two parameters in
// either order (`update_first` then says which comes first). Anything
// else: nullopt.
std::optional<ScatterCombiner> MatchScatterCombiner(const Computation& c,
                                                    bool* update_first);

// The runtime description of a single-operand scatter over dense arrays of
// supported types with a combiner, writing the result's layout; nullopt for
// anything else (the reference kernel runs those).
std::optional<ScatterDesc> MakeScatterDesc(const Instruction& h);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_SCATTER_THUNK_H_
