/* clang-format off */
/* Plexa C ABI — the stable interface between a host and backend plugins.
 *
 * C11; includes only <stdint.h> <stddef.h> <stdbool.h>; compiles as C and
 * as C++. A plugin is a shared library exporting one symbol, PLX_GetApi,
 * that returns its function table (PLX_Api). The contract, the versioning
 * policy and a 50-line plugin are in docs/abi.md. In short:
 *
 *  - Every call is `PLX_Error* f(PLX_<Object>_<Verb>_Args* args)`. NULL
 *    means success; otherwise the caller owns the error and destroys it with
 *    PLX_Error_Destroy.
 *  - Every args struct begins with `struct_size` (set it to the
 *    PLX_<...>_Args_STRUCT_SIZE macro of the header you compiled against)
 *    and `extension_start` (a chain of PLX_Extension, or NULL). A callee
 *    reads only the fields the caller's struct_size covers; fields a newer
 *    header added are treated as zero when the caller is older. A callee
 *    writes outputs only inside the caller's struct_size.
 *  - The table begins with its own struct_size and the ABI version the
 *    plugin was built with. Slots are only ever appended. Before calling a
 *    slot added after v1.0, check PLX_API_HAS_SLOT(api, slot).
 *  - Same major = compatible in both directions (a newer host loads an
 *    older plugin and an older host loads a newer plugin). A different major
 *    is refused by the host's loader with a message naming both versions.
 *  - What each minor added is marked "\since 1.x"; 1.1 added host feed
 *    queues (PLX_FeedsExtension), tuple-shaped entry parameters and
 *    tokens in signatures (PLX_CAPABILITY_TUPLE_PARAMETERS) and
 *    PLX_Executable_Signature_Args.program_shape. 1.2 (frozen in
 *    tests/abi/frozen/v1_2) added element types (s4, u4, s2,
 *    u2, the f8 family, f4e2m1fn, f8e8m0fnu) and execution profiles
 *    (PLX_ProfilerExtension, PLX_CAPABILITY_PROFILER),
 *    PLX_Executable_Statistics, and asynchronous execution with explicit
 *    dependencies (PLX_Buffer_ReadyEvent, PLX_Client_CreateUserEvent,
 *    PLX_Event_Set, and wait_events on transfers and Execute: see
 *    "Asynchronous execution" below), memories and structured layouts
 *    (PLX_Device_Memories ... PLX_Buffer_Layout, and memory, byte_strides
 *    and device_layout on PLX_Client_BufferFromHost_Args), a richer typed
 *    call frame (platform, stream, layouts, typed attributes, logging,
 *    scratch, error codes), the client's log (PLX_LoggerExtension), and
 *    extension tables on PLX_Api.extension_start (PLX_ApiExtension).
 *    1.3 added SPMD partitions: PLX_CompileOptions.num_partitions,
 *    PLX_Executable_Signature_Args.num_partitions and
 *    PLX_CAPABILITY_PARTITIONS; an execution then runs on num_replicas x
 *    num_partitions devices (see Execute).
 *  - Nothing throws or aborts across this boundary: bad input (NULL, a wrong
 *    struct_size, a mismatched size) is an error with a message.
 *  - "Thread-safe" below means: may be called concurrently from several
 *    threads on the same objects. Destroy calls are never thread-safe with
 *    respect to other uses of the same object. Destroy functions accept NULL.
 */
#ifndef PLEXA_C_API_H_
#define PLEXA_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PLX_API_MAJOR 1
#define PLX_API_MINOR 3

#if defined(_WIN32)
#define PLX_EXPORT __declspec(dllexport)
#else
#define PLX_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Size of a struct up to and including `last_field`: what a caller built
 * against this header puts in struct_size. */
#define PLX_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

/* ---------------------------------------------------------------- Basics */

/* absl's canonical status codes. */
typedef enum {
  PLX_Error_Code_OK = 0,
  PLX_Error_Code_CANCELLED = 1,
  PLX_Error_Code_UNKNOWN = 2,
  PLX_Error_Code_INVALID_ARGUMENT = 3,
  PLX_Error_Code_DEADLINE_EXCEEDED = 4,
  PLX_Error_Code_NOT_FOUND = 5,
  PLX_Error_Code_ALREADY_EXISTS = 6,
  PLX_Error_Code_PERMISSION_DENIED = 7,
  PLX_Error_Code_RESOURCE_EXHAUSTED = 8,
  PLX_Error_Code_FAILED_PRECONDITION = 9,
  PLX_Error_Code_ABORTED = 10,
  PLX_Error_Code_OUT_OF_RANGE = 11,
  PLX_Error_Code_UNIMPLEMENTED = 12,
  PLX_Error_Code_INTERNAL = 13,
  PLX_Error_Code_UNAVAILABLE = 14,
  PLX_Error_Code_DATA_LOSS = 15,
  PLX_Error_Code_UNAUTHENTICATED = 16
} PLX_Error_Code;

/* Element types; the numbering is part of the ABI (it is Plexa's own, not
 * XLA's PrimitiveType numbering). Sizes: PRED, S8, U8 and the 8-bit floats
 * 1 byte; S16, U16, F16, BF16 2; S32, U32, F32 4; S64, U64, F64, C64 8;
 * C128 16. The sub-byte types (\since 1.2) are packed in a dense buffer:
 * S4, U4 and F4E2M1FN two per byte, S2 and U2 four per byte, element i in
 * the bits (i % per_byte) * bits from the least significant end of byte
 * i / per_byte (XLA's packing); a buffer of n elements takes
 * ceil(n * bits / 8) bytes. A plugin or host that does not support a type
 * returns an error naming it (UNIMPLEMENTED), never misreads it; values
 * outside this list are INVALID_ARGUMENT. */
typedef enum {
  PLX_Type_INVALID = 0,
  PLX_Type_PRED = 1,
  PLX_Type_S8 = 2,
  PLX_Type_S16 = 3,
  PLX_Type_S32 = 4,
  PLX_Type_S64 = 5,
  PLX_Type_U8 = 6,
  PLX_Type_U16 = 7,
  PLX_Type_U32 = 8,
  PLX_Type_U64 = 9,
  PLX_Type_F16 = 10,
  PLX_Type_BF16 = 11,
  PLX_Type_F32 = 12,
  PLX_Type_F64 = 13,
  PLX_Type_C64 = 14,
  PLX_Type_C128 = 15,
  /* \since 1.2 */
  PLX_Type_S4 = 16,
  PLX_Type_U4 = 17,
  PLX_Type_S2 = 18,
  PLX_Type_U2 = 19,
  PLX_Type_F8E5M2 = 20,
  PLX_Type_F8E4M3FN = 21,
  PLX_Type_F8E4M3B11FNUZ = 22,
  PLX_Type_F8E5M2FNUZ = 23,
  PLX_Type_F8E4M3FNUZ = 24,
  PLX_Type_F8E4M3 = 25,
  PLX_Type_F8E3M4 = 26,
  PLX_Type_F4E2M1FN = 27,
  PLX_Type_F8E8M0FNU = 28
} PLX_Type;

/* Opaque objects. */
typedef struct PLX_Error PLX_Error;
typedef struct PLX_Client PLX_Client;
typedef struct PLX_Device PLX_Device;
typedef struct PLX_Buffer PLX_Buffer;
typedef struct PLX_Executable PLX_Executable;
typedef struct PLX_Event PLX_Event;
typedef struct PLX_Memory PLX_Memory; /* \since 1.2 */

/* Extensions: a singly linked chain of structs that each begin with this
 * header. A callee ignores extension types it does not know. */
typedef struct PLX_Extension {
  size_t struct_size;
  int32_t type;
  struct PLX_Extension* next;
} PLX_Extension;

/* A key/value option or attribute. Exactly one value field is meaningful,
 * chosen by `kind`. Strings are NUL-terminated. */
typedef enum {
  PLX_Value_STRING = 0,
  PLX_Value_INT64 = 1,
  PLX_Value_BOOL = 2,
  PLX_Value_FLOAT = 3
} PLX_ValueKind;

