/* A minimal plugin written in plain C against a frozen header, with no SDK:
 * what a third party who built against ABI v1.0 ships. It implements every
 * v1.0 slot: errors (its own PLX_Error), initialize, attributes, a client
 * with one device, device description, and NULL-accepting destroys; every
 * other call returns an UNIMPLEMENTED error naming the call.
 *
 * Built three ways (tests/abi/CMakeLists.txt):
 *   - against tests/abi/frozen/v1_0        -> an old 1.0 plugin;
 *   - against tests/abi/compat/future_v1_4 -> a newer 1.4 plugin that also
 *     fills PLX_Plugin_Ping and PLX_Plugin_Attributes_Args.build_id, and
 *     lists one memory per device of a kind 1.4 added
 *     (PLX_MemoryKind_DEVICE_SHARED), which older hosts do not know;
 *   - with -DOLD_PLUGIN_MAJOR=2            -> a plugin of another major;
 *   - with -DOLD_PLUGIN_CRASH_ON_NULL      -> a plugin that crashes on
 *     NULL args to PLX_Device_Describe (plexa test-plugin must survive it);
 *   - with -DOLD_PLUGIN_SHORT_TABLE or -DOLD_PLUGIN_EMPTY_SLOT -> broken
 *     1.0 plugins (a table shorter than v1.0, an empty v1.0 slot).
 */
#include <plexa/plexa_c_api.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef OLD_PLUGIN_MAJOR
#define OLD_PLUGIN_MAJOR PLX_API_MAJOR
#endif

struct PLX_Error {
  PLX_Error_Code code;
  char message[256];
};

struct PLX_Device {
  int64_t id;
};

#define OLD_CLIENT_MAGIC 0x4f4c4443 /* "OLDC" */
struct PLX_Client {
  uint32_t magic;
  PLX_Device device;
  PLX_Device* devices[1];
};

static PLX_Error* MakeError(PLX_Error_Code code, const char* fmt, ...) {
  va_list ap;
  PLX_Error* e = (PLX_Error*)calloc(1, sizeof(PLX_Error));
  if (e == NULL) return NULL; /* nothing better to do without memory */
  e->code = code;
  va_start(ap, fmt);
  vsnprintf(e->message, sizeof(e->message), fmt, ap);
  va_end(ap);
  return e;
}

/* args NULL or older than v1.0 -> INVALID_ARGUMENT naming the call. Only
 * the v1.0 size is required: a caller built against an older minor passes
 * a smaller struct than a newer header declares. */
#define CHECK_ARGS(fn, v1_size)                                             \
  do {                                                                      \
    if (args == NULL)                                                       \
      return MakeError(PLX_Error_Code_INVALID_ARGUMENT, "%s: args is NULL", \
                       fn);                                                 \
    if (args->struct_size < (v1_size) || args->struct_size > 65536)         \
      return MakeError(PLX_Error_Code_INVALID_ARGUMENT,                     \
                       "%s: struct_size %zu, need at least %zu", fn,        \
                       args->struct_size, (size_t)(v1_size));               \
  } while (0)

