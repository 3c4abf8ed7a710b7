/* libplexa_abi_typed_custom_calls_v1_1.so: a typed custom-call target
 * (api_version 1) built as strict C11 against the frozen 1.1 header
 * (tests/abi/frozen/v1_1), whose PLX_CallFrame ends at error_message. A 1.2
 * plugin passes a bigger frame; this target reads only what it knows.
 *
 *   plx_test_scale_v1_1: f32[n] -> f32[n]   out[i] = k * in[i], k the
 *       backend_config read as a decimal integer; fails (INTERNAL, as a
 *       1.1 target cannot say more) with "no factor" when k is 0 or the
 *       frame is smaller than the 1.1 one.
 */
#include <stdint.h>
#include <stdlib.h>

#include "plexa/plexa_c_api.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int32_t plx_test_scale_v1_1(PLX_CallFrame* f) {
  char config[32];
  size_t i, n = 1, len;
  long k;
  const float* in;
  float* out;
  if (f->struct_size < PLX_CallFrame_STRUCT_SIZE || f->num_args != 1 ||
      f->num_results != 1 || f->args[0].element_type != PLX_Type_F32) {
    f->error_message = "plx_test_scale_v1_1: not the frame it expects";
    return 1;
  }
  len = f->backend_config_size < sizeof config - 1 ? f->backend_config_size
                                                   : sizeof config - 1;
  for (i = 0; i < len; ++i) config[i] = f->backend_config[i];
  config[len] = '\0';
  k = strtol(config, NULL, 10);
  if (k == 0) {
    f->error_message = "plx_test_scale_v1_1: no factor";
    return 2;
  }
  for (i = 0; i < f->args[0].num_dims; ++i) n *= (size_t)f->args[0].dims[i];
  in = (const float*)f->args[0].data;
  out = (float*)f->results[0].data;
  for (i = 0; i < n; ++i) out[i] = (float)k * in[i];
  return 0;
}
