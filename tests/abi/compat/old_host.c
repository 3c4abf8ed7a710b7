/* A host written in plain C with its own dlopen loader, against a frozen
 * header and nothing else from Plexa: what an application built against an
 * older (or newer) ABI minor ships.
 *
 * Built twice (tests/abi/CMakeLists.txt):
 *   - against tests/abi/frozen/v1_0        -> plexa_abi_old_host (1.0);
 *   - against tests/abi/compat/future_v1_4 -> plexa_abi_host_v1_4, which
 *     knows PLX_Plugin_Ping and calls it only if PLX_API_HAS_SLOT says the
 *     plugin's table has it, and chains 1.4's PLX_PriorityExtension on
 *     Execute (an extension type older plugins do not know).
 *
 *   old_host PLUGIN.so [--expect-minor=N] [--expect-ping | --expect-no-ping]
 *            [--no-run]
 *
 * Loads PLUGIN, checks its version and table, reads its attributes and,
 * unless --no-run, compiles an hlo-text program (f32[4] x + y), runs it
 * and checks the numbers. Exits 0 when every check passes.
 */
#include <dlfcn.h>
#include <plexa/plexa_c_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const PLX_Api* api;

/* Prints and destroys `e`; returns 1 if there was an error. */
static int Failed(PLX_Error* e, const char* what) {
  PLX_Error_Message_Args m;
  PLX_Error_Destroy_Args d;
  if (e == NULL) return 0;
  memset(&m, 0, sizeof(m));
  m.struct_size = PLX_Error_Message_Args_STRUCT_SIZE;
  m.error = e;
  api->PLX_Error_Message(&m);
  fprintf(stderr, "old_host: %s failed: %.*s\n", what, (int)m.message_size,
          m.message);
  memset(&d, 0, sizeof(d));
  d.struct_size = PLX_Error_Destroy_Args_STRUCT_SIZE;
  d.error = e;
  api->PLX_Error_Destroy(&d);
  return 1;
}

