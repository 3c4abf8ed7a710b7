// What the C entry points of the SDK share (entry_client.cc,
// entry_executable.cc, the table in plugin.cc): the plugin object, argument
// checks, the status-to-PLX_Error guard, option and shape readers, handle
// wrappers. Internal to abi/sdk.
#ifndef PLEXA_ABI_SDK_ENTRY_UTIL_H_
#define PLEXA_ABI_SDK_ENTRY_UTIL_H_

#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>

#include "abi/sdk/handles.h"
#include "abi/sdk/plugin.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace plexa::sdk::internal {

// The plugin and its info, set once by MakeApi.
extern Plugin* g_plugin;
extern PluginInfo* g_info;

// Upper bound on a plausible struct_size: a newer caller may pass a larger
// struct than we know, but not megabytes.
constexpr size_t kMaxStructSize = 1 << 16;

PLX_Error* ToError(absl::Status s);

template <typename Args>
absl::Status CheckArgs(const Args* args, size_t v1_size, const char* fn) {
  if (args == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(fn, ": args is NULL"));
  }
  if (args->struct_size < v1_size) {
    return absl::InvalidArgumentError(absl::StrCat(
        fn, ": struct_size is ", args->struct_size, " but the args struct has ",
        v1_size, " bytes since ABI 1.0 (set struct_size to the _STRUCT_SIZE ",
        "macro of the header you compile against)"));
  }
  if (args->struct_size > kMaxStructSize) {
    return absl::InvalidArgumentError(
        absl::StrCat(fn, ": struct_size ", args->struct_size,
                     " is implausibly large (uninitialized?)"));
  }
  return absl::OkStatus();
}

// Every error names the call it came from (docs/abi.md "Errors"): errors
// produced below the entry points (the parser, the verifier, the plugin's
// own classes) do not know it, so it is prefixed here.
absl::Status NameFunction(absl::Status s, const char* fn);

// Runs `body` and turns its status (or any exception) into a PLX_Error.
template <typename Body>
PLX_Error* Guard(const char* fn, Body&& body) {
  try {
    return ToError(NameFunction(body(), fn));
  } catch (const std::bad_alloc&) {
    // Sizes a program decides are checked against the memory limit before
    // they are allocated; this is what the machine refused beyond that.
    return ToError(absl::ResourceExhaustedError(
        absl::StrCat(fn, ": out of memory (an allocation failed)")));
  } catch (const std::exception& e) {
    return ToError(absl::InternalError(
        absl::StrCat(fn, ": internal exception: ", e.what())));
  } catch (...) {
    return ToError(absl::InternalError(absl::StrCat(fn, ": internal error")));
  }
}

// The smallest struct_size a caller may pass is the 1.0 size: the
// _STRUCT_SIZE macro for structs that never grew, the _STRUCT_SIZE_1_0
// macro (PLX_CHECK_ARGS_SIZE) for those that did.
#define PLX_CHECK_ARGS_SIZE(size, fn) \
  if (absl::Status s = CheckArgs(args, (size), fn); !s.ok()) return s
