// The PLX_Api slots that take an args struct and return a PLX_Error*, in
// table order (all but PLX_Error_Destroy and PLX_Error_Message, which return
// nothing): what the contract checks call with NULL and with bad
// struct_size. X(slot) for each; a slot a plugin's table is too short to
// hold is skipped by the caller (offsetof(PLX_Api, slot) against the
// table's struct_size).
#ifndef PLEXA_TOOLS_CONFORMANCE_ABI_SLOTS_H_
#define PLEXA_TOOLS_CONFORMANCE_ABI_SLOTS_H_

#define PLX_ERROR_SLOTS(X)              \
  X(PLX_Error_GetCode)                  \
  X(PLX_Plugin_Initialize)              \
  X(PLX_Plugin_Attributes)              \
  X(PLX_Client_Create)                  \
  X(PLX_Client_Destroy)                 \
  X(PLX_Client_Devices)                 \
  X(PLX_Client_DefaultDeviceAssignment) \
  X(PLX_Device_Describe)                \
  X(PLX_Event_Destroy)                  \
  X(PLX_Event_IsReady)                  \
  X(PLX_Event_Await)                    \
  X(PLX_Event_OnReady)                  \
  X(PLX_Client_BufferFromHost)          \
  X(PLX_Buffer_Shape)                   \
  X(PLX_Buffer_ToHost)                  \
  X(PLX_Buffer_CopyToDevice)            \
  X(PLX_Buffer_Delete)                  \
  X(PLX_Buffer_IsDeleted)               \
  X(PLX_Buffer_Destroy)                 \
  X(PLX_Client_Compile)                 \
  X(PLX_Executable_Destroy)             \
  X(PLX_Executable_Signature)           \
  X(PLX_Executable_Execute)             \
  X(PLX_Executable_Serialize)           \
  X(PLX_Client_DeserializeExecutable)   \
  X(PLX_CustomCall_Register)            \
  X(PLX_Executable_Statistics)          \
  X(PLX_Buffer_ReadyEvent)              \
  X(PLX_Client_CreateUserEvent)         \
  X(PLX_Event_Set)                      \
  X(PLX_Device_Memories)                \
  X(PLX_Memory_Describe)                \
  X(PLX_Memory_Statistics)              \
  X(PLX_Client_PreferredLayout)         \
  X(PLX_Buffer_Layout)

#endif  // PLEXA_TOOLS_CONFORMANCE_ABI_SLOTS_H_