/* Arrays of structs. PLX_NamedValue, PLX_ArrayShape, PLX_CallFrameBuffer
 * and (\since 1.2) PLX_Attribute travel as arrays with only a count (`options`/`num_options`, ...): the
 * reader walks them at its own sizeof. These element structs are FROZEN:
 * their size and fields never change in major 1 (tests/abi checks the exact
 * sizes against the header that introduced each). A minor that needs more
 * per element adds a new struct and a new array field beside the old one;
 * their struct_size fields stay so that a reader can still reject garbage.
 * Every other struct is only ever passed by pointer and may grow at its end
 * (its struct_size says how much the caller knew). */

typedef struct PLX_NamedValue {
  size_t struct_size;
  const char* name;
  PLX_ValueKind kind;
  const char* string_value;
  int64_t int64_value;
  bool bool_value;
  double float_value;
} PLX_NamedValue;
#define PLX_NamedValue_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_NamedValue, float_value)

/* The shape of an array buffer. dims has num_dims entries. minor_to_major
 * has num_dims entries, or is NULL for the default row-major layout
 * {num_dims-1, ..., 0}. `layout` is the full layout in HLO text
 * ("{1,0:T(8,128)}") when the buffer's layout has more than a dimension
 * order (tiles, padding), else NULL. */
typedef struct PLX_ArrayShape {
  size_t struct_size;
  PLX_Type element_type;
  const int64_t* dims;
  size_t num_dims;
  const int64_t* minor_to_major;
  const char* layout;
} PLX_ArrayShape;
#define PLX_ArrayShape_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_ArrayShape, layout)

/* ---------------------------------------------------------------- Errors */

/* The two calls on an error return nothing: there is no error to report
 * about an error. Thread-safe. Accepts NULL. */
typedef struct PLX_Error_Destroy_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Error* error;
} PLX_Error_Destroy_Args;
#define PLX_Error_Destroy_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Error_Destroy_Args, error)
typedef void PLX_Error_Destroy_Fn(PLX_Error_Destroy_Args* args);

/* Thread-safe. `message` lives as long as the error; not NUL-terminated
 * necessarily: use message_size. */
typedef struct PLX_Error_Message_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  const PLX_Error* error;
  const char* message;  /* out */
  size_t message_size;  /* out */
} PLX_Error_Message_Args;
#define PLX_Error_Message_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Error_Message_Args, message_size)
typedef void PLX_Error_Message_Fn(PLX_Error_Message_Args* args);

/* Thread-safe. */
typedef struct PLX_Error_GetCode_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  const PLX_Error* error;
  PLX_Error_Code code; /* out */
} PLX_Error_GetCode_Args;
#define PLX_Error_GetCode_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Error_GetCode_Args, code)
typedef PLX_Error* PLX_Error_GetCode_Fn(PLX_Error_GetCode_Args* args);

/* ---------------------------------------------------------------- Plugin */

/* Initializes process-wide plugin state. Idempotent; thread-safe. Hosts
 * call it once after loading; every other call may assume it happened. */
typedef struct PLX_Plugin_Initialize_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
} PLX_Plugin_Initialize_Args;
#define PLX_Plugin_Initialize_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Plugin_Initialize_Args, extension_start)
typedef PLX_Error* PLX_Plugin_Initialize_Fn(PLX_Plugin_Initialize_Args* args);

/* Capability bits of PLX_Plugin_Attributes_Args.capabilities. */
#define PLX_CAPABILITY_SERIALIZE_EXECUTABLE ((uint64_t)1 << 0)
#define PLX_CAPABILITY_CUSTOM_CALL_ORIGINAL ((uint64_t)1 << 1)
#define PLX_CAPABILITY_CUSTOM_CALL_TYPED ((uint64_t)1 << 2)
#define PLX_CAPABILITY_REPLICAS ((uint64_t)1 << 3)
#define PLX_CAPABILITY_DEVICE_MEMORY_IS_HOST ((uint64_t)1 << 4)
#define PLX_CAPABILITY_ASYNC_TRANSFERS ((uint64_t)1 << 5)
/* \since 1.1: honours a PLX_FeedsExtension on PLX_Executable_Execute. */
#define PLX_CAPABILITY_FEEDS ((uint64_t)1 << 6)
/* \since 1.1: compiles programs whose entry parameters are tuples or
 * tokens, flattened as PLX_Executable_Signature_Args says. */
#define PLX_CAPABILITY_TUPLE_PARAMETERS ((uint64_t)1 << 7)
/* \since 1.2: honours a PLX_ProfilerExtension on PLX_Executable_Execute. */
#define PLX_CAPABILITY_PROFILER ((uint64_t)1 << 8)
/* \since 1.3: compiles with PLX_CompileOptions.num_partitions > 1 (SPMD
 * partitions); a host asks no other plugin for more than one. */
#define PLX_CAPABILITY_PARTITIONS ((uint64_t)1 << 9)

/* Thread-safe. Every string output lives as long as the plugin is loaded.
 * `formats` lists the program formats PLX_Client_Compile accepts
 * ("plexa-module", "hlo-text"). */
typedef struct PLX_Plugin_Attributes_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  const char* name;          /* out: "reference" */
  const char* vendor;        /* out */
  const char* version;       /* out: the plugin's own version, free form */
  const char* platform;      /* out: "host", "cpu", "vulkan", ... */
  int32_t abi_major;         /* out: PLX_API_MAJOR the plugin was built with */
  int32_t abi_minor;         /* out */
  const char* const* formats; /* out */
  size_t num_formats;        /* out */
  uint64_t capabilities;     /* out: PLX_CAPABILITY_* bits */
  const PLX_NamedValue* attributes; /* out: anything else */
  size_t num_attributes;     /* out */
} PLX_Plugin_Attributes_Args;
#define PLX_Plugin_Attributes_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Plugin_Attributes_Args, num_attributes)
typedef PLX_Error* PLX_Plugin_Attributes_Fn(PLX_Plugin_Attributes_Args* args);

/* ---------------------------------------------------------------- Client */

/* Creates a client: the owner of devices, buffers and executables.
 * Thread-safe. `options` are plugin-specific ("num_devices", "num_threads");
 * an option the plugin does not know is an INVALID_ARGUMENT error naming
 * it. The client is owned by the caller: PLX_Client_Destroy. */
typedef struct PLX_Client_Create_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  const PLX_NamedValue* options;
  size_t num_options;
  PLX_Client* client; /* out */
} PLX_Client_Create_Args;
#define PLX_Client_Create_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_Create_Args, client)
typedef PLX_Error* PLX_Client_Create_Fn(PLX_Client_Create_Args* args);

/* Destroys a client. Every buffer and executable of the client must have
 * been destroyed first (FAILED_PRECONDITION otherwise, and nothing is
 * destroyed). \since 1.2: work still in flight (of buffers destroyed while
 * it was pending) is waited for before the call returns; user events of
 * the client that are not set yet are set first with CANCELLED, so that
 * work waiting on them fails instead of hanging. Accepts NULL. */
typedef struct PLX_Client_Destroy_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
} PLX_Client_Destroy_Args;
#define PLX_Client_Destroy_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_Destroy_Args, client)
typedef PLX_Error* PLX_Client_Destroy_Fn(PLX_Client_Destroy_Args* args);

/* Thread-safe. The array and the devices live as long as the client. */
typedef struct PLX_Client_Devices_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  PLX_Device* const* devices; /* out */
  size_t num_devices;         /* out */
} PLX_Client_Devices_Args;
#define PLX_Client_Devices_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_Devices_Args, num_devices)
typedef PLX_Error* PLX_Client_Devices_Fn(PLX_Client_Devices_Args* args);

/* The device each replica runs on by default. Thread-safe. The caller
 * provides `device_ids` with room for num_replicas entries. */
typedef struct PLX_Client_DefaultDeviceAssignment_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  int64_t num_replicas;
  int64_t* device_ids; /* out: num_replicas entries, caller-allocated */
} PLX_Client_DefaultDeviceAssignment_Args;
#define PLX_Client_DefaultDeviceAssignment_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_DefaultDeviceAssignment_Args, device_ids)
typedef PLX_Error* PLX_Client_DefaultDeviceAssignment_Fn(
    PLX_Client_DefaultDeviceAssignment_Args* args);

/* ---------------------------------------------------------------- Device */

/* Thread-safe. Strings and arrays live as long as the client. `kind` is
 * e.g. "cpu", "vulkan:llvmpipe". memory_bytes is 0 if unknown. */
