// Misuse of the reference plugin through its RAW C table: every slot with
// NULL args, bad struct_size, NULL / destroyed / wrong-kind handles, and
// every size, shape and count mismatch the contract names. Each call must
// come back as an error object with the right code and a message that names
// the function (and the values involved) — never a crash. CI runs this
// under ASan/UBSan too, where a read past a struct or a use after free in
// the plugin fails the test.
#include <atomic>
#include <thread>
#include <type_traits>
#include <vector>

#include "abi_test_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/conformance/abi_slots.h"

namespace plexa::abi_test {
namespace {

using ::testing::ContainsRegex;

const char kAdd4[] = R"(HloModule add4

ENTRY main {
  x = f32[4] parameter(0)
  y = f32[4] parameter(1)
  ROOT sum = f32[4] add(x, y)
}
)";

const char kTwoOutputs[] = R"(HloModule two

ENTRY main {
  x = f32[4] parameter(0)
  s = f32[4] add(x, x)
  p = f32[4] multiply(x, x)
  ROOT t = (f32[4], f32[4]) tuple(s, p)
}
)";

// Stores an int a C caller could put in an enum field, without forming an
// out-of-range C++ enum value (undefined in C++; fine in C).
template <typename E>
void SetRawEnum(E* field, int32_t value) {
  static_assert(sizeof(E) == sizeof(int32_t), "C enums are int-sized here");
  std::memcpy(field, &value, sizeof(value));
}

// Every slot that returns PLX_Error* and takes an args struct:
// PLX_ERROR_SLOTS (tools/conformance/abi_slots.h, shared with `plexa
// test-plugin`).

class MisuseTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { api_ = LoadRawApi(PLEXA_REFERENCE_PLUGIN); }
  void SetUp() override { ASSERT_NE(api_, nullptr); }

  PLX_Client* NewClient(int64_t num_devices = 1) {
    PLX_NamedValue opt{};
    opt.struct_size = PLX_NamedValue_STRUCT_SIZE;
    opt.name = "num_devices";
    opt.kind = PLX_Value_INT64;
    opt.int64_value = num_devices;
    auto a = PLX_TEST_ARGS(PLX_Client_Create_Args);
    a.options = &opt;
    a.num_options = 1;
    EXPECT_PLX_OK(api_, api_->PLX_Client_Create(&a));
    return a.client;
  }
  PLX_Buffer* Upload(PLX_Client* client, const std::vector<float>& data,
                     std::vector<int64_t> dims) {
    PLX_ArrayShape shape{};
    shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
    shape.element_type = PLX_Type_F32;
    shape.dims = dims.data();
    shape.num_dims = dims.size();
    auto a = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
    a.client = client;
    a.data = data.data();
    a.data_size = data.size() * sizeof(float);
    a.shape = &shape;
    EXPECT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&a));
    return a.buffer;
  }
  PLX_Executable* Compile(PLX_Client* client, const char* program) {
    auto a = PLX_TEST_ARGS(PLX_Client_Compile_Args);
    a.client = client;
    a.program = program;
    a.program_size = std::strlen(program);
    a.format = "hlo-text";
    EXPECT_PLX_OK(api_, api_->PLX_Client_Compile(&a));
    return a.executable;
  }
  std::vector<float> Download(PLX_Buffer* b, size_t n) {
    std::vector<float> out(n);
    auto a = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
    a.buffer = b;
    a.dst = out.data();
    a.dst_size = n * sizeof(float);
    EXPECT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&a));
    return out;
  }
  void DestroyBuffer(PLX_Buffer* b) {
    auto a = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
    a.buffer = b;
    EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&a));
  }
  void DestroyExecutable(PLX_Executable* e) {
    auto a = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
    a.executable = e;
    EXPECT_PLX_OK(api_, api_->PLX_Executable_Destroy(&a));
  }
  void DestroyClient(PLX_Client* c) {
    auto a = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
    a.client = c;
    EXPECT_PLX_OK(api_, api_->PLX_Client_Destroy(&a));
  }
  void DestroyEvent(PLX_Event* e) {
    auto a = PLX_TEST_ARGS(PLX_Event_Destroy_Args);
    a.event = e;
    EXPECT_PLX_OK(api_, api_->PLX_Event_Destroy(&a));
  }

  // Execute args for one replica: arguments and outputs point into the
  // vectors, which must outlive the call.
  PLX_Executable_Execute_Args ExecArgs(PLX_Executable* exe,
                                       std::vector<PLX_Buffer*>* in,
                                       std::vector<PLX_Buffer*>* out) {
    in_ptr_ = in->data();
    out_ptr_ = out->data();
    auto a = PLX_TEST_ARGS(PLX_Executable_Execute_Args);
    a.executable = exe;
    a.num_replicas = 1;
    a.arguments = &in_ptr_;
    a.num_arguments = in->size();
    a.outputs = &out_ptr_;
    a.num_outputs = out->size();
    return a;
  }

  static const PLX_Api* api_;
  PLX_Buffer* const* in_ptr_ = nullptr;
  PLX_Buffer** out_ptr_ = nullptr;
};
const PLX_Api* MisuseTest::api_ = nullptr;

// ------------------------------------------------------------ args, sizes

