// The 8- and 4-bit float types (F8E5M2 ... F8E8M0FNU, F4E2M1FN) on the
// device: one per byte in memory (as in the evaluator's literals), float in
// registers. Each type a shader uses gets its decoder (bits -> the exact
// float), encoder (float -> bits, ml_dtypes' non-saturating conversion as
// core/literal/float8.h describes it: one rounding to nearest even, the
// type's overflow value past its largest finite one, its NaN encodings)
// and the rounding of a float result to the type (encode, then decode).
#ifndef PLEXA_PLUGINS_VULKAN_GLSL_SMALL_FLOAT_H_
#define PLEXA_PLUGINS_VULKAN_GLSL_SMALL_FLOAT_H_

#include <string>

#include "core/shape/primitive_type.h"

namespace plexa::vulkan {

bool IsSmallFloat(PrimitiveType t);
// GLSL of sf_<name>_dec(uint), sf_<name>_enc(float) and sf_<name>_rnd(float)
// for one small float type.
std::string SmallFloatFunctions(PrimitiveType t);
// "sf_<name>_" + what ("dec", "enc", "rnd").
std::string SmallFloatFunction(PrimitiveType t, const char* what);

}  // namespace plexa::vulkan

#endif  // PLEXA_PLUGINS_VULKAN_GLSL_SMALL_FLOAT_H_