typedef struct PLX_Device_Describe_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Device* device;
  int64_t id;              /* out: unique within the client, 0-based */
  const char* kind;        /* out */
  uint64_t memory_bytes;   /* out */
  const PLX_NamedValue* attributes; /* out */
  size_t num_attributes;   /* out */
} PLX_Device_Describe_Args;
#define PLX_Device_Describe_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Device_Describe_Args, num_attributes)
typedef PLX_Error* PLX_Device_Describe_Fn(PLX_Device_Describe_Args* args);

/* ---------------------------------------------------------------- Events */

/* Thread-safe. Accepts NULL. Destroying an event that is not ready does
 * not cancel the work it tracks. */
typedef struct PLX_Event_Destroy_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Event* event;
} PLX_Event_Destroy_Args;
#define PLX_Event_Destroy_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Event_Destroy_Args, event)
typedef PLX_Error* PLX_Event_Destroy_Fn(PLX_Event_Destroy_Args* args);

/* Thread-safe; does not block. */
typedef struct PLX_Event_IsReady_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Event* event;
  bool is_ready; /* out */
} PLX_Event_IsReady_Args;
#define PLX_Event_IsReady_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Event_IsReady_Args, is_ready)
typedef PLX_Error* PLX_Event_IsReady_Fn(PLX_Event_IsReady_Args* args);

/* Blocks until the event is ready. Returns the error the event carries (a
 * failed transfer or execution), owned by the caller; NULL on success.
 * Thread-safe. */
typedef struct PLX_Event_Await_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Event* event;
} PLX_Event_Await_Args;
#define PLX_Event_Await_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Event_Await_Args, event)
typedef PLX_Error* PLX_Event_Await_Fn(PLX_Event_Await_Args* args);

/* Calls callback(error, user_arg) once when the event is ready — at once,
 * on the calling thread, if it already is; otherwise on the thread that
 * makes it ready (a plugin thread, or for a user event the host thread
 * calling PLX_Event_Set). The callback owns `error` (NULL on success). It
 * must not block. Thread-safe: may be called from any thread, also
 * concurrently with the event becoming ready. */
typedef void PLX_Event_Callback(PLX_Error* error, void* user_arg);
typedef struct PLX_Event_OnReady_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Event* event;
  PLX_Event_Callback* callback;
  void* user_arg;
} PLX_Event_OnReady_Args;
#define PLX_Event_OnReady_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Event_OnReady_Args, user_arg)
typedef PLX_Error* PLX_Event_OnReady_Fn(PLX_Event_OnReady_Args* args);

/* ---------------------------------------------------------------- Buffers */

/* Copies host data into a new device buffer. `data` is laid out as
 * `shape` says (minor_to_major, or row-major when NULL) and holds
 * `data_size` bytes, which must equal what the shape needs
 * (INVALID_ARGUMENT naming both sizes otherwise). The host memory may be
 * reused once `done_with_host_buffer` is ready (the event is optional:
 * pass a NULL out-pointer by leaving it NULL; then the call returns only
 * after the copy, having waited for wait_events if need be). The new
 * buffer's ready event (PLX_Buffer_ReadyEvent) becomes ready with
 * done_with_host_buffer. Thread-safe. The buffer is owned by the caller:
 * PLX_Buffer_Destroy; the event too: PLX_Event_Destroy. */
typedef struct PLX_Client_BufferFromHost_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  PLX_Device* device; /* NULL: the client's first device */
  const void* data;
  size_t data_size;
  const PLX_ArrayShape* shape;
  PLX_Buffer* buffer;               /* out */
  PLX_Event** done_with_host_buffer; /* in: where to store the event, or NULL */
  /* \since 1.2: the copy starts once every one of these events is ready
   * (see "Asynchronous execution"); NULL/0: at once. */
  PLX_Event* const* wait_events;
  size_t num_wait_events;
  /* \since 1.2: where the buffer lives, one of `device`'s memories
   * (PLX_Device_Memories; `device` may then be NULL: the memory's
   * device). NULL: the device's default memory. A memory of another
   * device is INVALID_ARGUMENT. */
  PLX_Memory* memory;
  /* \since 1.2: the host array's strides in bytes, one per dimension (a
   * numpy view: any sign, 0 for a broadcast dimension), `data` pointing at
   * element [0, ..., 0]; data_size must then cover every element reached
   * (not the dense size), and shape->minor_to_major and shape->layout must
   * be NULL. NULL: the data is dense, laid out as `shape` says. Strides
   * of a dense array in some dimension order are taken as that layout
   * without a copy on the host; others are gathered first. */
  const int64_t* byte_strides;
  size_t num_byte_strides; /* == shape->num_dims when byte_strides is given */
  /* \since 1.2: the layout the buffer takes on the device (see
   * PLX_Layout; its memory_space must be 0). NULL: the host data's layout,
   * as before 1.2. A layout the plugin cannot hold is INVALID_ARGUMENT
   * naming it (PLX_Client_PreferredLayout tells what it likes). */
  const struct PLX_Layout* device_layout;
} PLX_Client_BufferFromHost_Args;
#define PLX_Client_BufferFromHost_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_BufferFromHost_Args, device_layout)
/* What a caller built against 1.0 or 1.1 passes (a callee accepts it). */
#define PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_Client_BufferFromHost_Args, done_with_host_buffer)
typedef PLX_Error* PLX_Client_BufferFromHost_Fn(
    PLX_Client_BufferFromHost_Args* args);

/* The buffer's shape. Thread-safe. The arrays live as long as the buffer. */
typedef struct PLX_Buffer_Shape_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
  PLX_ArrayShape shape; /* out (the plugin sets shape.struct_size) */
  PLX_Device* device;   /* out */
  size_t on_device_size; /* out: bytes the buffer occupies on the device */
} PLX_Buffer_Shape_Args;
#define PLX_Buffer_Shape_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_Shape_Args, on_device_size)
typedef PLX_Error* PLX_Buffer_Shape_Fn(PLX_Buffer_Shape_Args* args);

/* Copies the buffer to host memory in the default row-major layout, or in
 * `host_minor_to_major` when not NULL. With dst == NULL only `dst_size` is
 * set to the bytes needed. Otherwise dst_size must be at least that. The
 * copy is asynchronous when `event` is not NULL (dst must stay valid until
 * the event is ready; the call does not wait for a pending buffer, and the
 * event carries the error of the work that failed to produce it);
 * synchronous otherwise (the call waits for the buffer and wait_events and
 * returns such an error itself). Thread-safe. */
typedef struct PLX_Buffer_ToHost_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
  void* dst;
  size_t dst_size; /* in: capacity of dst; out (dst == NULL): bytes needed */
  const int64_t* host_minor_to_major;
  PLX_Event** event; /* in: where to store the event, or NULL */
  /* \since 1.2: the copy starts once the buffer and every one of these
   * events are ready; NULL/0: once the buffer is. */
  PLX_Event* const* wait_events;
  size_t num_wait_events;
} PLX_Buffer_ToHost_Args;
#define PLX_Buffer_ToHost_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_ToHost_Args, num_wait_events)
/* What a caller built against 1.0 or 1.1 passes (a callee accepts it). */
#define PLX_Buffer_ToHost_Args_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_Buffer_ToHost_Args, event)
typedef PLX_Error* PLX_Buffer_ToHost_Fn(PLX_Buffer_ToHost_Args* args);

/* Copies a buffer to another device of the same client. Thread-safe.
 * \since 1.2: the call does not wait for a pending source buffer (nor for
 * wait_events): dst_buffer is returned at once and its ready event
 * (PLX_Buffer_ReadyEvent) tells when the copy is done, or carries the
 * error of the work that failed to produce the source. */
typedef struct PLX_Buffer_CopyToDevice_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
  PLX_Device* dst_device;
  PLX_Buffer* dst_buffer; /* out, owned by the caller */
  /* \since 1.2: the copy starts once every one of these events is ready. */
  PLX_Event* const* wait_events;
  size_t num_wait_events;
} PLX_Buffer_CopyToDevice_Args;
#define PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_CopyToDevice_Args, num_wait_events)
/* What a caller built against 1.0 or 1.1 passes (a callee accepts it). */
#define PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_Buffer_CopyToDevice_Args, dst_buffer)
typedef PLX_Error* PLX_Buffer_CopyToDevice_Fn(
    PLX_Buffer_CopyToDevice_Args* args);