TEST_F(MisuseTest, NullArgsToEverySlot) {
#define PLX_NULL_ARGS(slot) \
  EXPECT_PLX_ERROR(api_, api_->slot(nullptr), INVALID_ARGUMENT, #slot, "NULL");
  PLX_ERROR_SLOTS(PLX_NULL_ARGS)
#undef PLX_NULL_ARGS
  // The two calls on an error return nothing; NULL must not crash them.
  api_->PLX_Error_Destroy(nullptr);
  api_->PLX_Error_Message(nullptr);
}

// The 1.0 size of the structs that grew since (their _STRUCT_SIZE_1_0).
template <typename Args>
size_t V1_0Size(size_t current) {
  if constexpr (std::is_same_v<Args, PLX_Executable_Signature_Args>) {
    return PLX_Executable_Signature_Args_STRUCT_SIZE_1_0;
  } else if constexpr (std::is_same_v<Args, PLX_Client_BufferFromHost_Args>) {
    return PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0;
  } else if constexpr (std::is_same_v<Args, PLX_Buffer_ToHost_Args>) {
    return PLX_Buffer_ToHost_Args_STRUCT_SIZE_1_0;
  } else if constexpr (std::is_same_v<Args, PLX_Buffer_CopyToDevice_Args>) {
    return PLX_Buffer_CopyToDevice_Args_STRUCT_SIZE_1_0;
  } else if constexpr (std::is_same_v<Args, PLX_Executable_Execute_Args>) {
    return PLX_Executable_Execute_Args_STRUCT_SIZE_1_0;
  }
  return current;
}

TEST_F(MisuseTest, BadStructSizeToEverySlot) {
  // Zeroed storage larger than any args struct; only struct_size varies.
  alignas(16) unsigned char storage[4096];
  const auto run = [&](size_t size, const char* needle) {
#define PLX_BAD_SIZE(slot)                                            \
  {                                                                   \
    std::memset(storage, 0, sizeof(storage));                         \
    auto* args = reinterpret_cast<slot##_Args*>(storage);             \
    args->struct_size = size;                                         \
    EXPECT_PLX_ERROR(api_, api_->slot(args), INVALID_ARGUMENT, #slot, \
                     "struct_size", needle);                          \
  }
    PLX_ERROR_SLOTS(PLX_BAD_SIZE)
#undef PLX_BAD_SIZE
  };
  run(0, "0");
  run(size_t{1} << 20, "1048576");
  // One byte short of each struct's smallest accepted size: the message
  // names it. (That is the _STRUCT_SIZE macro except for the structs grown
  // since 1.0, which carry a _STRUCT_SIZE_1_0 macro; a slot added later
  // takes its own struct's size.)
#define PLX_V1_0_SIZE(slot) V1_0Size<slot##_Args>(slot##_Args_STRUCT_SIZE)
#define PLX_SHORT_SIZE(slot)                                          \
  {                                                                   \
    std::memset(storage, 0, sizeof(storage));                         \
    auto* args = reinterpret_cast<slot##_Args*>(storage);             \
    args->struct_size = PLX_V1_0_SIZE(slot) - 1;                      \
    EXPECT_PLX_ERROR(api_, api_->slot(args), INVALID_ARGUMENT, #slot, \
                     std::to_string(PLX_V1_0_SIZE(slot) - 1),         \
                     std::to_string(PLX_V1_0_SIZE(slot)));            \
  }
  PLX_ERROR_SLOTS(PLX_SHORT_SIZE)
#undef PLX_SHORT_SIZE
#undef PLX_V1_0_SIZE
}

TEST_F(MisuseTest, ErrorCallsIgnoreShortStructs) {
  PLX_Error* e = api_->PLX_Client_Devices(nullptr);
  ASSERT_NE(e, nullptr);
  // A short PLX_Error_Message struct is not written to.
  auto msg = PLX_TEST_ARGS(PLX_Error_Message_Args);
  msg.struct_size = PLX_Error_Message_Args_STRUCT_SIZE - 1;
  msg.error = e;
  const char sentinel[] = "untouched";
  msg.message = sentinel;
  msg.message_size = 12345;
  api_->PLX_Error_Message(&msg);
  EXPECT_EQ(msg.message, sentinel);
  EXPECT_EQ(msg.message_size, 12345u);
  // A short PLX_Error_Destroy struct destroys nothing (the error is still
  // readable below; ASan would catch a use after free).
  auto d = PLX_TEST_ARGS(PLX_Error_Destroy_Args);
  d.struct_size = 0;
  d.error = e;
  api_->PLX_Error_Destroy(&d);
  ErrorInfo info = TakeError(api_, e);
  EXPECT_THAT(info.message, ::testing::HasSubstr("PLX_Client_Devices"));
  // GetCode on no error is an error too.
  auto code = PLX_TEST_ARGS(PLX_Error_GetCode_Args);
  EXPECT_PLX_ERROR(api_, api_->PLX_Error_GetCode(&code), INVALID_ARGUMENT,
                   "PLX_Error_GetCode", "NULL");
  // Message of no error is the empty string.
  auto none = PLX_TEST_ARGS(PLX_Error_Message_Args);
  api_->PLX_Error_Message(&none);
  EXPECT_EQ(none.message_size, 0u);
}

TEST_F(MisuseTest, NewerCallerWithLargerStructIsAccepted) {
  // A caller built against a later minor passes a larger struct (fields
  // appended): accepted; the plugin reads and writes only what it knows.
  struct Bigger {
    PLX_Plugin_Attributes_Args v1;
    uint64_t appended[4];
  } big;
  std::memset(&big, 0, sizeof(big));
  big.v1.struct_size = sizeof(big);
  big.appended[0] = 0xfeedfacecafebeefull;
  ASSERT_PLX_OK(api_, api_->PLX_Plugin_Attributes(&big.v1));
  EXPECT_STREQ(big.v1.name, "reference");
  EXPECT_EQ(big.v1.abi_major, PLX_API_MAJOR);
  EXPECT_EQ(big.appended[0], 0xfeedfacecafebeefull);
  EXPECT_EQ(big.appended[1], 0u);
}

// ------------------------------------------------------------ handles

TEST_F(MisuseTest, NullHandles) {
  auto devices = PLX_TEST_ARGS(PLX_Client_Devices_Args);
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Devices(&devices), INVALID_ARGUMENT,
                   "PLX_Client_Devices", "client is NULL");
  int64_t ids[1];
  auto assign = PLX_TEST_ARGS(PLX_Client_DefaultDeviceAssignment_Args);
  assign.num_replicas = 1;
  assign.device_ids = ids;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_DefaultDeviceAssignment(&assign),
                   INVALID_ARGUMENT, "PLX_Client_DefaultDeviceAssignment",
                   "client is NULL");
  auto describe = PLX_TEST_ARGS(PLX_Device_Describe_Args);
  EXPECT_PLX_ERROR(api_, api_->PLX_Device_Describe(&describe), INVALID_ARGUMENT,
                   "PLX_Device_Describe", "device is NULL");
  auto ready = PLX_TEST_ARGS(PLX_Event_IsReady_Args);
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_IsReady(&ready), INVALID_ARGUMENT,
                   "PLX_Event_IsReady", "event is NULL");
  auto await_args = PLX_TEST_ARGS(PLX_Event_Await_Args);
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_Await(&await_args), INVALID_ARGUMENT,
                   "PLX_Event_Await", "event is NULL");
  auto on_ready = PLX_TEST_ARGS(PLX_Event_OnReady_Args);
  on_ready.callback = [](PLX_Error*, void*) {
    ADD_FAILURE() << "callback on a NULL event";
  };
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_OnReady(&on_ready), INVALID_ARGUMENT,
                   "PLX_Event_OnReady", "event is NULL");
  const float data[1] = {1};
  const int64_t dims[1] = {1};
  PLX_ArrayShape shape{
      PLX_ArrayShape_STRUCT_SIZE, PLX_Type_F32, dims, 1, nullptr, nullptr};
  auto upload = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  upload.data = data;
  upload.data_size = sizeof(data);
  upload.shape = &shape;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&upload),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "client is NULL");
