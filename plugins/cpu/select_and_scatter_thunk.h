// select-and-scatter on the window-selection and scatter kernels
// (runtime/select_and_scatter.h, runtime/scatter.h).
#ifndef PLEXA_PLUGINS_CPU_SELECT_AND_SCATTER_THUNK_H_
#define PLEXA_PLUGINS_CPU_SELECT_AND_SCATTER_THUNK_H_

#include <cstdint>
#include <memory>
#include <utility>

#include "core/ir/instruction.h"
#include "plugins/cpu/cpu_thunk.h"
#include "plugins/cpu/runtime/scatter.h"
#include "plugins/cpu/runtime/select_and_scatter.h"

namespace plexa::cpu {

// select-and-scatter as a selection and a scatter: the result is filled with
// the init value, SelectInWindows picks each window's element, and the
// source is scattered into the picked positions with the matched combiner
// (one scatter position per source element, every operand dimension
// inserted, windows lying wholly in the padding skipped through index -1).
class SelectAndScatterThunk : public Thunk {
 public:
  // inputs: operand, source, init value; outputs: the result.
  SelectAndScatterThunk(WindowSelectDesc select, ScatterDesc scatter,
                        int64_t element_bytes)
      : select_(std::move(select)),
        scatter_(std::move(scatter)),
        element_bytes_(element_bytes) {
    sources_ = 1;
    for (int64_t n : select_.source_dims) sources_ *= n;
    elements_ = 1;
    for (int64_t n : scatter_.operand.dims) elements_ *= n;
  }
  absl::Status Run(Frame& f) const override;

 private:
  WindowSelectDesc select_;
  ScatterDesc scatter_;
  int64_t element_bytes_;
  int64_t sources_ = 1;
  int64_t elements_ = 1;
};

// A SelectAndScatterThunk for `h` when its window has no dilation or
// reversal, its operand, source, init value and result share one supported
// element type (not pred) in dense arrays, and both computations match;
// null otherwise (the reference kernel runs it).
std::unique_ptr<Thunk> MakeSelectAndScatter(const Instruction& h);

}  // namespace plexa::cpu

#endif  // PLEXA_PLUGINS_CPU_SELECT_AND_SCATTER_THUNK_H_