#define CALL(slot, args)                             \
  do {                                               \
    (args).struct_size = slot##_Args_STRUCT_SIZE;    \
    if (Failed(api->slot(&(args)), #slot)) return 1; \
  } while (0)

static const char kProgram[] =
    "HloModule add4\n"
    "\n"
    "ENTRY main {\n"
    "  x = f32[4] parameter(0)\n"
    "  y = f32[4] parameter(1)\n"
    "  ROOT sum = f32[4] add(x, y)\n"
    "}\n";

static int UploadF32x4(PLX_Client* client, const float* data,
                       PLX_Buffer** out) {
  static const int64_t dims[1] = {4};
  PLX_ArrayShape shape;
  PLX_Client_BufferFromHost_Args a;
  memset(&shape, 0, sizeof(shape));
  shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  shape.element_type = PLX_Type_F32;
  shape.dims = dims;
  shape.num_dims = 1;
  memset(&a, 0, sizeof(a));
  a.client = client;
  a.data = data;
  a.data_size = 4 * sizeof(float);
  a.shape = &shape;
  CALL(PLX_Client_BufferFromHost, a);
  *out = a.buffer;
  return 0;
}

static int RunProgram(void) {
  static const float x[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  static const float y[4] = {10.0f, 20.0f, 30.0f, 40.5f};
  static const float want[4] = {11.0f, 22.0f, 33.0f, 44.5f};
  float got[4] = {0, 0, 0, 0};
  PLX_Client_Create_Args create;
  PLX_Client_Compile_Args compile;
  PLX_Executable_Signature_Args sig;
  PLX_Executable_Execute_Args exec;
  PLX_Event_Await_Args await_args;
  PLX_Event_Destroy_Args event_destroy;
  PLX_Buffer_ToHost_Args to_host;
  PLX_Buffer_Destroy_Args buffer_destroy;
  PLX_Executable_Destroy_Args exe_destroy;
  PLX_Client_Destroy_Args client_destroy;
  PLX_Buffer* inputs[2] = {NULL, NULL};
  PLX_Buffer* const* arguments[1];
  PLX_Buffer* outputs_r0[1] = {NULL};
  PLX_Buffer** outputs[1];
  PLX_Event* events[1] = {NULL};
  int i;

  memset(&create, 0, sizeof(create));
  CALL(PLX_Client_Create, create);

  memset(&compile, 0, sizeof(compile));
  compile.client = create.client;
  compile.program = kProgram;
  compile.program_size = strlen(kProgram);
  compile.format = "hlo-text";
  compile.options = NULL;
  CALL(PLX_Client_Compile, compile);

  memset(&sig, 0, sizeof(sig));
  sig.executable = compile.executable;
  CALL(PLX_Executable_Signature, sig);
  if (sig.num_parameters != 2 || sig.num_outputs != 1 ||
      sig.outputs[0].element_type != PLX_Type_F32 ||
      sig.outputs[0].num_dims != 1 || sig.outputs[0].dims[0] != 4) {
    fprintf(stderr, "old_host: unexpected signature\n");
    return 1;
  }

  if (UploadF32x4(create.client, x, &inputs[0])) return 1;
  if (UploadF32x4(create.client, y, &inputs[1])) return 1;

  arguments[0] = inputs;
  outputs[0] = outputs_r0;
  memset(&exec, 0, sizeof(exec));
  exec.executable = compile.executable;
  exec.num_replicas = 1;
  exec.arguments = arguments;
  exec.num_arguments = 2;
  exec.outputs = outputs;
  exec.num_outputs = 1;
  exec.completion_events = events;
#if PLX_API_MINOR >= 4
  {
    /* A new extension type ignored by an older plugin: 1.4's scheduling
     * hint, chained on the call; a 1.0-1.2 plugin skips it and runs the
     * program as usual (the numbers are checked below). */
    static PLX_PriorityExtension priority;
    memset(&priority, 0, sizeof(priority));
    priority.struct_size = PLX_PriorityExtension_STRUCT_SIZE;
    priority.type = PLX_ExtensionType_PRIORITY;
    priority.priority = 7;
    exec.extension_start = (PLX_Extension*)&priority;
    printf("old_host: chaining a PLX_PriorityExtension (1.4) on Execute\n");
  }
#endif
  CALL(PLX_Executable_Execute, exec);

  memset(&await_args, 0, sizeof(await_args));
  await_args.event = events[0];
  CALL(PLX_Event_Await, await_args);
  memset(&event_destroy, 0, sizeof(event_destroy));
  event_destroy.event = events[0];
  CALL(PLX_Event_Destroy, event_destroy);

  memset(&to_host, 0, sizeof(to_host));
  to_host.buffer = outputs_r0[0];
  to_host.dst = got;
  to_host.dst_size = sizeof(got);
  CALL(PLX_Buffer_ToHost, to_host);
  for (i = 0; i < 4; ++i) {
    if (got[i] != want[i]) {
      fprintf(stderr, "old_host: sum[%d] = %g, expected %g\n", i, got[i],
              want[i]);
      return 1;
    }
  }

  memset(&buffer_destroy, 0, sizeof(buffer_destroy));
  buffer_destroy.buffer = outputs_r0[0];
  CALL(PLX_Buffer_Destroy, buffer_destroy);
  for (i = 0; i < 2; ++i) {
    buffer_destroy.buffer = inputs[i];
    CALL(PLX_Buffer_Destroy, buffer_destroy);
  }
  memset(&exe_destroy, 0, sizeof(exe_destroy));
  exe_destroy.executable = compile.executable;
  CALL(PLX_Executable_Destroy, exe_destroy);
  memset(&client_destroy, 0, sizeof(client_destroy));
  client_destroy.client = create.client;
  CALL(PLX_Client_Destroy, client_destroy);
  printf("old_host: ran the program: {11, 22, 33, 44.5}\n");
  return 0;
}

int main(int argc, char** argv) {
  const char* path;
  void* handle;
  void* sym;
  PLX_GetApi_Fn* get_api;
  PLX_Plugin_Initialize_Args init;
  PLX_Plugin_Attributes_Args attrs;
  int expect_minor = -1, expect_ping = -1, run = 1, i, status;

  if (argc < 2) {
    fprintf(stderr,
            "usage: %s PLUGIN.so [--expect-minor=N] "
            "[--expect-ping|--expect-no-ping] [--no-run]\n",
            argv[0]);
    return 2;
  }
  path = argv[1];
  for (i = 2; i < argc; ++i) {
    if (strncmp(argv[i], "--expect-minor=", 15) == 0) {
      expect_minor = atoi(argv[i] + 15);
    } else if (strcmp(argv[i], "--expect-ping") == 0) {
      expect_ping = 1;
    } else if (strcmp(argv[i], "--expect-no-ping") == 0) {
      expect_ping = 0;
    } else if (strcmp(argv[i], "--no-run") == 0) {
      run = 0;
    } else {
      fprintf(stderr, "unknown flag %s\n", argv[i]);
      return 2;
    }
  }
  printf("old_host: speaks ABI %d.%d\n", PLX_API_MAJOR, PLX_API_MINOR);

  /* The loader: the rules of docs/abi.md, nothing more. */
  handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL) {
    fprintf(stderr, "old_host: dlopen: %s\n", dlerror());
    return 1;
  }
  sym = dlsym(handle, PLX_GET_API_SYMBOL);
  /* ISO C has no object-to-function pointer cast; copy the bits. */
  memcpy(&get_api, &sym, sizeof(get_api));
  if (sym == NULL || (api = get_api()) == NULL) {
    fprintf(stderr, "old_host: %s has no PLX_GetApi table\n", path);
    return 1;
  }
  if (api->struct_size <
          offsetof(PLX_Api, version) + PLX_ApiVersion_STRUCT_SIZE ||
      api->version.major != PLX_API_MAJOR) {
    fprintf(stderr, "old_host: plugin ABI %d.%d, host %d.%d: refused\n",
            (int)api->version.major, (int)api->version.minor, PLX_API_MAJOR,
            PLX_API_MINOR);
    return 1;
  }
  if (api->struct_size < PLX_Api_STRUCT_SIZE_1_0) {
    fprintf(stderr, "old_host: table of %zu bytes is smaller than v1.0\n",
            api->struct_size);
    return 1;
  }
  printf("old_host: plugin table %zu bytes, ABI %d.%d\n", api->struct_size,
         (int)api->version.major, (int)api->version.minor);
  if (expect_minor >= 0 && api->version.minor != expect_minor) {
    fprintf(stderr, "old_host: expected minor %d\n", expect_minor);
    return 1;
  }

  memset(&init, 0, sizeof(init));
  CALL(PLX_Plugin_Initialize, init);
  memset(&attrs, 0, sizeof(attrs));
  CALL(PLX_Plugin_Attributes, attrs);
  printf("old_host: plugin '%s' by '%s', platform '%s', ABI %d.%d\n",
         attrs.name, attrs.vendor, attrs.platform, (int)attrs.abi_major,
         (int)attrs.abi_minor);
  if (attrs.abi_major != api->version.major ||
      attrs.abi_minor != api->version.minor) {
    fprintf(stderr, "old_host: attributes and table disagree on the version\n");
    return 1;
  }

#if PLX_API_MINOR >= 4
  /* A field added in 1.4: a 1.0 plugin does not know it and leaves it as
   * we set it (zero); a 1.4 plugin fills it. */
  if (attrs.abi_minor < 4 && attrs.build_id != NULL) {
    fprintf(stderr, "old_host: an older plugin wrote the 1.4 field build_id\n");
    return 1;
  }
  if (attrs.abi_minor >= 4 && attrs.build_id == NULL) {
    fprintf(stderr, "old_host: a 1.4 plugin left build_id empty\n");
    return 1;
  }
  /* A slot added in 1.4: call it only if the table has it. */
  if (PLX_API_HAS_SLOT(api, PLX_Plugin_Ping)) {
    PLX_Plugin_Ping_Args ping;
    memset(&ping, 0, sizeof(ping));
    ping.value = 41;
    CALL(PLX_Plugin_Ping, ping);
    printf("old_host: PLX_Plugin_Ping(41) = %lld\n", (long long)ping.reply);
    if (ping.reply != 42 || expect_ping == 0) {
      fprintf(stderr, "old_host: unexpected ping\n");
      return 1;
    }
  } else {
    printf("old_host: the plugin has no PLX_Plugin_Ping; not calling it\n");
    if (expect_ping == 1) {
      fprintf(stderr, "old_host: expected the plugin to have the slot\n");
      return 1;
    }
  }
#else
  if (expect_ping != -1) {
    fprintf(stderr, "old_host: a 1.0 host knows no ping\n");
    return 2;
  }
#endif

  status = run ? RunProgram() : 0;
  /* Unload only when done; the plugin's strings live until then. */
  dlclose(handle);
  return status;
}