#define PLX_NULL_BUFFER(slot)                                       \
  {                                                                 \
    auto a = PLX_TEST_ARGS(slot##_Args);                            \
    EXPECT_PLX_ERROR(api_, api_->slot(&a), INVALID_ARGUMENT, #slot, \
                     "buffer is NULL");                             \
  }
  PLX_NULL_BUFFER(PLX_Buffer_Shape)
  PLX_NULL_BUFFER(PLX_Buffer_ToHost)
  PLX_NULL_BUFFER(PLX_Buffer_CopyToDevice)
  PLX_NULL_BUFFER(PLX_Buffer_Delete)
  PLX_NULL_BUFFER(PLX_Buffer_IsDeleted)
#undef PLX_NULL_BUFFER
  auto compile = PLX_TEST_ARGS(PLX_Client_Compile_Args);
  compile.program = kAdd4;
  compile.program_size = sizeof(kAdd4) - 1;
  compile.format = "hlo-text";
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&compile), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "client is NULL");
#define PLX_NULL_EXECUTABLE(slot)                                   \
  {                                                                 \
    auto a = PLX_TEST_ARGS(slot##_Args);                            \
    EXPECT_PLX_ERROR(api_, api_->slot(&a), INVALID_ARGUMENT, #slot, \
                     "executable is NULL");                         \
  }
  PLX_NULL_EXECUTABLE(PLX_Executable_Signature)
  PLX_NULL_EXECUTABLE(PLX_Executable_Execute)
  PLX_NULL_EXECUTABLE(PLX_Executable_Serialize)
#undef PLX_NULL_EXECUTABLE
  auto deserialize = PLX_TEST_ARGS(PLX_Client_DeserializeExecutable_Args);
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_DeserializeExecutable(&deserialize),
                   INVALID_ARGUMENT, "PLX_Client_DeserializeExecutable",
                   "client is NULL");
}

TEST_F(MisuseTest, DestroyingNullIsOkForEveryDestroy) {
  auto c = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
  EXPECT_EQ(api_->PLX_Client_Destroy(&c), nullptr);
  auto b = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
  EXPECT_EQ(api_->PLX_Buffer_Destroy(&b), nullptr);
  auto x = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
  EXPECT_EQ(api_->PLX_Executable_Destroy(&x), nullptr);
  auto e = PLX_TEST_ARGS(PLX_Event_Destroy_Args);
  EXPECT_EQ(api_->PLX_Event_Destroy(&e), nullptr);
  auto err = PLX_TEST_ARGS(PLX_Error_Destroy_Args);
  api_->PLX_Error_Destroy(&err);  // returns nothing; must not crash
}

