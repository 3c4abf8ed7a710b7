// The GLSL helper functions every generated shader starts with: f16/bf16
// conversions with round-to-nearest-even, XLA's integer division, shifts
// and NaN-propagating max/min, and the f32 functions whose GLSL builtins
// are too loose (Vulkan leaves exp, log, pow, tanh precision and edge cases
// to the implementation).
#ifndef PLEXA_PLUGINS_VULKAN_GLSL_PRELUDE_H_
#define PLEXA_PLUGINS_VULKAN_GLSL_PRELUDE_H_

#include <string>

namespace plexa::vulkan {

// `f64`: the double overloads; `i64`: the 64-bit integer ones.
std::string GlslPrelude(bool f64, bool i64);

// asin, acos, atan, asinh, acosh and atanh for float (in every prelude) or
// double (glsl_f64_math.cc's, after its atan2: only where called).
std::string GlslInverseFunctions(bool f64);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_GLSL_PRELUDE_H_