/* Frees the buffer's device memory; the handle stays valid and any later
 * use of its contents is a FAILED_PRECONDITION error ("deleted").
 * \since 1.2: when work that produces the buffer or reads it is still
 * pending (a transfer, a copy, an execution that was given it), the memory
 * is freed when that work completes; the work is not disturbed.
 * Idempotent. Not thread-safe with other uses of the same buffer. */
typedef struct PLX_Buffer_Delete_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
} PLX_Buffer_Delete_Args;
#define PLX_Buffer_Delete_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_Delete_Args, buffer)
typedef PLX_Error* PLX_Buffer_Delete_Fn(PLX_Buffer_Delete_Args* args);

typedef struct PLX_Buffer_IsDeleted_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
  bool is_deleted; /* out */
} PLX_Buffer_IsDeleted_Args;
#define PLX_Buffer_IsDeleted_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_IsDeleted_Args, is_deleted)
typedef PLX_Error* PLX_Buffer_IsDeleted_Fn(PLX_Buffer_IsDeleted_Args* args);

/* Frees the handle (and the memory, if not deleted: as PLX_Buffer_Delete,
 * after the pending work that produces or reads it). Accepts NULL. */
typedef struct PLX_Buffer_Destroy_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
} PLX_Buffer_Destroy_Args;
#define PLX_Buffer_Destroy_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_Destroy_Args, buffer)
typedef PLX_Error* PLX_Buffer_Destroy_Fn(PLX_Buffer_Destroy_Args* args);

/* ---------------------------------------------------------------- Compile */

/* Compile options: a C struct, not a proto. */
typedef struct PLX_CompileOptions {
  size_t struct_size;
  PLX_Extension* extension_start;
  int64_t num_replicas;          /* 0 is taken as 1 */
  const int64_t* device_assignment; /* num_replicas device ids, or NULL */
  int32_t optimization_level;    /* 0 (none) .. 3; default 2 */
  /* Shared libraries searched (in order, after the registry) for
   * custom-call targets; see PLX_CustomCall_Register. */
  const char* const* custom_call_libraries;
  size_t num_custom_call_libraries;
  const PLX_NamedValue* options; /* plugin-specific */
  size_t num_options;
  /* \since 1.3: the partitions of each replica (XLA's num_partitions: an
   * SPMD-partitioned program runs once per replica and partition); 0 is
   * taken as 1. device_assignment then holds num_replicas x num_partitions
   * ids, replica-major (the device of replica r, partition p at
   * r * num_partitions + p). A plugin that does not run partitions
   * returns UNIMPLEMENTED for more than one. A host asks for more than one
   * only of a plugin with PLX_CAPABILITY_PARTITIONS (one of an older minor
   * would not read the field). */
  int64_t num_partitions;
} PLX_CompileOptions;
#define PLX_CompileOptions_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_CompileOptions, num_partitions)
/* What a caller built against 1.0 to 1.2 passes (a callee accepts it). */
#define PLX_CompileOptions_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_CompileOptions, num_options)

/* Compiles a program. `format` is one of the plugin's formats
 * ("plexa-module": the serialized optimized module; "hlo-text"). Errors in
 * the program are INVALID_ARGUMENT naming what and where; an unresolved
 * custom-call target is NOT_FOUND naming it and the places searched.
 * Thread-safe. The executable is owned by the caller. */
typedef struct PLX_Client_Compile_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  const char* program;
  size_t program_size;
  const char* format;
  const PLX_CompileOptions* options; /* NULL: defaults */
  PLX_Executable* executable;        /* out */
} PLX_Client_Compile_Args;
#define PLX_Client_Compile_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_Compile_Args, executable)
typedef PLX_Error* PLX_Client_Compile_Fn(PLX_Client_Compile_Args* args);

/* ---------------------------------------------------------- Executables */

/* Accepts NULL. Not thread-safe with running executions of it. */
typedef struct PLX_Executable_Destroy_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Executable* executable;
} PLX_Executable_Destroy_Args;
#define PLX_Executable_Destroy_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Executable_Destroy_Args, executable)
typedef PLX_Error* PLX_Executable_Destroy_Fn(PLX_Executable_Destroy_Args* args);

/* Parameter and output signature. A tuple result is flattened: outputs are
 * its leaves in order. Thread-safe; arrays live as long as the
 * executable.
 * \since 1.1 (plugins with PLX_CAPABILITY_TUPLE_PARAMETERS): entry
 * parameters are flattened the same way (a tuple parameter contributes its
 * leaves, depth first, in parameter order), and token leaves, which hold no
 * data, are omitted from both lists (a program returning only a token has
 * no outputs). `program_shape` is the unflattened entry signature in HLO
 * text, "(f32[2]{0}, (s32[], token[])) -> (f32[2]{0}, token[])", from
 * which a host rebuilds tuples; NULL from a 1.0 plugin. */
typedef struct PLX_Executable_Signature_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Executable* executable;
  const PLX_ArrayShape* parameters; /* out */
  size_t num_parameters;            /* out */
  const PLX_ArrayShape* outputs;    /* out */
  size_t num_outputs;               /* out */
  int64_t num_replicas;             /* out */
  /* \since 1.1 */
  const char* program_shape;        /* out; lives as long as the executable */
  /* \since 1.3: the partitions of each replica (1 unless compiled with
   * more); Execute runs on num_replicas x num_partitions devices. */
  int64_t num_partitions;           /* out */
} PLX_Executable_Signature_Args;
#define PLX_Executable_Signature_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Executable_Signature_Args, num_partitions)
/* What a caller built against 1.1 or 1.2 passes (a callee accepts it). */
#define PLX_Executable_Signature_Args_STRUCT_SIZE_1_1 \
  PLX_STRUCT_SIZE(PLX_Executable_Signature_Args, program_shape)
/* What a caller built against 1.0 passes (a callee accepts it). */
#define PLX_Executable_Signature_Args_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_Executable_Signature_Args, num_replicas)
typedef PLX_Error* PLX_Executable_Signature_Fn(
    PLX_Executable_Signature_Args* args);

/* Runs the executable on num_replicas devices (the compile-time device
 * assignment). arguments[r] holds num_arguments buffers for replica r, on
 * that replica's device. \since 1.3: for an executable compiled with
 * num_partitions > 1, num_replicas here counts every device of the
 * execution, replicas x partitions, and index d (of arguments, outputs and
 * completion_events) is replica d / num_partitions, partition
 * d % num_partitions. outputs[r] is a caller-allocated array with room
 * for num_outputs (see Signature); the plugin fills it with new buffers
 * the caller owns. `donated` (optional) lists argument indices whose
 * buffers the executable may consume (reuse for its outputs): a donated
 * buffer is invalid from the moment this call returns successfully (\since
 * 1.2: any later use but Shape, IsDeleted, Delete and Destroy — ToHost,
 * CopyToDevice, ReadyEvent, an argument of another Execute — is a
 * FAILED_PRECONDITION naming it "donated"), and its memory belongs to the
 * execution. A buffer donated in one replica must not appear twice in that
 * replica's arguments. completion_events[r], when the array is given,
 * receives an event per replica, owned by the caller, and (\since 1.2) the
 * call does not wait for pending arguments or wait_events: the execution
 * starts inside the plugin once they are ready, and its outputs' ready
 * events tell when each is computed (or carry the error). When
 * completion_events is NULL, the call returns after completion and an
 * execution error is returned directly.
 * Thread-safe: several threads may execute one executable at once. */
typedef struct PLX_Executable_Execute_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Executable* executable;
  size_t num_replicas;
  PLX_Buffer* const* const* arguments; /* [num_replicas][num_arguments] */
  size_t num_arguments;
  const int64_t* donated;
  size_t num_donated;
  PLX_Buffer** const* outputs; /* [num_replicas][num_outputs], filled */
  size_t num_outputs;          /* capacity of each outputs[r] */
  PLX_Event** completion_events; /* [num_replicas] or NULL */
  /* \since 1.2: every replica starts once every one of these events (and
   * its arguments) is ready. */
  PLX_Event* const* wait_events;
  size_t num_wait_events;
} PLX_Executable_Execute_Args;
#define PLX_Executable_Execute_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Executable_Execute_Args, num_wait_events)
/* What a caller built against 1.0 or 1.1 passes (a callee accepts it). */
#define PLX_Executable_Execute_Args_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_Executable_Execute_Args, completion_events)
typedef PLX_Error* PLX_Executable_Execute_Fn(PLX_Executable_Execute_Args* args);