TEST_F(MisuseTest, DoubleDestroyAndUseAfterDestroyAreErrors) {
  PLX_Client* client = NewClient();
  ASSERT_NE(client, nullptr);
  PLX_Buffer* buffer = Upload(client, {1, 2, 3, 4}, {4});
  PLX_Executable* exe = Compile(client, kAdd4);
  ASSERT_NE(exe, nullptr);
  // An event: the done_with_host_buffer of an upload.
  const float data[4] = {1, 2, 3, 4};
  const int64_t dims[1] = {4};
  PLX_ArrayShape shape{
      PLX_ArrayShape_STRUCT_SIZE, PLX_Type_F32, dims, 1, nullptr, nullptr};
  PLX_Event* event = nullptr;
  auto upload = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  upload.client = client;
  upload.data = data;
  upload.data_size = sizeof(data);
  upload.shape = &shape;
  upload.done_with_host_buffer = &event;
  ASSERT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&upload));
  ASSERT_NE(event, nullptr);
  DestroyBuffer(upload.buffer);

  DestroyBuffer(buffer);
  auto b = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
  b.buffer = buffer;
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_Destroy(&b), INVALID_ARGUMENT,
                   "PLX_Buffer_Destroy", "not a live PLX_Buffer");
  auto s = PLX_TEST_ARGS(PLX_Buffer_Shape_Args);
  s.buffer = buffer;
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_Shape(&s), INVALID_ARGUMENT,
                   "PLX_Buffer_Shape", "not a live PLX_Buffer");

  DestroyExecutable(exe);
  auto x = PLX_TEST_ARGS(PLX_Executable_Destroy_Args);
  x.executable = exe;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Destroy(&x), INVALID_ARGUMENT,
                   "PLX_Executable_Destroy", "not a live PLX_Executable");
  auto sig = PLX_TEST_ARGS(PLX_Executable_Signature_Args);
  sig.executable = exe;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Signature(&sig), INVALID_ARGUMENT,
                   "PLX_Executable_Signature", "not a live");

  DestroyEvent(event);
  auto e = PLX_TEST_ARGS(PLX_Event_Destroy_Args);
  e.event = event;
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_Destroy(&e), INVALID_ARGUMENT,
                   "PLX_Event_Destroy", "not a live PLX_Event");
  auto w = PLX_TEST_ARGS(PLX_Event_Await_Args);
  w.event = event;
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_Await(&w), INVALID_ARGUMENT,
                   "PLX_Event_Await", "not a live PLX_Event");

  PLX_Device* device = nullptr;
  {
    auto d = PLX_TEST_ARGS(PLX_Client_Devices_Args);
    d.client = client;
    ASSERT_PLX_OK(api_, api_->PLX_Client_Devices(&d));
    device = d.devices[0];
  }
  DestroyClient(client);
  auto c = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
  c.client = client;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Destroy(&c), INVALID_ARGUMENT,
                   "PLX_Client_Destroy", "not a live PLX_Client");
  auto compile = PLX_TEST_ARGS(PLX_Client_Compile_Args);
  compile.client = client;
  compile.program = kAdd4;
  compile.program_size = sizeof(kAdd4) - 1;
  compile.format = "hlo-text";
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&compile), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "not a live PLX_Client");
  // The client's devices went with it.
  auto describe = PLX_TEST_ARGS(PLX_Device_Describe_Args);
  describe.device = device;
  EXPECT_PLX_ERROR(api_, api_->PLX_Device_Describe(&describe), INVALID_ARGUMENT,
                   "PLX_Device_Describe", "not a live");
}

TEST_F(MisuseTest, WrongKindAndForeignHandles) {
  PLX_Client* client = NewClient();
  PLX_Buffer* buffer = Upload(client, {1, 2, 3, 4}, {4});
  // A buffer where an executable is expected.
  auto sig = PLX_TEST_ARGS(PLX_Executable_Signature_Args);
  sig.executable = reinterpret_cast<PLX_Executable*>(buffer);
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Signature(&sig), INVALID_ARGUMENT,
                   "PLX_Executable_Signature",
                   "is a PLX_Buffer, expected a PLX_Executable");
  // A client where a device is expected.
  auto describe = PLX_TEST_ARGS(PLX_Device_Describe_Args);
  describe.device = reinterpret_cast<PLX_Device*>(client);
  EXPECT_PLX_ERROR(api_, api_->PLX_Device_Describe(&describe), INVALID_ARGUMENT,
                   "PLX_Device_Describe",
                   "is a PLX_Client, expected a PLX_Device");
  // A pointer the plugin never handed out (never dereferenced).
  int not_a_handle = 0;
  auto shape = PLX_TEST_ARGS(PLX_Buffer_Shape_Args);
  shape.buffer = reinterpret_cast<PLX_Buffer*>(&not_a_handle);
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_Shape(&shape), INVALID_ARGUMENT,
                   "PLX_Buffer_Shape", "never created");
  DestroyBuffer(buffer);
  DestroyClient(client);
}

TEST_F(MisuseTest, ClientDestroyWithLiveObjectsIsFailedPrecondition) {
  PLX_Client* client = NewClient();
  PLX_Buffer* buffer = Upload(client, {1, 2, 3, 4}, {4});
  PLX_Executable* exe = Compile(client, kAdd4);
  auto c = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
  c.client = client;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Destroy(&c), FAILED_PRECONDITION,
                   "PLX_Client_Destroy", "1 buffer(s)", "1 executable(s)");
  // Nothing was destroyed: the client and its objects still work.
  EXPECT_EQ(Download(buffer, 4), (std::vector<float>{1, 2, 3, 4}));
  DestroyBuffer(buffer);
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Destroy(&c), FAILED_PRECONDITION,
                   "PLX_Client_Destroy", "0 buffer(s)", "1 executable(s)");
  DestroyExecutable(exe);
  DestroyClient(client);
}

// ------------------------------------------------------------ options

TEST_F(MisuseTest, ClientOptions) {
  PLX_NamedValue opt{};
  opt.struct_size = PLX_NamedValue_STRUCT_SIZE;
  opt.name = "num_gpus";
  opt.kind = PLX_Value_INT64;
  opt.int64_value = 2;
  auto a = PLX_TEST_ARGS(PLX_Client_Create_Args);
  a.options = &opt;
  a.num_options = 1;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "'num_gpus'", "num_devices");
  EXPECT_EQ(a.client, nullptr);

  opt.name = "num_devices";
  opt.kind = PLX_Value_STRING;
  opt.string_value = "two";
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "num_devices", "integer");
  opt.kind = PLX_Value_INT64;
  opt.int64_value = 0;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "num_devices", "0");
  SetRawEnum(&opt.kind, 77);
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "kind 77");
  opt.kind = PLX_Value_STRING;
  opt.string_value = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "NULL string");
  opt.name = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "NULL name");
  opt.name = "num_devices";
  opt.struct_size = 0;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "struct_size");
  a.options = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Create(&a), INVALID_ARGUMENT,
                   "PLX_Client_Create", "NULL");
}

