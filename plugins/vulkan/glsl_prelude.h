// The GLSL helper functions every generated shader starts with: f16/bf16
// conversions with round-to-nearest-even, XLA's integer division, shifts
// and NaN-propagating max/min, and the f32 functions whose GLSL builtins
// are too loose (Vulkan leaves exp, log, pow, tanh precision and edge cases
// to the implementation).
#ifndef PLEXA_PLUGINS_VULKAN_GLSL_PRELUDE_H_
#define PLEXA_PLUGINS_VULKAN_GLSL_PRELUDE_H_

#include <string>

namespace plexa::vulkan {

// `f64`: the double overloads; `i64`: the 64-bit integer ones; `frem`: the
// f32 remainder, which computes in double.
std::string GlslPrelude(bool f64, bool i64, bool frem);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_GLSL_PRELUDE_H_