/* Serializes an executable (when the plugin has
 * PLX_CAPABILITY_SERIALIZE_EXECUTABLE; UNIMPLEMENTED otherwise). The bytes
 * are owned by the caller: call bytes_deleter(bytes_owner) when done. */
typedef struct PLX_Executable_Serialize_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Executable* executable;
  const char* bytes;               /* out */
  size_t bytes_size;               /* out */
  void* bytes_owner;               /* out */
  void (*bytes_deleter)(void* owner); /* out */
} PLX_Executable_Serialize_Args;
#define PLX_Executable_Serialize_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Executable_Serialize_Args, bytes_deleter)
typedef PLX_Error* PLX_Executable_Serialize_Fn(
    PLX_Executable_Serialize_Args* args);

/* Loads bytes from PLX_Executable_Serialize of the same plugin build.
 * Bytes from another plugin or version are INVALID_ARGUMENT. */
typedef struct PLX_Client_DeserializeExecutable_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  const char* bytes;
  size_t bytes_size;
  PLX_Executable* executable; /* out, owned by the caller */
} PLX_Client_DeserializeExecutable_Args;
#define PLX_Client_DeserializeExecutable_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_DeserializeExecutable_Args, executable)
typedef PLX_Error* PLX_Client_DeserializeExecutable_Fn(
    PLX_Client_DeserializeExecutable_Args* args);

/* \since 1.2 (check PLX_API_HAS_SLOT). What an executable costs and holds,
 * as far as the plugin knows; -1 (NULL for the fingerprint) where it does
 * not. The cost is a static estimate of the optimized program (Plexa's
 * plugins: core/ir/cost_analysis.h; a while loop's body counted once).
 * Thread-safe. */
typedef struct PLX_Executable_Statistics_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Executable* executable;
  /* out: identifies the compiled program (hex digits): equal for the same
   * program compiled the same way by the same plugin build. Lives as long
   * as the executable. */
  const char* fingerprint;
  double flops;                 /* out: floating-point operations */
  double transcendentals;       /* out: exp, log, tanh, ... */
  double bytes_accessed;        /* out: bytes read and written */
  int64_t argument_bytes;       /* out: the parameters' array leaves */
  int64_t output_bytes;         /* out: the results' array leaves */
  int64_t temp_bytes;           /* out: peak temporary memory of a run */
  int64_t generated_code_bytes; /* out: compiled kernels (0: none) */
} PLX_Executable_Statistics_Args;
#define PLX_Executable_Statistics_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Executable_Statistics_Args, generated_code_bytes)
typedef PLX_Error* PLX_Executable_Statistics_Fn(
    PLX_Executable_Statistics_Args* args);

/* ------------------------------------------------ Host feeds (1.1) */

/* Values of PLX_Extension.type. Types from 0x10000 to 0x1ffff are for
 * vendors (a plugin's own extensions, documented by the vendor); Plexa
 * never assigns them. */
typedef enum {
  PLX_ExtensionType_FEEDS = 1,    /* PLX_FeedsExtension, \since 1.1 */
  PLX_ExtensionType_PROFILER = 2, /* PLX_ProfilerExtension, \since 1.2 */
  PLX_ExtensionType_LOGGER = 3    /* PLX_LoggerExtension, \since 1.2 */
} PLX_ExtensionType;
#define PLX_ExtensionType_VENDOR_FIRST 0x10000
#define PLX_ExtensionType_VENDOR_LAST 0x1ffff

/* One infeed or outfeed, as the plugin hands it to the host's callback.
 * `leaves` are the array leaves of the data shape (depth first; tokens
 * omitted), each in the default row-major layout (minor_to_major NULL);
 * `data[i]` points at leaf i: exactly product(dims) * element size bytes
 * (pred: 1 byte, 0 or 1). For an infeed the callee fills data[i]; for an
 * outfeed it only reads it, during the call. */
typedef struct PLX_FeedArgs {
  size_t struct_size;
  int64_t replica;          /* replica index of the execution (\since 1.3,
                               with partitions: the device index d) */
  const char* instruction;  /* the infeed/outfeed instruction's name */
  const char* shape;        /* the data shape in HLO text: "(f32[2]{0}, s32[])" */
  const PLX_ArrayShape* leaves;
  size_t num_leaves;
  void* const* data;
  /* out: on failure, a NUL-terminated reason, valid until the callee is
   * called again on the same thread (the plugin copies it at once). */
  const char* error_message;
} PLX_FeedArgs;
#define PLX_FeedArgs_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_FeedArgs, error_message)
/* Returns 0 (PLX_Error_Code_OK) or a PLX_Error_Code: the execution then
 * fails with that code, naming the instruction and quoting error_message. */
typedef int32_t PLX_Feed_Callback(void* user_data, PLX_FeedArgs* args);

/* \since 1.1, plugins with PLX_CAPABILITY_FEEDS. Chained on
 * PLX_Executable_Execute_Args.extension_start, it connects the program's
 * infeed and outfeed instructions to the host: every infeed (with a
 * non-empty data shape) calls `infeed` once, every outfeed calls
 * `outfeed` once. Callbacks of one replica come in program order (the
 * token chain orders them), one at a time; different replicas may call
 * concurrently from different threads. A callback may block (waiting for
 * data) but must not call into the plugin for the same execution. The
 * struct is read during PLX_Executable_Execute; `user_data` and the
 * functions must stay usable until the execution completes. A program that
 * reaches an infeed (outfeed) without this extension, or with that
 * callback NULL, fails with FAILED_PRECONDITION naming the instruction.
 * Plugins without the capability ignore the extension. */
typedef struct PLX_FeedsExtension {
  size_t struct_size;           /* PLX_FeedsExtension_STRUCT_SIZE */
  int32_t type;                 /* PLX_ExtensionType_FEEDS */
  PLX_Extension* next;          /* the rest of the chain */
  void* user_data;
  PLX_Feed_Callback* infeed;    /* may be NULL */
  PLX_Feed_Callback* outfeed;   /* may be NULL */
} PLX_FeedsExtension;
#define PLX_FeedsExtension_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_FeedsExtension, outfeed)

/* ------------------------------------------------ Profiles (1.2) */

/* One timed step of an execution, as the plugin reports it: for the
 * toolkit's plugins (cpu, onednn) one per thunk — a fused kernel, a library
 * call, a control-flow instruction (whose body's steps are reported too,
 * inside its span). Strings are valid during the callback only. */
typedef struct PLX_ProfileEvent {
  size_t struct_size;   /* PLX_ProfileEvent_STRUCT_SIZE of the plugin */
  const char* name;     /* the instruction, NUL-terminated */
  const char* kind;     /* its opcode ("fusion", "dot", ...) or the
                           plugin's finer kind ("onednn.convolution") */
  int64_t replica;      /* replica index of the execution (\since 1.3,
                           with partitions: the device index d) */
  uint64_t thread_id;   /* the OS thread that ran it */
  int64_t begin_ns;     /* CLOCK_MONOTONIC, nanoseconds */
  int64_t end_ns;
} PLX_ProfileEvent;
#define PLX_ProfileEvent_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_ProfileEvent, end_ns)
typedef void PLX_Profile_Callback(void* user_data,
                                  const PLX_ProfileEvent* event);

/* \since 1.2, plugins with PLX_CAPABILITY_PROFILER. Chained on
 * PLX_Executable_Execute_Args.extension_start, it asks the plugin to report
 * every step of the execution to `callback`, as it completes. Callbacks
 * may come from several plugin threads at once (one per replica), so the
 * callee synchronizes; a callback must not block for long or call into the
 * plugin. `user_data` and `callback` must stay usable until the execution
 * completes. Plugins without the capability ignore the extension (the
 * execution runs, unprofiled). */
typedef struct PLX_ProfilerExtension {
  size_t struct_size;              /* PLX_ProfilerExtension_STRUCT_SIZE */
  int32_t type;                    /* PLX_ExtensionType_PROFILER */
  PLX_Extension* next;             /* the rest of the chain */
  void* user_data;
  PLX_Profile_Callback* callback;  /* not NULL */
} PLX_ProfilerExtension;
#define PLX_ProfilerExtension_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_ProfilerExtension, callback)