TEST_F(MisuseTest, DefaultDeviceAssignment) {
  PLX_Client* client = NewClient(2);
  int64_t ids[3] = {-1, -1, -1};
  auto a = PLX_TEST_ARGS(PLX_Client_DefaultDeviceAssignment_Args);
  a.client = client;
  a.num_replicas = 0;
  a.device_ids = ids;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_DefaultDeviceAssignment(&a),
                   INVALID_ARGUMENT, "PLX_Client_DefaultDeviceAssignment",
                   "num_replicas");
  a.num_replicas = 3;
  a.device_ids = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_DefaultDeviceAssignment(&a),
                   INVALID_ARGUMENT, "PLX_Client_DefaultDeviceAssignment",
                   "NULL");
  a.device_ids = ids;
  ASSERT_PLX_OK(api_, api_->PLX_Client_DefaultDeviceAssignment(&a));
  EXPECT_EQ(ids[0], 0);  // replica r on device r % 2
  EXPECT_EQ(ids[1], 1);
  EXPECT_EQ(ids[2], 0);
  DestroyClient(client);
}

// ------------------------------------------------------------ buffers

class BufferFromHostTest : public MisuseTest {
 protected:
  void SetUp() override {
    MisuseTest::SetUp();
    client_ = NewClient(1);
    shape_ = PLX_ArrayShape{PLX_ArrayShape_STRUCT_SIZE,
                            PLX_Type_F32,
                            dims_.data(),
                            dims_.size(),
                            nullptr,
                            nullptr};
    args_ = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
    args_.client = client_;
    args_.data = data_;
    args_.data_size = sizeof(data_);
    args_.shape = &shape_;
  }
  void TearDown() override {
    EXPECT_EQ(args_.buffer, nullptr) << "a failed call handed out a buffer";
    DestroyClient(client_);
  }
  PLX_Client* client_ = nullptr;
  float data_[6] = {1, 2, 3, 4, 5, 6};
  std::vector<int64_t> dims_ = {2, 3};
  PLX_ArrayShape shape_;
  PLX_Client_BufferFromHost_Args args_;
};

TEST_F(BufferFromHostTest, DataSizeMismatchNamesBothSizes) {
  args_.data_size = 20;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "data_size is 20", "f32[2,3]", "needs 24");
  args_.data_size = 28;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost", "28", "24");
}

TEST_F(BufferFromHostTest, BadElementType) {
  // 0 is INVALID; 16..28 are 1.2's types (v1_2_test.cc); 29 is the first
  // value no version defines.
  for (int32_t t : {0, 29, 99, -1}) {
    SetRawEnum(&shape_.element_type, t);
    EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                     INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                     "element type", std::to_string(t));
  }
}

TEST_F(BufferFromHostTest, NegativeDimension) {
  dims_ = {2, -3};
  shape_.dims = dims_.data();
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost", "negative");
}

TEST_F(BufferFromHostTest, RankAbove64) {
  std::vector<int64_t> dims(65, 1);
  shape_.dims = dims.data();
  shape_.num_dims = dims.size();
  args_.data_size = 4;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost", "rank 65",
                   "64");
}

TEST_F(BufferFromHostTest, SizeOverflow) {
  dims_ = {int64_t{1} << 40, int64_t{1} << 40};
  shape_.dims = dims_.data();
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost", "too large");
}

TEST_F(BufferFromHostTest, BadMinorToMajor) {
  for (std::vector<int64_t> m2m :
       std::vector<std::vector<int64_t>>{{0, 0}, {2, 0}, {-1, 0}, {1, 1}}) {
    shape_.minor_to_major = m2m.data();
    EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                     INVALID_ARGUMENT, "PLX_Client_BufferFromHost");
  }
}

TEST_F(BufferFromHostTest, BadLayoutText) {
  shape_.layout = "{1,0:T(";
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "bad layout '{1,0:T('");
}

TEST_F(BufferFromHostTest, NullPointers) {
  args_.shape = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "shape is NULL");
  args_.shape = &shape_;
  shape_.dims = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "dims is NULL");
  shape_.dims = dims_.data();
  args_.data = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "data is NULL");
  args_.data = data_;
  shape_.struct_size = 8;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "shape struct_size 8");
}

TEST_F(BufferFromHostTest, DeviceOfAnotherClient) {
  PLX_Client* other = NewClient(1);
  auto d = PLX_TEST_ARGS(PLX_Client_Devices_Args);
  d.client = other;
  ASSERT_PLX_OK(api_, api_->PLX_Client_Devices(&d));
  args_.device = d.devices[0];
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&args_),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost",
                   "another client");
  DestroyClient(other);
}

TEST_F(BufferFromHostTest, ColumnMajorInputIsHonoured) {
  // The same f32[2,3] {{1,2,3},{4,5,6}} given column-major.
  const float column_major[6] = {1, 4, 2, 5, 3, 6};
  const int64_t m2m[2] = {0, 1};
  shape_.minor_to_major = m2m;
  args_.data = column_major;
  ASSERT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&args_));
  PLX_Buffer* b = args_.buffer;
  args_.buffer = nullptr;
  EXPECT_EQ(Download(b, 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto s = PLX_TEST_ARGS(PLX_Buffer_Shape_Args);
  s.buffer = b;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_Shape(&s));
  EXPECT_EQ(s.shape.element_type, PLX_Type_F32);
  ASSERT_EQ(s.shape.num_dims, 2u);
  EXPECT_EQ(s.shape.dims[0], 2);
  EXPECT_EQ(s.shape.dims[1], 3);
  EXPECT_EQ(s.on_device_size, 24u);
  DestroyBuffer(b);
}