#define UNIMPLEMENTED(Name)                                             \
  __attribute__((unused)) static PLX_Error* Name(Name##_Args* args) {   \
    CHECK_ARGS(#Name, Name##_Args_STRUCT_SIZE_V1);                      \
    return MakeError(PLX_Error_Code_UNIMPLEMENTED,                      \
                     "%s: the old C test plugin does not implement it", \
                     #Name);                                            \
  }

/* v1.0 sizes of the args structs this file checks (identical in 1.0 and
 * 1.4 except PLX_Executable_Signature_Args, which 1.1 extends, and
 * PLX_Plugin_Attributes_Args, which 1.4 extends). */
#define PLX_Plugin_Attributes_Args_STRUCT_SIZE_V1 \
  PLX_STRUCT_SIZE(PLX_Plugin_Attributes_Args, num_attributes)
#define V1(Type) Type##_STRUCT_SIZE
#define PLX_Error_GetCode_Args_STRUCT_SIZE_V1 V1(PLX_Error_GetCode_Args)
#define PLX_Plugin_Initialize_Args_STRUCT_SIZE_V1 V1(PLX_Plugin_Initialize_Args)
#define PLX_Client_Create_Args_STRUCT_SIZE_V1 V1(PLX_Client_Create_Args)
#define PLX_Client_Destroy_Args_STRUCT_SIZE_V1 V1(PLX_Client_Destroy_Args)
#define PLX_Client_Devices_Args_STRUCT_SIZE_V1 V1(PLX_Client_Devices_Args)
#define PLX_Client_DefaultDeviceAssignment_Args_STRUCT_SIZE_V1 \
  V1(PLX_Client_DefaultDeviceAssignment_Args)
#define PLX_Device_Describe_Args_STRUCT_SIZE_V1 V1(PLX_Device_Describe_Args)
#define PLX_Event_Destroy_Args_STRUCT_SIZE_V1 V1(PLX_Event_Destroy_Args)
#define PLX_Event_IsReady_Args_STRUCT_SIZE_V1 V1(PLX_Event_IsReady_Args)
#define PLX_Event_Await_Args_STRUCT_SIZE_V1 V1(PLX_Event_Await_Args)
#define PLX_Event_OnReady_Args_STRUCT_SIZE_V1 V1(PLX_Event_OnReady_Args)
#ifdef PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0 /* grew in 1.2 */
#define PLX_Client_BufferFromHost_Args_STRUCT_SIZE_V1 \
  PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0
#else
#define PLX_Client_BufferFromHost_Args_STRUCT_SIZE_V1 \
  V1(PLX_Client_BufferFromHost_Args)
#endif
#define PLX_Buffer_Shape_Args_STRUCT_SIZE_V1 V1(PLX_Buffer_Shape_Args)
#ifdef PLX_Buffer_ToHost_Args_STRUCT_SIZE_1_0 /* grew in 1.2 */
#define PLX_Buffer_ToHost_Args_STRUCT_SIZE_V1 \
  PLX_Buffer_ToHost_Args_STRUCT_SIZE_1_0
#else
#define PLX_Buffer_ToHost_Args_STRUCT_SIZE_V1 V1(PLX_Buffer_ToHost_Args)
#endif
#ifdef PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_1_0 /* grew in 1.2 */
#define PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_V1 \
  PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_1_0
#else
#define PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_V1 \
  V1(PLX_Buffer_CopyToDevice_Args)
#endif
#define PLX_Buffer_Delete_Args_STRUCT_SIZE_V1 V1(PLX_Buffer_Delete_Args)
#define PLX_Buffer_IsDeleted_Args_STRUCT_SIZE_V1 V1(PLX_Buffer_IsDeleted_Args)
#define PLX_Buffer_Destroy_Args_STRUCT_SIZE_V1 V1(PLX_Buffer_Destroy_Args)
#define PLX_Client_Compile_Args_STRUCT_SIZE_V1 V1(PLX_Client_Compile_Args)
#define PLX_Executable_Destroy_Args_STRUCT_SIZE_V1 \
  V1(PLX_Executable_Destroy_Args)
#define PLX_Executable_Signature_Args_STRUCT_SIZE_V1 \
  PLX_STRUCT_SIZE(PLX_Executable_Signature_Args, num_replicas)
#ifdef PLX_Executable_Execute_Args_STRUCT_SIZE_1_0 /* grew in 1.2 */
#define PLX_Executable_Execute_Args_STRUCT_SIZE_V1 \
  PLX_Executable_Execute_Args_STRUCT_SIZE_1_0
#else
#define PLX_Executable_Execute_Args_STRUCT_SIZE_V1 \
  V1(PLX_Executable_Execute_Args)
#endif
#define PLX_Executable_Serialize_Args_STRUCT_SIZE_V1 \
  V1(PLX_Executable_Serialize_Args)
#define PLX_Client_DeserializeExecutable_Args_STRUCT_SIZE_V1 \
  V1(PLX_Client_DeserializeExecutable_Args)
#define PLX_CustomCall_Register_Args_STRUCT_SIZE_V1 \
  V1(PLX_CustomCall_Register_Args)

/* ------------------------------------------------------------ errors */

static void ErrorDestroy(PLX_Error_Destroy_Args* args) {
  if (args == NULL || args->struct_size < PLX_Error_Destroy_Args_STRUCT_SIZE)
    return;
  free(args->error);
}

static void ErrorMessage(PLX_Error_Message_Args* args) {
  if (args == NULL || args->struct_size < PLX_Error_Message_Args_STRUCT_SIZE)
    return;
  args->message = args->error ? args->error->message : "";
  args->message_size = args->error ? strlen(args->error->message) : 0;
}

static PLX_Error* ErrorGetCode(PLX_Error_GetCode_Args* args) {
  CHECK_ARGS("PLX_Error_GetCode", PLX_Error_GetCode_Args_STRUCT_SIZE_V1);
  if (args->error == NULL)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Error_GetCode: error is NULL");
  args->code = args->error->code;
  return NULL;
}

/* ------------------------------------------------------------ plugin */

static PLX_Error* PluginInitialize(PLX_Plugin_Initialize_Args* args) {
  CHECK_ARGS("PLX_Plugin_Initialize",
             PLX_Plugin_Initialize_Args_STRUCT_SIZE_V1);
  return NULL;
}

static PLX_Error* PluginAttributes(PLX_Plugin_Attributes_Args* args) {
  CHECK_ARGS("PLX_Plugin_Attributes",
             PLX_Plugin_Attributes_Args_STRUCT_SIZE_V1);
  args->name = "old-c";
  args->vendor = "Plexa tests";
  args->version = PLX_API_MINOR >= 4 ? "fixture-1.4" : "frozen-1.0";
  args->platform = "test";
  args->abi_major = OLD_PLUGIN_MAJOR;
  args->abi_minor = PLX_API_MINOR;
  args->formats = NULL;
  args->num_formats = 0;
  args->capabilities = 0;
  args->attributes = NULL;
  args->num_attributes = 0;
#if PLX_API_MINOR >= 4
  /* A 1.4 field: written only when the caller's struct covers it (a 1.0
   * host passes the smaller v1.0 struct). */
  if (args->struct_size >=
      PLX_STRUCT_SIZE(PLX_Plugin_Attributes_Args, build_id)) {
    args->build_id = "old-c built against 1.4";
  }
#endif
  return NULL;
}

/* ------------------------------------------------------------ client */

static PLX_Client* LiveClient(PLX_Client* c) {
  return c != NULL && c->magic == OLD_CLIENT_MAGIC ? c : NULL;
}

static PLX_Error* ClientCreate(PLX_Client_Create_Args* args) {
  PLX_Client* c;
  CHECK_ARGS("PLX_Client_Create", PLX_Client_Create_Args_STRUCT_SIZE_V1);
  if (args->num_options > 0) {
    const char* name = args->options && args->options[0].name
                           ? args->options[0].name
                           : "(null)";
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Client_Create: unknown option '%s' (the old C "
                     "test plugin has none)",
                     name);
  }
  c = (PLX_Client*)calloc(1, sizeof(PLX_Client));
  if (c == NULL)
    return MakeError(PLX_Error_Code_RESOURCE_EXHAUSTED,
                     "PLX_Client_Create: out of memory");
  c->magic = OLD_CLIENT_MAGIC;
  c->device.id = 0;
  c->devices[0] = &c->device;
  args->client = c;
  return NULL;
}

static PLX_Error* ClientDestroy(PLX_Client_Destroy_Args* args) {
  CHECK_ARGS("PLX_Client_Destroy", PLX_Client_Destroy_Args_STRUCT_SIZE_V1);
  if (args->client == NULL) return NULL;
  if (LiveClient(args->client) == NULL)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Client_Destroy: client is not a live client");
  args->client->magic = 0;
  free(args->client);
  return NULL;
}

static PLX_Error* ClientDevices(PLX_Client_Devices_Args* args) {
  CHECK_ARGS("PLX_Client_Devices", PLX_Client_Devices_Args_STRUCT_SIZE_V1);
  if (LiveClient(args->client) == NULL)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Client_Devices: client is not a live client");
  args->devices = args->client->devices;
  args->num_devices = 1;
  return NULL;
}

static PLX_Error* ClientDefaultDeviceAssignment(
    PLX_Client_DefaultDeviceAssignment_Args* args) {
  int64_t r;
  CHECK_ARGS("PLX_Client_DefaultDeviceAssignment",
             PLX_Client_DefaultDeviceAssignment_Args_STRUCT_SIZE_V1);
  if (LiveClient(args->client) == NULL || args->device_ids == NULL ||
      args->num_replicas < 1)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Client_DefaultDeviceAssignment: bad arguments");
  for (r = 0; r < args->num_replicas; ++r) args->device_ids[r] = 0;
  return NULL;
}

static PLX_Error* DeviceDescribe(PLX_Device_Describe_Args* args) {
#ifdef OLD_PLUGIN_CRASH_ON_NULL
  /* A broken plugin for `plexa test-plugin`'s crash isolation: it reads
   * its args before checking them, so NULL args crash it. */
  if (args->struct_size == 12345) return NULL;
#endif
  CHECK_ARGS("PLX_Device_Describe", PLX_Device_Describe_Args_STRUCT_SIZE_V1);
  if (args->device == NULL)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Device_Describe: device is NULL");
  args->id = args->device->id;
  args->kind = "test:old";
  args->memory_bytes = 0;
  args->attributes = NULL;
  args->num_attributes = 0;
  return NULL;
}

#if PLX_API_MINOR >= 4
/* ------------------------------------------------------------ memories:
 * one per device, of the kind 1.4 added. */
struct PLX_Memory {
  int64_t id;
};
static PLX_Memory g_memory = {0};
static PLX_Memory* const g_memories[1] = {&g_memory};

static PLX_Error* DeviceMemories(PLX_Device_Memories_Args* args) {
  CHECK_ARGS("PLX_Device_Memories", PLX_Device_Memories_Args_STRUCT_SIZE);
  if (args->device == NULL)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Device_Memories: device is NULL");
  args->memories = g_memories;
  args->num_memories = 1;
  return NULL;
}

static PLX_Error* MemoryDescribe(PLX_Memory_Describe_Args* args) {
  CHECK_ARGS("PLX_Memory_Describe", PLX_Memory_Describe_Args_STRUCT_SIZE);
  if (args->memory != &g_memory)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Memory_Describe: not a memory of this plugin");
  args->id = g_memory.id;
  args->kind = PLX_MemoryKind_DEVICE_SHARED;
  args->kind_name = "device_shared";
  args->device = NULL;
  return NULL;
}

static PLX_Error* MemoryStatistics(PLX_Memory_Statistics_Args* args) {
  CHECK_ARGS("PLX_Memory_Statistics", PLX_Memory_Statistics_Args_STRUCT_SIZE);
  if (args->memory != &g_memory)
    return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                     "PLX_Memory_Statistics: not a memory of this plugin");
  args->bytes_in_use = 0;
  args->peak_bytes_in_use = 0;
  args->bytes_limit = -1;
  args->num_allocs = 0;
  args->largest_alloc_size = 0;
  return NULL;
}

#define PLX_Client_PreferredLayout_Args_STRUCT_SIZE_V1 \
  V1(PLX_Client_PreferredLayout_Args)
#define PLX_Buffer_Layout_Args_STRUCT_SIZE_V1 V1(PLX_Buffer_Layout_Args)
UNIMPLEMENTED(PLX_Client_PreferredLayout)
UNIMPLEMENTED(PLX_Buffer_Layout)
#endif

/* ------------------------------------------------------------ events:
 * this plugin never creates one, so every non-NULL event is foreign. */

static PLX_Error* NotOurEvent(const char* fn) {
  return MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                   "%s: event was not created by the old C test plugin", fn);
}

