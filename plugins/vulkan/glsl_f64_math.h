// Double-precision overloads of the functions GLSL has only for float, for
// the shaders that use them: sin, cos, tan, atan2, pow, cbrt, erf, and
// asin, acos, atan, asinh, acosh, atanh (glsl_prelude.cc's templates, which
// need atan2). exp, log, expm1, log1p, tanh, logistic, sinh, cosh and
// remainder are in every f64 shader's prelude. Computed with double
// arithmetic only: Vulkan makes +, -, * and / correctly rounded but gives
// fma only the precision of a multiply then an add (lavapipe's rounds
// twice), so exact products are Dekker's. Each is within a few ulps of the
// C library (docs/vulkan.md says how; the tests check 4).
#ifndef PLEXA_PLUGINS_VULKAN_GLSL_F64_MATH_H_
#define PLEXA_PLUGINS_VULKAN_GLSL_F64_MATH_H_

#include <string>

#include "absl/strings/string_view.h"

namespace plexa::vulkan {

// A double as a GLSL double literal that reads back exactly.
std::string GlslDouble(double v);

// The GLSL of the double overloads that `code` calls (xsin(, xcos(, xtan(,
// xatan2(, xpow(, xcbrt(, xerf(, xasin( ... xatanh(), with what they need. Goes
// after the prelude (it uses dpow2 and dexp_dd) and before `code`. Only what is
// called is included.
std::string F64MathFor(absl::string_view code);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_GLSL_F64_MATH_H_