#define PLX_CHECK_ARGS(ArgsType, fn) \
  PLX_CHECK_ARGS_SIZE(ArgsType##_STRUCT_SIZE, fn)

// Reads an enum field a C caller filled. C lets any int through an enum;
// loading an out-of-range value as the C++ enum type is undefined (UBSan's
// -fsanitize=enum stops there), so read the bits as the underlying integer
// and validate that.
template <typename E>
int64_t RawEnum(const E& field) {
  std::make_signed_t<std::underlying_type_t<E>> v;
  std::memcpy(&v, &field, sizeof(v));
  return static_cast<int64_t>(v);
}

absl::StatusOr<Options> ReadOptions(const PLX_NamedValue* values, size_t n,
                                    const char* fn);

absl::StatusOr<Shape> ReadArrayShape(const PLX_ArrayShape* s, const char* fn);

absl::StatusOr<PLX_Buffer*> WrapBuffer(PLX_Client* client,
                                       std::shared_ptr<BufferSlot> slot);

// The events of a wait list (ABI 1.2), each checked to be a live event.
absl::StatusOr<EventList> ReadEventList(PLX_Event* const* events, size_t n,
                                        const char* fn);
// An args struct's wait_events/num_wait_events, when the caller's
// struct_size covers them (a 1.0/1.1 caller's does not: no wait events).
template <typename Args>
absl::StatusOr<EventList> ReadWaitEvents(const Args* args, const char* fn) {
  if (args->struct_size < PLX_STRUCT_SIZE(Args, num_wait_events)) {
    return EventList{};
  }
  return ReadEventList(args->wait_events, args->num_wait_events, fn);
}
// A synchronous call's wait, on the caller's thread: the first error.
absl::Status AwaitAll(const EventList& events);

PLX_Event* WrapEvent(std::shared_ptr<Event> e);

void FillNamedValues(const Options& opts, std::vector<PLX_NamedValue>* out);

// Makes and registers the handles of `device`'s memories (ABI 1.2),
// numbering them from *next_id across the client.
void AddMemoryHandles(PLX_Device* device, int64_t* next_id);
// A device handle of `client` (NULL: its first device), checked.
absl::StatusOr<Device*> ResolveDevice(PLX_Client* client, PLX_Device* device,
                                      const char* fn);
// A buffer handle that the caller may use: live, and neither deleted nor
// donated.
absl::StatusOr<BufferSlot*> UsableBuffer(PLX_Buffer* buffer, const char* fn,
                                         const char* what);

// ---- The entry points (the function table) ----
void ErrorDestroy(PLX_Error_Destroy_Args* args);
void ErrorMessage(PLX_Error_Message_Args* args);
PLX_Error* ErrorGetCode(PLX_Error_GetCode_Args* args);
PLX_Error* PluginInitialize(PLX_Plugin_Initialize_Args* args);
PLX_Error* PluginAttributes(PLX_Plugin_Attributes_Args* args);
PLX_Error* ClientCreate(PLX_Client_Create_Args* args);
PLX_Error* ClientDestroy(PLX_Client_Destroy_Args* args);
PLX_Error* ClientDevices(PLX_Client_Devices_Args* args);
PLX_Error* DeviceDescribe(PLX_Device_Describe_Args* args);
PLX_Error* EventDestroy(PLX_Event_Destroy_Args* args);
PLX_Error* EventIsReady(PLX_Event_IsReady_Args* args);
PLX_Error* EventAwait(PLX_Event_Await_Args* args);
PLX_Error* EventOnReady(PLX_Event_OnReady_Args* args);
PLX_Error* EventSet(PLX_Event_Set_Args* args);
PLX_Error* ClientCreateUserEvent(PLX_Client_CreateUserEvent_Args* args);
PLX_Error* BufferReadyEvent(PLX_Buffer_ReadyEvent_Args* args);
PLX_Error* ClientBufferFromHost(PLX_Client_BufferFromHost_Args* args);
PLX_Error* BufferShape(PLX_Buffer_Shape_Args* args);
PLX_Error* BufferToHost(PLX_Buffer_ToHost_Args* args);
PLX_Error* BufferCopyToDevice(PLX_Buffer_CopyToDevice_Args* args);
PLX_Error* BufferDelete(PLX_Buffer_Delete_Args* args);
PLX_Error* BufferIsDeleted(PLX_Buffer_IsDeleted_Args* args);
PLX_Error* BufferDestroy(PLX_Buffer_Destroy_Args* args);
PLX_Error* ClientCompile(PLX_Client_Compile_Args* args);
PLX_Error* ExecutableDestroy(PLX_Executable_Destroy_Args* args);
PLX_Error* ExecutableSignature(PLX_Executable_Signature_Args* args);
PLX_Error* ExecutableExecute(PLX_Executable_Execute_Args* args);
PLX_Error* ExecutableStatistics(PLX_Executable_Statistics_Args* args);
PLX_Error* ExecutableSerialize(PLX_Executable_Serialize_Args* args);
PLX_Error* CustomCallRegister(PLX_CustomCall_Register_Args* args);
PLX_Error* DeviceMemories(PLX_Device_Memories_Args* args);
PLX_Error* MemoryDescribe(PLX_Memory_Describe_Args* args);
PLX_Error* MemoryStatistics(PLX_Memory_Statistics_Args* args);
PLX_Error* ClientPreferredLayout(PLX_Client_PreferredLayout_Args* args);
PLX_Error* BufferLayout(PLX_Buffer_Layout_Args* args);

PLX_Error* ClientDefaultDeviceAssignment(
    PLX_Client_DefaultDeviceAssignment_Args* args);
PLX_Error* ClientDeserializeExecutable(
    PLX_Client_DeserializeExecutable_Args* args);

}  // namespace plexa::sdk::internal

#endif  // PLEXA_ABI_SDK_ENTRY_UTIL_H_
