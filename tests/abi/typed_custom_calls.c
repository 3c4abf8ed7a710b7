/* libplexa_abi_typed_custom_calls.so: typed custom-call targets (api_version
 * 1) built as strict C11 against the current header, reading the ABI 1.2
 * call frame. custom_call_test.cc loads them with dlopen and registers them
 * with PLX_CustomCall_Register. Each checks what it is given and fails with
 * a message naming the first thing that is not as expected.
 *
 *   plx_test_check_attributes: f32[4] -> f32[4]
 *       The attributes must be exactly (sorted by name)
 *         dims  = array<i64: 1, 2>     fs  = array<f32: 1.5, 2.0>
 *         eps   = 1.0e-05 : f32        idx = 3 : index
 *         flag  = true                 n   = 4 : i32
 *         name  = "x"                  u   = 7 : ui8
 *       (eps as the f32 nearest 1e-5, widened); otherwise INVALID_ARGUMENT
 *       naming the attribute. out[i] = n * in[i] + dims[1] * fs[1] + u +
 *       idx + flag = 4 * in[i] + 15.
 *   plx_test_transpose_2d: f32[a,b] -> f32[b,a], any dimension orders.
 *       Attributes arg_layout and result_layout (array<i64>) are the
 *       minor_to_major the frame must report for the argument and the
 *       result. Copies the argument into 64-byte aligned scratch memory in
 *       row-major order, then writes out[j][i] = in[i][j] from it.
 *   plx_test_log_and_fail: f32[4] -> f32[4]
 *       Logs "hello from the target" (INFO) and "the result is a copy"
 *       (WARNING), copies in to out; with attribute fail = true it then
 *       fails: error_code INVALID_ARGUMENT, message "fail was requested".
 *   plx_test_bad_scratch: f32[4] -> f32[4]
 *       Asks for scratch with alignment 3 and for SIZE_MAX / 2 bytes; both
 *       must be NULL (the plugin logs why), else it fails. Copies in to out.
 *   plx_test_platform: f32[4] -> f32[4]
 *       Fails with the platform in its message (error_code NOT_FOUND) unless
 *       the platform is the backend_config's attribute `platform` and the
 *       stream is NULL; copies in to out otherwise.
 */
#include <stdint.h>
#include <string.h>

#include "plexa/plexa_c_api.h"

#define EXPORT __attribute__((visibility("default")))

static const PLX_Attribute* Find(const PLX_CallFrame* f, const char* name) {
  size_t i;
  for (i = 0; i < f->num_attributes; ++i) {
    if (strcmp(f->attributes[i].name, name) == 0) return &f->attributes[i];
  }
  return NULL;
}

static int32_t Fail(PLX_CallFrame* f, int32_t code, const char* message) {
  f->error_code = code;
  f->error_message = message;
  return 1;
}

static int64_t Elements(const PLX_CallFrameBuffer* b) {
  int64_t n = 1;
  size_t d;
  for (d = 0; d < b->num_dims; ++d) n *= b->dims[d];
  return n;
}

static int IsNewFrame(const PLX_CallFrame* f) {
  return f->struct_size >= PLX_CallFrame_STRUCT_SIZE && f->api != NULL &&
         f->api->struct_size >= PLX_CallFrameApi_STRUCT_SIZE;
}

static int OneF32ArgAndResult(const PLX_CallFrame* f) {
  return f->num_args == 1 && f->num_results == 1 &&
         f->args[0].element_type == PLX_Type_F32 &&
         f->results[0].element_type == PLX_Type_F32 &&
         Elements(&f->args[0]) == Elements(&f->results[0]);
}