/* ------------------------------------ Asynchronous execution (1.2) */

/* \since 1.2 (check PLX_API_HAS_SLOT; the three slots come together).
 *
 * Every buffer has a ready event: ready when its contents are defined, or
 * carrying the error of the work that failed to produce them. Work on a
 * buffer (ToHost, CopyToDevice, Execute) waits for the ready events of the
 * buffers it reads and for the host's wait_events INSIDE the plugin: with
 * an event out-pointer (done_with_host_buffer, ToHost's event,
 * completion_events) or a buffer out (CopyToDevice), a call returns as
 * soon as the work is queued, so the output of a pending execution can be
 * passed straight to the next Execute. An error carried by an awaited
 * event (a failed producer, a user event set with an error) fails the
 * dependent work with that error: its outputs' ready events and its own
 * event carry it. A plugin that works synchronously returns events that
 * are already ready, and still honours wait_events (it waits for them
 * inside the plugin, or queues the work until they are ready).
 *
 * Lifetimes under asynchrony:
 *  - PLX_Buffer_Delete / PLX_Buffer_Destroy of a buffer with pending work
 *    (a producer, or a consumer that was given it) free the memory only
 *    when that work completes.
 *  - A donated buffer is invalid the moment PLX_Executable_Execute returns
 *    (see there).
 *  - Host memory given to PLX_Client_BufferFromHost may be reused once its
 *    done_with_host_buffer is ready; dst of an asynchronous ToHost is
 *    written until its event is ready.
 *  - PLX_Client_Destroy waits for work in flight (see there).
 *
 * A plugin built before these slots ignores the wait_events fields (it
 * does not know them): a host must check PLX_API_HAS_SLOT(api,
 * PLX_Client_CreateUserEvent) before relying on them, and otherwise wait
 * for its events itself before the call. */

/* A new event, owned by the caller, that becomes ready with the buffer
 * (see above). Each call returns a new handle. A deleted or donated buffer
 * is FAILED_PRECONDITION. Thread-safe; does not block. */
typedef struct PLX_Buffer_ReadyEvent_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
  PLX_Event* event; /* out */
} PLX_Buffer_ReadyEvent_Args;
#define PLX_Buffer_ReadyEvent_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_ReadyEvent_Args, event)
typedef PLX_Error* PLX_Buffer_ReadyEvent_Fn(PLX_Buffer_ReadyEvent_Args* args);

/* A user event: created pending, owned by the caller (PLX_Event_Destroy),
 * made ready by the host with PLX_Event_Set. Pass it in wait_events to
 * make plugin work wait for something of the host's own. Destroying it
 * before it is set sets it with CANCELLED (work waiting on it fails rather
 * than hangs); so does PLX_Client_Destroy. Thread-safe. */
typedef struct PLX_Client_CreateUserEvent_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  PLX_Event* event; /* out */
} PLX_Client_CreateUserEvent_Args;
#define PLX_Client_CreateUserEvent_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_CreateUserEvent_Args, event)
typedef PLX_Error* PLX_Client_CreateUserEvent_Fn(
    PLX_Client_CreateUserEvent_Args* args);

/* Makes a user event ready: with success (code PLX_Error_Code_OK), or
 * carrying an error with `code` and `message` (message_size bytes, copied;
 * may be NULL when 0). The callbacks waiting on it run on the calling
 * thread, before the call returns. Setting an event that is not a user
 * event is INVALID_ARGUMENT; setting one twice is FAILED_PRECONDITION.
 * Thread-safe. */
typedef struct PLX_Event_Set_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Event* event;
  PLX_Error_Code code;
  const char* message;
  size_t message_size;
} PLX_Event_Set_Args;
#define PLX_Event_Set_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Event_Set_Args, message_size)
typedef PLX_Error* PLX_Event_Set_Fn(PLX_Event_Set_Args* args);

/* ------------------------------------------- Memories and layouts (1.2) */

/* \since 1.2 (check PLX_API_HAS_SLOT; the five slots PLX_Device_Memories
 * ... PLX_Buffer_Layout come together).
 *
 * A device's memories are where its buffers can live. Every device has at
 * least one, its default memory, listed first: where a buffer goes when
 * none is named. A plugin whose memory is the host's (cpu) has one memory
 * of kind DEVICE. Values of PLX_MemoryKind a later minor adds reach an
 * older host as numbers it does not know: it shows them as such (and
 * kind_name always says what they are). */
typedef enum {
  PLX_MemoryKind_DEVICE = 1,       /* the device's own memory */
  PLX_MemoryKind_HOST_VISIBLE = 2, /* host memory the device reads and
                                      writes directly (pinned, coherent) */
  PLX_MemoryKind_HOST = 3          /* host memory the device reaches only
                                      by copies */
} PLX_MemoryKind;

/* The memories of `device`, the default first. The array lives as long as
 * the client. Thread-safe. */
typedef struct PLX_Device_Memories_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Device* device;
  PLX_Memory* const* memories; /* out */
  size_t num_memories;         /* out, at least 1 */
} PLX_Device_Memories_Args;
#define PLX_Device_Memories_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Device_Memories_Args, num_memories)
typedef PLX_Error* PLX_Device_Memories_Fn(PLX_Device_Memories_Args* args);

/* Thread-safe. Strings live as long as the client. */
typedef struct PLX_Memory_Describe_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Memory* memory;
  int64_t id;            /* out: unique within the client */
  PLX_MemoryKind kind;   /* out */
  const char* kind_name; /* out: "device", "pinned_host", "unpinned_host",
                            or the plugin's finer name */
  PLX_Device* device;    /* out: the device it belongs to */
} PLX_Memory_Describe_Args;
#define PLX_Memory_Describe_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Memory_Describe_Args, device)
typedef PLX_Error* PLX_Memory_Describe_Fn(PLX_Memory_Describe_Args* args);

/* What a memory holds now. Counted by the plugin: at least every buffer
 * the host owns (on_device_size, from BufferFromHost, CopyToDevice and
 * Execute until the buffer is deleted, destroyed or donated and no work is
 * pending on it); a plugin may count its own allocations too (Plexa's
 * plugins do not count the temporaries of executions: see
 * PLX_Executable_Statistics' temp_bytes). -1 where the plugin does not
 * know. Thread-safe. */
typedef struct PLX_Memory_Statistics_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Memory* memory;
  int64_t bytes_in_use;       /* out */
  int64_t peak_bytes_in_use;  /* out: since the client was created */
  int64_t bytes_limit;        /* out: what can be allocated in all */
  int64_t num_allocs;         /* out: live allocations */
  int64_t largest_alloc_size; /* out: the largest live allocation */
} PLX_Memory_Statistics_Args;
#define PLX_Memory_Statistics_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Memory_Statistics_Args, largest_alloc_size)
typedef PLX_Error* PLX_Memory_Statistics_Fn(PLX_Memory_Statistics_Args* args);

/* A layout, structured (the same as HLO's text, "{1,0:T(8,128)(2,1)E(4)
 * S(1)}"). Passed by pointer only; may grow at its end. As an input, the
 * arrays are read during the call. As an output, the caller sets
 * struct_size (and extension_start), the plugin fills the fields it
 * covers, and the arrays live as the call says. */
typedef struct PLX_Layout {
  size_t struct_size;
  PLX_Extension* extension_start;
  const int64_t* minor_to_major; /* num_dims entries */
  size_t num_dims;
  /* Tiles, outermost first: tile i has tile_ranks[i] dimensions, whose
   * sizes follow one another in tile_dims (T(8,128)(2,1): ranks {2, 2},
   * dims {8, 128, 2, 1}). num_tiles 0: untiled. */
  const int64_t* tile_ranks;
  size_t num_tiles;
  const int64_t* tile_dims;
  size_t num_tile_dims;
  int64_t element_size_in_bits; /* 0: the element type's own size */
  int64_t memory_space;         /* HLO's S(n); 0: the default */
} PLX_Layout;
#define PLX_Layout_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_Layout, memory_space)

/* The layout the plugin prefers for an array of `element_type` and `dims`
 * on `memory` (NULL: the first device's default memory): what a buffer
 * uploaded with that device_layout costs no conversion to run with. The
 * layout's arrays live as long as the client. Thread-safe. */
