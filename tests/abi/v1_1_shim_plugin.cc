// libplexa_abi_v1_1_shim.so: today's reference plugin dressed as a plugin
// built against ABI 1.1, to test how the host library degrades on an older
// minor. Its table is the reference plugin's cut to the 1.0/1.1 size
// (1.1 added no slot), reporting minor 1, and the four calls that grew in
// 1.2 (BufferFromHost, ToHost, CopyToDevice, Execute) see at most their
// 1.0 struct_size, so that, exactly like a 1.1 plugin, it never reads the
// wait_events a newer host might pass.
#include <dlfcn.h>

#include <algorithm>

#include "plexa/plexa_c_api.h"

namespace {

const PLX_Api* g_real = nullptr;

// Calls the real slot with the caller's struct cut to `old_size`.
template <typename Args>
PLX_Error* CallAsOld(PLX_Error* (*fn)(Args*), Args* args, size_t old_size) {
  if (args == nullptr) return fn(args);
  const size_t size = args->struct_size;
  args->struct_size = std::min(size, old_size);
  PLX_Error* error = fn(args);
  args->struct_size = size;
  return error;
}

// The real slot of a call that grew in 1.2, seen with its 1.0 struct size.
#define PLX_SHIM_AS_1_0(name, slot, Args)                         \
  PLX_Error* name(Args* args) {                                   \
    return CallAsOld(g_real->slot, args, Args##_STRUCT_SIZE_1_0); \
  }
PLX_SHIM_AS_1_0(BufferFromHost, PLX_Client_BufferFromHost,
                PLX_Client_BufferFromHost_Args)
PLX_SHIM_AS_1_0(ToHost, PLX_Buffer_ToHost, PLX_Buffer_ToHost_Args)
PLX_SHIM_AS_1_0(CopyToDevice, PLX_Buffer_CopyToDevice,
                PLX_Buffer_CopyToDevice_Args)
PLX_SHIM_AS_1_0(Execute, PLX_Executable_Execute, PLX_Executable_Execute_Args)
#undef PLX_SHIM_AS_1_0

PLX_Error* Attributes(PLX_Plugin_Attributes_Args* args) {
  PLX_Error* error = g_real->PLX_Plugin_Attributes(args);
  if (error == nullptr) args->abi_minor = 1;
  return error;
}

PLX_Api MakeTable() {
  void* handle = dlopen(PLEXA_REFERENCE_PLUGIN, RTLD_NOW | RTLD_LOCAL);
  auto* get =
      handle
          ? reinterpret_cast<PLX_GetApi_Fn*>(dlsym(handle, PLX_GET_API_SYMBOL))
          : nullptr;
  PLX_Api table{};
  if (get == nullptr) return table;  // struct_size 0: the loader refuses it
  g_real = get();
  table = *g_real;
  table.struct_size = PLX_Api_STRUCT_SIZE_1_0;
  table.version.minor = 1;
  table.PLX_Executable_Statistics = nullptr;
  table.PLX_Buffer_ReadyEvent = nullptr;
  table.PLX_Client_CreateUserEvent = nullptr;
  table.PLX_Event_Set = nullptr;
  table.PLX_Client_BufferFromHost = BufferFromHost;
  table.PLX_Buffer_ToHost = ToHost;
  table.PLX_Buffer_CopyToDevice = CopyToDevice;
  table.PLX_Executable_Execute = Execute;
  table.PLX_Plugin_Attributes = Attributes;
  return table;
}

}  // namespace

extern "C" PLX_EXPORT const PLX_Api* PLX_GetApi(void) {
  static const PLX_Api table = MakeTable();
  return &table;
}