TEST_F(MisuseTest, ToHostSizeQueryAndTooSmallDestination) {
  PLX_Client* client = NewClient();
  PLX_Buffer* b = Upload(client, {1, 2, 3, 4, 5, 6}, {2, 3});
  auto a = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  a.buffer = b;
  a.dst = nullptr;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&a));
  EXPECT_EQ(a.dst_size, 24u);
  float small[5];
  a.dst = small;
  a.dst_size = sizeof(small);
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_ToHost(&a), INVALID_ARGUMENT,
                   "PLX_Buffer_ToHost", "dst_size is 20", "f32[2,3]",
                   "needs 24");
  // A bad host layout.
  float out[6];
  a.dst = out;
  a.dst_size = sizeof(out);
  const int64_t bad[2] = {1, 1};
  a.host_minor_to_major = bad;
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_ToHost(&a), INVALID_ARGUMENT,
                   "PLX_Buffer_ToHost");
  // A good one: column-major out.
  const int64_t col[2] = {0, 1};
  a.host_minor_to_major = col;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&a));
  EXPECT_EQ(std::vector<float>(out, out + 6),
            (std::vector<float>{1, 4, 2, 5, 3, 6}));
  DestroyBuffer(b);
  DestroyClient(client);
}

TEST_F(MisuseTest, DeletedBuffer) {
  PLX_Client* client = NewClient();
  PLX_Buffer* b = Upload(client, {1, 2, 3, 4}, {4});
  auto del = PLX_TEST_ARGS(PLX_Buffer_Delete_Args);
  del.buffer = b;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_Delete(&del));
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_Delete(&del));  // idempotent
  auto is = PLX_TEST_ARGS(PLX_Buffer_IsDeleted_Args);
  is.buffer = b;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_IsDeleted(&is));
  EXPECT_TRUE(is.is_deleted);
  float out[4];
  auto t = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  t.buffer = b;
  t.dst = out;
  t.dst_size = sizeof(out);
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_ToHost(&t), FAILED_PRECONDITION,
                   "PLX_Buffer_ToHost", "deleted");
  auto copy = PLX_TEST_ARGS(PLX_Buffer_CopyToDevice_Args);
  copy.buffer = b;
  EXPECT_PLX_ERROR(api_, api_->PLX_Buffer_CopyToDevice(&copy),
                   FAILED_PRECONDITION, "PLX_Buffer_CopyToDevice", "deleted");
  DestroyBuffer(b);  // destroying a deleted buffer is fine
  DestroyClient(client);
}

// ------------------------------------------------------------ compile

TEST_F(MisuseTest, CompileErrors) {
  PLX_Client* client = NewClient();
  auto a = PLX_TEST_ARGS(PLX_Client_Compile_Args);
  a.client = client;
  a.program = kAdd4;
  a.program_size = sizeof(kAdd4) - 1;
  a.format = "onnx";
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "'onnx'", "hlo-text");
  a.format = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "NULL");
  a.format = "hlo-text";
  a.program = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "NULL");

  // Malformed text: the error carries the line and column.
  const char bad[] =
      "HloModule m\n\nENTRY main {\n  x = f32[4] parameter(0)\n"
      "  ROOT y = f32[4] addd(x, x)\n}\n";
  a.program = bad;
  a.program_size = sizeof(bad) - 1;
  {
    ErrorInfo info = TakeError(api_, api_->PLX_Client_Compile(&a));
    ASSERT_TRUE(info.is_error);
    EXPECT_EQ(info.code, PLX_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(info.message, ::testing::HasSubstr("PLX_Client_Compile"));
    EXPECT_THAT(info.message, ContainsRegex("5:[0-9]+"));
  }
  // Only program_size bytes are read: the same text cut short is an error
  // at its (new) end, not a read past it.
  a.program = kAdd4;
  a.program_size = 30;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile");
  // Well-formed but wrong: the verifier's error.
  const char wrong[] =
      "HloModule m\n\nENTRY main {\n  x = f32[4] parameter(0)\n"
      "  ROOT y = f32[5] add(x, x)\n}\n";
  a.program = wrong;
  a.program_size = sizeof(wrong) - 1;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "'y'", "f32[5]", "f32[4]");

  // Options.
  a.program = kAdd4;
  a.program_size = sizeof(kAdd4) - 1;
  PLX_CompileOptions o{};
  o.struct_size = 8;
  a.options = &o;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "options->struct_size is 8");
  o.struct_size = PLX_CompileOptions_STRUCT_SIZE;
  o.num_replicas = -3;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "num_replicas -3");
  o.num_replicas = 1;
  const int64_t assignment[1] = {7};
  o.device_assignment = assignment;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "device 7");
  o.device_assignment = nullptr;
  o.num_custom_call_libraries = 1;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), INVALID_ARGUMENT,
                   "PLX_Client_Compile", "custom_call_libraries is NULL");
  const char* libs[1] = {"/nonexistent/libplexa_nothing.so"};
  o.custom_call_libraries = libs;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Compile(&a), NOT_FOUND,
                   "PLX_Client_Compile", "/nonexistent/libplexa_nothing.so");
  EXPECT_EQ(a.executable, nullptr);
  DestroyClient(client);
}