static PLX_Error* EventDestroy(PLX_Event_Destroy_Args* args) {
  CHECK_ARGS("PLX_Event_Destroy", PLX_Event_Destroy_Args_STRUCT_SIZE_V1);
  return args->event == NULL ? NULL : NotOurEvent("PLX_Event_Destroy");
}
static PLX_Error* EventIsReady(PLX_Event_IsReady_Args* args) {
  CHECK_ARGS("PLX_Event_IsReady", PLX_Event_IsReady_Args_STRUCT_SIZE_V1);
  return NotOurEvent("PLX_Event_IsReady");
}
static PLX_Error* EventAwait(PLX_Event_Await_Args* args) {
  CHECK_ARGS("PLX_Event_Await", PLX_Event_Await_Args_STRUCT_SIZE_V1);
  return NotOurEvent("PLX_Event_Await");
}
static PLX_Error* EventOnReady(PLX_Event_OnReady_Args* args) {
  CHECK_ARGS("PLX_Event_OnReady", PLX_Event_OnReady_Args_STRUCT_SIZE_V1);
  return NotOurEvent("PLX_Event_OnReady");
}

/* ------------------------------------------------- the rest: unimplemented */

UNIMPLEMENTED(PLX_Client_BufferFromHost)
UNIMPLEMENTED(PLX_Buffer_Shape)
UNIMPLEMENTED(PLX_Buffer_ToHost)
UNIMPLEMENTED(PLX_Buffer_CopyToDevice)
UNIMPLEMENTED(PLX_Buffer_Delete)
UNIMPLEMENTED(PLX_Buffer_IsDeleted)
UNIMPLEMENTED(PLX_Client_Compile)
UNIMPLEMENTED(PLX_Executable_Signature)
UNIMPLEMENTED(PLX_Executable_Execute)
UNIMPLEMENTED(PLX_Executable_Serialize)
UNIMPLEMENTED(PLX_Client_DeserializeExecutable)
UNIMPLEMENTED(PLX_CustomCall_Register)

