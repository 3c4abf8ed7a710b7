/* libplexa_abi_other_custom_calls.so: exports the same symbol as
 * examples/custom_call/custom_calls.c with another result, so a test can
 * tell which library a compiled program calls.
 *
 *   scale_f32_4:  f32[4] -> f32[4]   out[i] = 3 * in0[i]
 *                 (libplexa_example_custom_calls.so: 2 * in0[i])
 */
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void scale_f32_4(void* out, void** in) {
  const float* x = (const float*)in[0];
  float* y = (float*)out;
  int i;
  for (i = 0; i < 4; ++i) y[i] = 3.0f * x[i];
}