TEST_F(MisuseTest, SerializationIsUnimplementedInTheReferencePlugin) {
  PLX_Client* client = NewClient();
  PLX_Executable* exe = Compile(client, kAdd4);
  auto s = PLX_TEST_ARGS(PLX_Executable_Serialize_Args);
  s.executable = exe;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Serialize(&s), UNIMPLEMENTED,
                   "PLX_Executable_Serialize");
  auto d = PLX_TEST_ARGS(PLX_Client_DeserializeExecutable_Args);
  d.client = client;
  d.bytes = "xyz";
  d.bytes_size = 3;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_DeserializeExecutable(&d),
                   UNIMPLEMENTED, "PLX_Client_DeserializeExecutable");
  DestroyExecutable(exe);
  DestroyClient(client);
}

TEST_F(MisuseTest, CustomCallRegisterErrors) {
  auto a = PLX_TEST_ARGS(PLX_CustomCall_Register_Args);
  a.name = "t";
  EXPECT_PLX_ERROR(api_, api_->PLX_CustomCall_Register(&a), INVALID_ARGUMENT,
                   "PLX_CustomCall_Register", "function");
  static int dummy;
  a.function = &dummy;
  a.name = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_CustomCall_Register(&a), INVALID_ARGUMENT,
                   "PLX_CustomCall_Register", "name");
  a.name = "t";
  a.api_version = 7;
  EXPECT_PLX_ERROR(api_, api_->PLX_CustomCall_Register(&a), INVALID_ARGUMENT,
                   "PLX_CustomCall_Register", "api_version 7");
  a.api_version = 0;
  a.platform = "cuda";
  EXPECT_PLX_ERROR(api_, api_->PLX_CustomCall_Register(&a), INVALID_ARGUMENT,
                   "PLX_CustomCall_Register", "'cuda'", "'host'");
}

// ------------------------------------------------------------ execute

class ExecuteMisuseTest : public MisuseTest {
 protected:
  void SetUp() override {
    MisuseTest::SetUp();
    client_ = NewClient();
    exe_ = Compile(client_, kAdd4);
    ASSERT_NE(exe_, nullptr);
    x_ = Upload(client_, {1, 2, 3, 4}, {4});
    y_ = Upload(client_, {10, 20, 30, 40}, {4});
  }
  void TearDown() override {
    for (PLX_Buffer* b : out_) DestroyBuffer(b);
    DestroyBuffer(x_);
    DestroyBuffer(y_);
    DestroyExecutable(exe_);
    DestroyClient(client_);
  }
  PLX_Client* client_ = nullptr;
  PLX_Executable* exe_ = nullptr;
  PLX_Buffer* x_ = nullptr;
  PLX_Buffer* y_ = nullptr;
  std::vector<PLX_Buffer*> out_ = {nullptr};
};

TEST_F(ExecuteMisuseTest, RunsWhenEverythingIsRight) {
  std::vector<PLX_Buffer*> in = {x_, y_};
  auto a = ExecArgs(exe_, &in, &out_);
  ASSERT_PLX_OK(api_, api_->PLX_Executable_Execute(&a));
  EXPECT_EQ(Download(out_[0], 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ExecuteMisuseTest, WrongReplicaCount) {
  std::vector<PLX_Buffer*> in = {x_, y_};
  auto a = ExecArgs(exe_, &in, &out_);
  a.num_replicas = 2;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "compiled for 1 replica(s)",
                   "num_replicas is 2");
  a.num_replicas = 0;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "num_replicas is 0");
  EXPECT_EQ(out_[0], nullptr);
}

TEST_F(ExecuteMisuseTest, WrongArgumentCount) {
  std::vector<PLX_Buffer*> in = {x_};
  auto a = ExecArgs(exe_, &in, &out_);
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "takes 2 argument(s)",
                   "num_arguments is 1");
}

TEST_F(ExecuteMisuseTest, WrongArgumentShapeNamesBothShapes) {
  PLX_Buffer* z = Upload(client_, {1, 2, 3}, {3});
  std::vector<PLX_Buffer*> in = {x_, z};
  auto a = ExecArgs(exe_, &in, &out_);
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "arguments[0][1]", "f32[3]",
                   "f32[4]");
  DestroyBuffer(z);
}

TEST_F(ExecuteMisuseTest, OutputsArrayTooSmall) {
  std::vector<PLX_Buffer*> in = {x_, y_};
  auto a = ExecArgs(exe_, &in, &out_);
  a.num_outputs = 0;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "1 output(s)", "room for 0");
  // A tuple result has one output per leaf.
  PLX_Executable* two = Compile(client_, kTwoOutputs);
  std::vector<PLX_Buffer*> one_in = {x_};
  std::vector<PLX_Buffer*> one_out = {nullptr};
  auto b = ExecArgs(two, &one_in, &one_out);
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&b), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "2 output(s)", "room for 1");
  EXPECT_EQ(one_out[0], nullptr);
  std::vector<PLX_Buffer*> two_out = {nullptr, nullptr};
  auto c = ExecArgs(two, &one_in, &two_out);
  ASSERT_PLX_OK(api_, api_->PLX_Executable_Execute(&c));
  EXPECT_EQ(Download(two_out[0], 4), (std::vector<float>{2, 4, 6, 8}));
  EXPECT_EQ(Download(two_out[1], 4), (std::vector<float>{1, 4, 9, 16}));
  for (PLX_Buffer* o : two_out) DestroyBuffer(o);
  DestroyExecutable(two);
}

