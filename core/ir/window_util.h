// The window of a reduce-window, select-and-scatter or convolution. XLA
// prints none for a scalar operand (`reduce-window(f32[] x, f32[] init),
// to_apply=add`): that is the empty window, which shape inference also
// takes (Window{}).
#ifndef PLEXA_CORE_IR_WINDOW_UTIL_H_
#define PLEXA_CORE_IR_WINDOW_UTIL_H_

#include "core/ir/attributes.h"
#include "core/ir/instruction.h"

namespace plexa {

inline const Window& WindowOf(const Instruction& instruction) {
  static const Window* const kEmpty = new Window();
  return instruction.attrs().window.has_value() ? *instruction.attrs().window
                                                : *kEmpty;
}

}  // namespace plexa

#endif  // PLEXA_CORE_IR_WINDOW_UTIL_H_