EXPORT int32_t plx_test_check_attributes(PLX_CallFrame* f) {
  const PLX_Attribute *dims, *eps, *flag, *fs, *idx, *name, *n, *u;
  const float* in;
  float* out;
  int64_t i;
  size_t k;
  if (!IsNewFrame(f)) return Fail(f, 0, "not a 1.2 call frame");
  if (!OneF32ArgAndResult(f)) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "expected f32 in and out");
  }
  if (f->num_attributes != 8) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "expected 8 attributes");
  }
  /* Sorted by name (byte order: "n" before "name"). */
  for (k = 0; k + 1 < f->num_attributes; ++k) {
    if (strcmp(f->attributes[k].name, f->attributes[k + 1].name) >= 0) {
      return Fail(f, PLX_Error_Code_INVALID_ARGUMENT,
                  "attributes not sorted by name");
    }
    if (f->attributes[k].struct_size != PLX_Attribute_STRUCT_SIZE) {
      return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "attribute struct_size");
    }
  }
  dims = Find(f, "dims");
  eps = Find(f, "eps");
  flag = Find(f, "flag");
  fs = Find(f, "fs");
  idx = Find(f, "idx");
  name = Find(f, "name");
  n = Find(f, "n");
  u = Find(f, "u");
  if (!dims || dims->kind != PLX_Attribute_INT64_ARRAY ||
      dims->array_size != 2 || dims->int64_array[0] != 1 ||
      dims->int64_array[1] != 2) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "dims is not {1, 2}");
  }
  if (!eps || eps->kind != PLX_Attribute_DOUBLE ||
      eps->double_value != (double)1.0e-05f) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "eps is not 1.0e-05f");
  }
  if (!flag || flag->kind != PLX_Attribute_BOOL || flag->int64_value != 1) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "flag is not true");
  }
  if (!fs || fs->kind != PLX_Attribute_DOUBLE_ARRAY || fs->array_size != 2 ||
      fs->double_array[0] != 1.5 || fs->double_array[1] != 2.0) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "fs is not {1.5, 2.0}");
  }
  if (!idx || idx->kind != PLX_Attribute_INT64 || idx->int64_value != 3) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "idx is not 3");
  }
  if (!name || name->kind != PLX_Attribute_STRING || name->string_size != 1 ||
      strcmp(name->string_value, "x") != 0) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "name is not \"x\"");
  }
  if (!n || n->kind != PLX_Attribute_INT64 || n->int64_value != 4) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "n is not 4");
  }
  if (!u || u->kind != PLX_Attribute_INT64 || u->int64_value != 7) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "u is not 7");
  }
  in = (const float*)f->args[0].data;
  out = (float*)f->results[0].data;
  for (i = 0; i < Elements(&f->args[0]); ++i) {
    out[i] = (float)(n->int64_value * in[i] +
                     dims->int64_array[1] * fs->double_array[1] +
                     u->int64_value + idx->int64_value + flag->int64_value);
  }
  return 0;
}

/* The offset of element (i, j) of a 2-D array with minor_to_major m2m. */
static int64_t Offset2D(const int64_t* dims, const int64_t* m2m, int64_t i,
                        int64_t j) {
  if (m2m == NULL || m2m[0] == 1) return i * dims[1] + j; /* row-major */
  return i + j * dims[0];
}

static int SameLayout(const PLX_ArrayShape* s, const PLX_Attribute* want) {
  size_t d;
  if (want == NULL || want->kind != PLX_Attribute_INT64_ARRAY ||
      want->array_size != s->num_dims || s->minor_to_major == NULL) {
    return 0;
  }
  for (d = 0; d < s->num_dims; ++d) {
    if (s->minor_to_major[d] != want->int64_array[d]) return 0;
  }
  return 1;
}