/* No buffer or executable can exist: destroying NULL is fine, anything
 * else is foreign. */
static PLX_Error* BufferDestroy(PLX_Buffer_Destroy_Args* args) {
  CHECK_ARGS("PLX_Buffer_Destroy", PLX_Buffer_Destroy_Args_STRUCT_SIZE_V1);
  return args->buffer == NULL
             ? NULL
             : MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                         "PLX_Buffer_Destroy: not a buffer of this plugin");
}
static PLX_Error* ExecutableDestroy(PLX_Executable_Destroy_Args* args) {
  CHECK_ARGS("PLX_Executable_Destroy",
             PLX_Executable_Destroy_Args_STRUCT_SIZE_V1);
  return args->executable == NULL
             ? NULL
             : MakeError(PLX_Error_Code_INVALID_ARGUMENT,
                         "PLX_Executable_Destroy: not an executable of this "
                         "plugin");
}

#if PLX_API_MINOR >= 4
static PLX_Error* PluginPing(PLX_Plugin_Ping_Args* args) {
  CHECK_ARGS("PLX_Plugin_Ping", PLX_Plugin_Ping_Args_STRUCT_SIZE);
  args->reply = args->value + 1;
  return NULL;
}
#endif

/* ------------------------------------------------------------- table */

/* Broken variants for the loader's refusal tests (docs/abi.md rule 4). */
#ifdef OLD_PLUGIN_SHORT_TABLE
#define OLD_PLUGIN_TABLE_SIZE (PLX_Api_STRUCT_SIZE_1_0 - sizeof(void*))
#else
#define OLD_PLUGIN_TABLE_SIZE PLX_Api_STRUCT_SIZE
#endif
#ifdef OLD_PLUGIN_EMPTY_SLOT
#define OLD_PLUGIN_BUFFER_SHAPE NULL
#else
#define OLD_PLUGIN_BUFFER_SHAPE PLX_Buffer_Shape
#endif