typedef struct PLX_Client_PreferredLayout_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Client* client;
  PLX_Memory* memory;
  PLX_Type element_type;
  const int64_t* dims;
  size_t num_dims;
  PLX_Layout* layout; /* in: struct_size set by the caller; out: filled */
} PLX_Client_PreferredLayout_Args;
#define PLX_Client_PreferredLayout_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Client_PreferredLayout_Args, layout)
typedef PLX_Error* PLX_Client_PreferredLayout_Fn(
    PLX_Client_PreferredLayout_Args* args);

/* The buffer's layout on the device and the memory it lives in. The
 * layout's arrays live as long as the buffer. A deleted or donated buffer
 * is FAILED_PRECONDITION. Thread-safe; does not block (a pending buffer's
 * layout is known when it is created). */
typedef struct PLX_Buffer_Layout_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_Buffer* buffer;
  PLX_Layout* layout; /* in: struct_size set by the caller; out: filled */
  PLX_Memory* memory; /* out */
} PLX_Buffer_Layout_Args;
#define PLX_Buffer_Layout_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_Buffer_Layout_Args, memory)
typedef PLX_Error* PLX_Buffer_Layout_Fn(PLX_Buffer_Layout_Args* args);

/* \since 1.2: log severities (PLX_CallFrameApi.log, PLX_LoggerExtension). */
typedef enum {
  PLX_LogSeverity_INFO = 0,
  PLX_LogSeverity_WARNING = 1,
  PLX_LogSeverity_ERROR = 2
} PLX_LogSeverity;

/* \since 1.2. Chained on PLX_Client_Create_Args.extension_start: the
 * client's log — what custom calls write with PLX_CallFrameApi.log, and
 * whatever else the plugin chooses to route there (docs/abi.md says what
 * Plexa's plugins do) — goes to `callback` (from any plugin thread; the
 * callee synchronizes) instead of stderr. `user_data` and `callback`
 * must stay usable until the client is destroyed. */
typedef void PLX_Log_Callback(void* user_data, PLX_LogSeverity severity,
                              const char* message);
typedef struct PLX_LoggerExtension {
  size_t struct_size;          /* PLX_LoggerExtension_STRUCT_SIZE */
  int32_t type;                /* PLX_ExtensionType_LOGGER */
  PLX_Extension* next;         /* the rest of the chain */
  void* user_data;
  PLX_Log_Callback* callback;  /* not NULL */
} PLX_LoggerExtension;
#define PLX_LoggerExtension_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_LoggerExtension, callback)

/* ---------------------------------------------------------- Custom calls */

/* api_version 0: the seed's convention, `void target(void* out, void** in)`:
 * `in[i]` points at operand i, `out` at the result (for a tuple result, at
 * an array of pointers to its elements), all in the row-major layout.
 * api_version 1: the typed call frame below; the target returns 0 on
 * success, or non-zero after setting frame->error_message. */
typedef void PLX_CustomCall_Original(void* out, void** in);

typedef struct PLX_CallFrameBuffer {
  size_t struct_size;
  void* data;
  PLX_Type element_type;
  const int64_t* dims;
  size_t num_dims;
} PLX_CallFrameBuffer;
#define PLX_CallFrameBuffer_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_CallFrameBuffer, num_dims)

typedef struct PLX_CallFrame {
  size_t struct_size;
  PLX_Extension* extension_start;
  const PLX_CallFrameBuffer* args;
  size_t num_args;
  const PLX_CallFrameBuffer* results;
  size_t num_results;
  const char* backend_config; /* the instruction's backend_config text */
  size_t backend_config_size;
  /* out: on failure, a message the target owns until it returns; the
   * plugin copies it into the execution's error. */
  const char* error_message;
  /* \since 1.2. A target reads these only when frame->struct_size covers
   * them (a plugin built before 1.2 passes the shorter frame):
   *   if (frame->struct_size >= PLX_CallFrame_STRUCT_SIZE) ...
   * The platform ("cpu", "onednn", "reference", "vulkan", ...): it says
   * what `stream` and the buffers' `data` are. */
  const char* platform;
  /* The device's work queue. NULL for a plugin whose memory is the host's
   * (cpu, onednn, reference): `data` are host pointers and the target runs
   * on a host thread, in program order. "vulkan": the VkCommandBuffer
   * being recorded, into which a device target records its work; `data`
   * is then the VkDeviceAddress of the array's first element (see
   * docs/vulkan.md). */
  void* stream;
  /* Each argument's and result's shape with its layout (minor_to_major
   * NULL: row-major), parallel to args and results. */
  const PLX_ArrayShape* arg_shapes;
  const PLX_ArrayShape* result_shapes;
  /* The custom call's typed attributes, sorted by name: for
   * api_version=API_VERSION_TYPED_FFI, its backend_config dictionary
   * ({n = 4 : i32, eps = 1.0e-05 : f32, name = "x", dims = array<i64: 1,
   * 2>, flag = true}); none otherwise (backend_config stays the text). */
  const struct PLX_Attribute* attributes;
  size_t num_attributes;
  /* Calls back into the plugin and the host: logging, scratch memory. */
  const struct PLX_CallFrameApi* api;
  /* out: the PLX_Error_Code of a failure (when the target returns
   * non-zero); 0 or a value outside PLX_Error_Code is INTERNAL. */
  int32_t error_code;
} PLX_CallFrame;
#define PLX_CallFrame_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_CallFrame, error_code)
/* The frame a plugin built against 1.0 or 1.1 passes. */
#define PLX_CallFrame_STRUCT_SIZE_1_0 \
  PLX_STRUCT_SIZE(PLX_CallFrame, error_message)

/* \since 1.2: a typed attribute. Exactly the fields of `kind` are
 * meaningful. Strings are NUL-terminated (string_size excludes the NUL);
 * arrays live during the call. A frozen element struct (see above). */
typedef enum {
  PLX_Attribute_INT64 = 0,        /* int64_value (iN, uN, index) */
  PLX_Attribute_DOUBLE = 1,       /* double_value (fN) */
  PLX_Attribute_STRING = 2,       /* string_value, string_size */
  PLX_Attribute_BOOL = 3,         /* int64_value: 0 or 1 */
  PLX_Attribute_INT64_ARRAY = 4,  /* int64_array, array_size */
  PLX_Attribute_DOUBLE_ARRAY = 5  /* double_array, array_size */
} PLX_AttributeKind;
typedef struct PLX_Attribute {
  size_t struct_size;
  const char* name;
  PLX_AttributeKind kind;
  int64_t int64_value;
  double double_value;
  const char* string_value;
  size_t string_size;
  const int64_t* int64_array;
  const double* double_array;
  size_t array_size;
} PLX_Attribute;
#define PLX_Attribute_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_Attribute, array_size)

/* \since 1.2: what a typed target may call during the call, on the
 * calling thread, passing its own frame. */
typedef struct PLX_CallFrameApi {
  size_t struct_size;
  /* Writes `message` (NUL-terminated) to the client's log: the host's
   * PLX_LoggerExtension given at PLX_Client_Create, else stderr. The
   * plugin prefixes it with the instruction's name. */
  void (*log)(PLX_CallFrame* frame, PLX_LogSeverity severity,
              const char* message);
  /* `bytes` of scratch memory aligned to `alignment` (a power of two, at
   * most 4096) where the frame's buffers live (host memory when `stream`
   * is NULL), valid until the target returns and freed by the plugin;
   * NULL when it cannot be had (then log why and fail). */
  void* (*allocate_scratch)(PLX_CallFrame* frame, size_t bytes,
                            size_t alignment);
} PLX_CallFrameApi;
#define PLX_CallFrameApi_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_CallFrameApi, allocate_scratch)
typedef int32_t PLX_CustomCall_Typed(PLX_CallFrame* frame);

/* Registers a custom-call target with this plugin (process-wide, for every
 * client). `platform` must be the plugin's platform or "*"; registering a
 * name again replaces it. Resolution order at compile time: this registry,
 * then the libraries named in PLX_CompileOptions.custom_call_libraries (in
 * order), then the process (dlsym(RTLD_DEFAULT)). Thread-safe. */