EXPORT int32_t plx_test_transpose_2d(PLX_CallFrame* f) {
  const PLX_CallFrameBuffer *a, *r;
  const float* in;
  float *out, *scratch;
  int64_t i, j;
  if (!IsNewFrame(f)) return Fail(f, 0, "not a 1.2 call frame");
  if (!OneF32ArgAndResult(f) || f->args[0].num_dims != 2 ||
      f->results[0].num_dims != 2) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "expected 2-D f32");
  }
  a = &f->args[0];
  r = &f->results[0];
  if (f->arg_shapes[0].dims != a->dims || f->arg_shapes[0].num_dims != 2 ||
      f->arg_shapes[0].element_type != PLX_Type_F32 ||
      f->result_shapes[0].num_dims != 2) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT,
                "arg_shapes/result_shapes do not match the buffers");
  }
  if (!SameLayout(&f->arg_shapes[0], Find(f, "arg_layout"))) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT,
                "the argument's minor_to_major is not arg_layout");
  }
  if (!SameLayout(&f->result_shapes[0], Find(f, "result_layout"))) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT,
                "the result's minor_to_major is not result_layout");
  }
  if (r->dims[0] != a->dims[1] || r->dims[1] != a->dims[0]) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "not a transpose");
  }
  scratch = (float*)f->api->allocate_scratch(
      f, (size_t)Elements(a) * sizeof(float), 64);
  if (scratch == NULL || ((uintptr_t)scratch & 63) != 0) {
    return Fail(f, PLX_Error_Code_RESOURCE_EXHAUSTED, "no aligned scratch");
  }
  in = (const float*)a->data;
  out = (float*)r->data;
  for (i = 0; i < a->dims[0]; ++i) {
    for (j = 0; j < a->dims[1]; ++j) {
      scratch[i * a->dims[1] + j] =
          in[Offset2D(a->dims, f->arg_shapes[0].minor_to_major, i, j)];
    }
  }
  for (i = 0; i < a->dims[0]; ++i) {
    for (j = 0; j < a->dims[1]; ++j) {
      out[Offset2D(r->dims, f->result_shapes[0].minor_to_major, j, i)] =
          scratch[i * a->dims[1] + j];
    }
  }
  return 0;
}

static void Copy(const PLX_CallFrame* f) {
  memcpy(f->results[0].data, f->args[0].data,
         (size_t)Elements(&f->args[0]) * sizeof(float));
}

EXPORT int32_t plx_test_log_and_fail(PLX_CallFrame* f) {
  const PLX_Attribute* fail;
  if (!IsNewFrame(f)) return Fail(f, 0, "not a 1.2 call frame");
  if (!OneF32ArgAndResult(f)) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "expected f32 in and out");
  }
  f->api->log(f, PLX_LogSeverity_INFO, "hello from the target");
  f->api->log(f, PLX_LogSeverity_WARNING, "the result is a copy");
  Copy(f);
  fail = Find(f, "fail");
  if (fail != NULL && fail->kind == PLX_Attribute_BOOL && fail->int64_value) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "fail was requested");
  }
  return 0;
}

EXPORT int32_t plx_test_bad_scratch(PLX_CallFrame* f) {
  if (!IsNewFrame(f)) return Fail(f, 0, "not a 1.2 call frame");
  if (!OneF32ArgAndResult(f)) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "expected f32 in and out");
  }
  if (f->api->allocate_scratch(f, 16, 3) != NULL) {
    return Fail(f, PLX_Error_Code_INTERNAL, "alignment 3 was accepted");
  }
  if (f->api->allocate_scratch(f, SIZE_MAX / 2, 16) != NULL) {
    return Fail(f, PLX_Error_Code_INTERNAL, "SIZE_MAX / 2 bytes were given");
  }
  Copy(f);
  return 0;
}

EXPORT int32_t plx_test_platform(PLX_CallFrame* f) {
  static char message[128];
  const PLX_Attribute* want;
  if (!IsNewFrame(f)) return Fail(f, 0, "not a 1.2 call frame");
  if (!OneF32ArgAndResult(f)) {
    return Fail(f, PLX_Error_Code_INVALID_ARGUMENT, "expected f32 in and out");
  }
  want = Find(f, "platform");
  if (f->platform == NULL || want == NULL ||
      want->kind != PLX_Attribute_STRING ||
      strcmp(f->platform, want->string_value) != 0 || f->stream != NULL) {
    strcpy(message, "unexpected platform or stream: ");
    strncat(message, f->platform ? f->platform : "(NULL)", 64);
    return Fail(f, PLX_Error_Code_NOT_FOUND, message);
  }
  Copy(f);
  return 0;
}
