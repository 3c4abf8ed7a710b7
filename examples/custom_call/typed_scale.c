/* libplexa_example_typed_scale.so: a typed custom-call target (api_version
 * 1, the ABI 1.2 call frame), the example of docs/abi.md "The typed call
 * frame". Register it with PLX_CustomCall_Register (api_version 1) and call
 * it as
 *
 *   y = f32[8] custom-call(x), custom_call_target="my_scale",
 *       api_version=API_VERSION_TYPED_FFI, backend_config={scale = 2.5 : f32}
 *
 * y = x * scale, through 64-byte aligned scratch memory; logs "scaled". */
#include <string.h>

#include "plexa/plexa_c_api.h"

__attribute__((visibility("default"))) int32_t my_scale(PLX_CallFrame* f) {
  double scale = 0;
  size_t i, n = 1, d;
  float* scratch;
  if (f->struct_size < PLX_CallFrame_STRUCT_SIZE) {
    f->error_message = "my_scale needs a 1.2 call frame";
    return 1; /* INTERNAL: a pre-1.2 frame has no error_code */
  }
  for (i = 0; i < f->num_attributes; ++i) {
    if (strcmp(f->attributes[i].name, "scale") == 0 &&
        f->attributes[i].kind == PLX_Attribute_DOUBLE) {
      scale = f->attributes[i].double_value;
    }
  }
  if (scale == 0 || f->num_args != 1 ||
      f->args[0].element_type != PLX_Type_F32) {
    f->error_code = PLX_Error_Code_INVALID_ARGUMENT;
    f->error_message = "my_scale: want one f32 array and scale != 0";
    return 1;
  }
  for (d = 0; d < f->args[0].num_dims; ++d) n *= (size_t)f->args[0].dims[d];
  scratch = f->api->allocate_scratch(f, n * sizeof(float), 64);
  if (scratch == NULL) { /* the plugin logged why */
    f->error_code = PLX_Error_Code_RESOURCE_EXHAUSTED;
    f->error_message = "my_scale: no scratch memory";
    return 1;
  }
  for (i = 0; i < n; ++i) {
    scratch[i] = (float)scale * ((const float*)f->args[0].data)[i];
  }
  memcpy(f->results[0].data, scratch, n * sizeof(float));
  f->api->log(f, PLX_LogSeverity_INFO, "scaled");
  return 0;
}