typedef struct PLX_CustomCall_Register_Args {
  size_t struct_size;
  PLX_Extension* extension_start;
  const char* name;
  const char* platform;
  void* function; /* PLX_CustomCall_Original* or PLX_CustomCall_Typed* */
  int32_t api_version; /* 0: original; 1: typed call frame */
} PLX_CustomCall_Register_Args;
#define PLX_CustomCall_Register_Args_STRUCT_SIZE \
  PLX_STRUCT_SIZE(PLX_CustomCall_Register_Args, api_version)
typedef PLX_Error* PLX_CustomCall_Register_Fn(
    PLX_CustomCall_Register_Args* args);

/* ---------------------------------------------------------- The table */

typedef struct PLX_ApiVersion {
  size_t struct_size;
  PLX_Extension* extension_start;
  int32_t major;
  int32_t minor;
} PLX_ApiVersion;
#define PLX_ApiVersion_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_ApiVersion, minor)

/* \since 1.2: extension tables. PLX_Api.extension_start chains tables of
 * functions a plugin exports beyond its slots (NULL: none), each with its
 * own type and version, so that a plugin can grow features on its own
 * schedule: a vendor's table uses a type from PLX_ExtensionType_VENDOR_FIRST
 * to _LAST, documented by the vendor. Every table begins with this header
 * (its first three fields are a PLX_Extension's); the functions follow.
 * A host finds a table with PLX_FindExtension, checks `version` and
 * `struct_size` before calling what it needs, and ignores types it does
 * not know; tables live as long as the plugin is loaded. Within one type,
 * a later version only appends fields (struct_size grows). */
typedef struct PLX_ApiExtension {
  size_t struct_size;
  int32_t type;
  PLX_Extension* next;
  int32_t version;
} PLX_ApiExtension;
#define PLX_ApiExtension_STRUCT_SIZE PLX_STRUCT_SIZE(PLX_ApiExtension, version)

/* The first extension of `type` in a chain (an args struct's or the
 * table's extension_start), or NULL. */
static inline const PLX_Extension* PLX_FindExtension(
    const PLX_Extension* chain, int32_t type) {
  for (; chain != NULL; chain = chain->next) {
    if (chain->type == type) return chain;
  }
  return NULL;
}

/* Slots are only appended; each says the version it appeared in. */
typedef struct PLX_Api {
  size_t struct_size;
  PLX_Extension* extension_start;
  PLX_ApiVersion version;

  /* \since 1.0 */
  PLX_Error_Destroy_Fn* PLX_Error_Destroy;
  PLX_Error_Message_Fn* PLX_Error_Message;
  PLX_Error_GetCode_Fn* PLX_Error_GetCode;

  PLX_Plugin_Initialize_Fn* PLX_Plugin_Initialize;
  PLX_Plugin_Attributes_Fn* PLX_Plugin_Attributes;

  PLX_Client_Create_Fn* PLX_Client_Create;
  PLX_Client_Destroy_Fn* PLX_Client_Destroy;
  PLX_Client_Devices_Fn* PLX_Client_Devices;
  PLX_Client_DefaultDeviceAssignment_Fn* PLX_Client_DefaultDeviceAssignment;
  PLX_Device_Describe_Fn* PLX_Device_Describe;

  PLX_Event_Destroy_Fn* PLX_Event_Destroy;
  PLX_Event_IsReady_Fn* PLX_Event_IsReady;
  PLX_Event_Await_Fn* PLX_Event_Await;
  PLX_Event_OnReady_Fn* PLX_Event_OnReady;

  PLX_Client_BufferFromHost_Fn* PLX_Client_BufferFromHost;
  PLX_Buffer_Shape_Fn* PLX_Buffer_Shape;
  PLX_Buffer_ToHost_Fn* PLX_Buffer_ToHost;
  PLX_Buffer_CopyToDevice_Fn* PLX_Buffer_CopyToDevice;
  PLX_Buffer_Delete_Fn* PLX_Buffer_Delete;
  PLX_Buffer_IsDeleted_Fn* PLX_Buffer_IsDeleted;
  PLX_Buffer_Destroy_Fn* PLX_Buffer_Destroy;

  PLX_Client_Compile_Fn* PLX_Client_Compile;
  PLX_Executable_Destroy_Fn* PLX_Executable_Destroy;
  PLX_Executable_Signature_Fn* PLX_Executable_Signature;
  PLX_Executable_Execute_Fn* PLX_Executable_Execute;
  PLX_Executable_Serialize_Fn* PLX_Executable_Serialize;
  PLX_Client_DeserializeExecutable_Fn* PLX_Client_DeserializeExecutable;

  PLX_CustomCall_Register_Fn* PLX_CustomCall_Register;

  /* \since 1.2 */
  PLX_Executable_Statistics_Fn* PLX_Executable_Statistics;
  PLX_Buffer_ReadyEvent_Fn* PLX_Buffer_ReadyEvent;
  PLX_Client_CreateUserEvent_Fn* PLX_Client_CreateUserEvent;
  PLX_Event_Set_Fn* PLX_Event_Set;
  PLX_Device_Memories_Fn* PLX_Device_Memories;
  PLX_Memory_Describe_Fn* PLX_Memory_Describe;
  PLX_Memory_Statistics_Fn* PLX_Memory_Statistics;
  PLX_Client_PreferredLayout_Fn* PLX_Client_PreferredLayout;
  PLX_Buffer_Layout_Fn* PLX_Buffer_Layout;
} PLX_Api;

/* Size of the table a v1.0 plugin provides. */
#define PLX_Api_STRUCT_SIZE_1_0 PLX_STRUCT_SIZE(PLX_Api, PLX_CustomCall_Register)
/* Size of the table a v1.2 plugin provides (1.3 added no slot). */
#define PLX_Api_STRUCT_SIZE_1_2 PLX_STRUCT_SIZE(PLX_Api, PLX_Buffer_Layout)
#define PLX_Api_STRUCT_SIZE PLX_Api_STRUCT_SIZE_1_2

/* True if `api` (a table of any minor version) has `slot`. */
#define PLX_API_HAS_SLOT(api, slot)                                   \
  ((api)->struct_size >= PLX_STRUCT_SIZE(PLX_Api, slot) &&            \
   (api)->slot != NULL)

/* The one symbol a plugin exports. The table lives as long as the plugin
 * is loaded. Thread-safe. */
#define PLX_GET_API_SYMBOL "PLX_GetApi"
typedef const PLX_Api* PLX_GetApi_Fn(void);

/* Frozen slot offsets: a slot never moves. Checked in C and C++. */
#if defined(__cplusplus)
#define PLX_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define PLX_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
#define PLX_SLOT_OFFSET(n) \
  (offsetof(PLX_Api, PLX_Error_Destroy) + (n) * sizeof(void*))
PLX_STATIC_ASSERT(offsetof(PLX_Api, version) == 2 * sizeof(void*),
                  "PLX_Api header moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Plugin_Initialize) == PLX_SLOT_OFFSET(3),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Client_Create) == PLX_SLOT_OFFSET(5),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Event_Destroy) == PLX_SLOT_OFFSET(10),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Client_BufferFromHost) ==
                      PLX_SLOT_OFFSET(14),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Client_Compile) == PLX_SLOT_OFFSET(21),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_CustomCall_Register) ==
                      PLX_SLOT_OFFSET(27),
                  "slot moved");
PLX_STATIC_ASSERT(PLX_Api_STRUCT_SIZE_1_0 == PLX_SLOT_OFFSET(28),
                  "v1.0 table size changed");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Executable_Statistics) ==
                      PLX_SLOT_OFFSET(28),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Buffer_ReadyEvent) ==
                      PLX_SLOT_OFFSET(29),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Client_CreateUserEvent) ==
                      PLX_SLOT_OFFSET(30),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Event_Set) == PLX_SLOT_OFFSET(31),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Device_Memories) == PLX_SLOT_OFFSET(32),
                  "slot moved");
PLX_STATIC_ASSERT(offsetof(PLX_Api, PLX_Buffer_Layout) == PLX_SLOT_OFFSET(36),
                  "slot moved");
PLX_STATIC_ASSERT(PLX_Api_STRUCT_SIZE_1_2 == PLX_SLOT_OFFSET(37),
                  "v1.2 table size changed");

#ifdef __cplusplus
}
#endif

#endif /* PLEXA_C_API_H_ */
/* clang-format on */