static const PLX_Api kApi = {
    OLD_PLUGIN_TABLE_SIZE,
    NULL,
    {PLX_ApiVersion_STRUCT_SIZE, NULL, OLD_PLUGIN_MAJOR, PLX_API_MINOR},
    ErrorDestroy,
    ErrorMessage,
    ErrorGetCode,
    PluginInitialize,
    PluginAttributes,
    ClientCreate,
    ClientDestroy,
    ClientDevices,
    ClientDefaultDeviceAssignment,
    DeviceDescribe,
    EventDestroy,
    EventIsReady,
    EventAwait,
    EventOnReady,
    PLX_Client_BufferFromHost,
    OLD_PLUGIN_BUFFER_SHAPE,
    PLX_Buffer_ToHost,
    PLX_Buffer_CopyToDevice,
    PLX_Buffer_Delete,
    PLX_Buffer_IsDeleted,
    BufferDestroy,
    PLX_Client_Compile,
    ExecutableDestroy,
    PLX_Executable_Signature,
    PLX_Executable_Execute,
    PLX_Executable_Serialize,
    PLX_Client_DeserializeExecutable,
    PLX_CustomCall_Register,
#if PLX_API_MINOR >= 2
    NULL, /* PLX_Executable_Statistics (1.2): not provided */
    NULL, /* PLX_Buffer_ReadyEvent (1.2): not provided */
    NULL, /* PLX_Client_CreateUserEvent (1.2): not provided */
    NULL, /* PLX_Event_Set (1.2): not provided */
#endif
#if PLX_API_MINOR >= 4
    DeviceMemories,
    MemoryDescribe,
    MemoryStatistics,
    PLX_Client_PreferredLayout,
    PLX_Buffer_Layout,
    PluginPing,
#endif
};

PLX_EXPORT const PLX_Api* PLX_GetApi(void) { return &kApi; }