TEST_F(ExecuteMisuseTest, DeletedBufferAsArgument) {
  PLX_Buffer* z = Upload(client_, {1, 2, 3, 4}, {4});
  auto del = PLX_TEST_ARGS(PLX_Buffer_Delete_Args);
  del.buffer = z;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_Delete(&del));
  std::vector<PLX_Buffer*> in = {x_, z};
  auto a = ExecArgs(exe_, &in, &out_);
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), FAILED_PRECONDITION,
                   "PLX_Executable_Execute", "arguments[0][1]", "deleted");
  DestroyBuffer(z);
}

TEST_F(ExecuteMisuseTest, NullDestroyedAndForeignArguments) {
  std::vector<PLX_Buffer*> in = {x_, nullptr};
  auto a = ExecArgs(exe_, &in, &out_);
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "arguments[0][1] is NULL");
  PLX_Buffer* gone = Upload(client_, {1, 2, 3, 4}, {4});
  DestroyBuffer(gone);
  in[1] = gone;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "arguments[0][1]", "not a live");
  PLX_Client* other = NewClient();
  PLX_Buffer* foreign = Upload(other, {1, 2, 3, 4}, {4});
  in[1] = foreign;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "another client");
  DestroyBuffer(foreign);
  DestroyClient(other);
  in[1] = y_;
  a.arguments = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "NULL");
  a = ExecArgs(exe_, &in, &out_);
  a.outputs = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "NULL");
  a = ExecArgs(exe_, &in, &out_);
  const int64_t donated[1] = {5};
  a.donated = donated;
  a.num_donated = 1;
  EXPECT_PLX_ERROR(api_, api_->PLX_Executable_Execute(&a), INVALID_ARGUMENT,
                   "PLX_Executable_Execute", "donated");
  EXPECT_EQ(out_[0], nullptr);
}

TEST_F(ExecuteMisuseTest, DonatedArgumentIsDeletedAfterwards) {
  std::vector<PLX_Buffer*> in = {x_, y_};
  auto a = ExecArgs(exe_, &in, &out_);
  const int64_t donated[1] = {1};
  a.donated = donated;
  a.num_donated = 1;
  ASSERT_PLX_OK(api_, api_->PLX_Executable_Execute(&a));
  EXPECT_EQ(Download(out_[0], 4), (std::vector<float>{11, 22, 33, 44}));
  auto is = PLX_TEST_ARGS(PLX_Buffer_IsDeleted_Args);
  is.buffer = y_;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_IsDeleted(&is));
  EXPECT_TRUE(is.is_deleted);
  is.buffer = x_;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_IsDeleted(&is));
  EXPECT_FALSE(is.is_deleted);
}

// ------------------------------------------------------------ events

struct CallbackLog {
  std::atomic<int> calls{0};
  std::thread::id thread;
  bool had_error = false;
};

// The reference plugin's events only ever succeed (it runs synchronously;
// errors come back from the call itself), so the callback gets NULL.
// async_events_test.cc covers events that fail and complete later.
void LogCallback(PLX_Error* error, void* user) {
  auto* log = static_cast<CallbackLog*>(user);
  log->thread = std::this_thread::get_id();
  log->had_error = error != nullptr;
  log->calls.fetch_add(1);
}

TEST_F(ExecuteMisuseTest, ReadyEventsIsReadyAwaitOnReady) {
  std::vector<PLX_Buffer*> in = {x_, y_};
  auto a = ExecArgs(exe_, &in, &out_);
  PLX_Event* done = nullptr;
  a.completion_events = &done;
  ASSERT_PLX_OK(api_, api_->PLX_Executable_Execute(&a));
  ASSERT_NE(done, nullptr);
  // The reference plugin is synchronous: the event is ready at once.
  auto r = PLX_TEST_ARGS(PLX_Event_IsReady_Args);
  r.event = done;
  ASSERT_PLX_OK(api_, api_->PLX_Event_IsReady(&r));
  EXPECT_TRUE(r.is_ready);
  auto w = PLX_TEST_ARGS(PLX_Event_Await_Args);
  w.event = done;
  EXPECT_EQ(api_->PLX_Event_Await(&w), nullptr);
  EXPECT_EQ(api_->PLX_Event_Await(&w), nullptr);  // again: same answer
  // OnReady on a ready event: called once, now, on this thread, NULL error.
  CallbackLog log;
  auto o = PLX_TEST_ARGS(PLX_Event_OnReady_Args);
  o.event = done;
  o.callback = LogCallback;
  o.user_arg = &log;
  ASSERT_PLX_OK(api_, api_->PLX_Event_OnReady(&o));
  EXPECT_EQ(log.calls.load(), 1);
  EXPECT_EQ(log.thread, std::this_thread::get_id());
  EXPECT_FALSE(log.had_error);
  o.callback = nullptr;
  EXPECT_PLX_ERROR(api_, api_->PLX_Event_OnReady(&o), INVALID_ARGUMENT,
                   "PLX_Event_OnReady", "callback is NULL");
  EXPECT_EQ(log.calls.load(), 1);
  DestroyEvent(done);
  EXPECT_EQ(Download(out_[0], 4), (std::vector<float>{11, 22, 33, 44}));
}

TEST_F(ExecuteMisuseTest, AsyncToHostEvent) {
  float out[4] = {0, 0, 0, 0};
  PLX_Event* event = nullptr;
  auto t = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  t.buffer = x_;
  t.dst = out;
  t.dst_size = sizeof(out);
  t.event = &event;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&t));
  ASSERT_NE(event, nullptr);
  auto w = PLX_TEST_ARGS(PLX_Event_Await_Args);
  w.event = event;
  ASSERT_PLX_OK(api_, api_->PLX_Event_Await(&w));
  EXPECT_EQ(std::vector<float>(out, out + 4), (std::vector<float>{1, 2, 3, 4}));
  DestroyEvent(event);
}

}  // namespace
}  // namespace plexa::abi_test
