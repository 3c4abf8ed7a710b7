/* libplexa_example_custom_calls.so: custom-call targets found by name with
 * dlsym, when a program's compile options list this library in
 * PLX_CompileOptions.custom_call_libraries. Nothing is registered:
 * exporting a C symbol with the target's name is enough. API version 0:
 * void target(void* out, void** in), row-major.
 *
 *   row_sums_f32_2x3:  f32[2,3] -> f32[2]           out[i] = sum_j in0[i][j]
 *   min_max_f32_4:     f32[4]   -> (f32[], f32[])   a tuple result: `out`
 *                      points at an array of two pointers, one per element.
 *   scale_f32_4:       f32[4]   -> f32[4]           out[i] = 2 * in0[i]
 */
#include <stddef.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT void row_sums_f32_2x3(void* out, void** in) {
  const float* x = (const float*)in[0];
  float* sums = (float*)out;
  int i, j;
  for (i = 0; i < 2; ++i) {
    sums[i] = 0.0f;
    for (j = 0; j < 3; ++j) sums[i] += x[i * 3 + j];
  }
}

EXPORT void min_max_f32_4(void* out, void** in) {
  const float* x = (const float*)in[0];
  float** results = (float**)out;
  float lo = x[0], hi = x[0];
  int i;
  for (i = 1; i < 4; ++i) {
    if (x[i] < lo) lo = x[i];
    if (x[i] > hi) hi = x[i];
  }
  *results[0] = lo;
  *results[1] = hi;
}

EXPORT void scale_f32_4(void* out, void** in) {
  const float* x = (const float*)in[0];
  float* y = (float*)out;
  int i;
  for (i = 0; i < 4; ++i) y[i] = 2.0f * x[i];
}
