// Today's host library (abi/host) on the data path of a plugin built against
// the FROZEN 1.0 header: tests/abi/compat/v1_0_runner/, which implements
// every v1.0 slot for real (the core's parser and evaluator behind it).
//
//  - buffers up and down in non-default layouts, across devices, deleted;
//  - the programs of tests/abi/v1_0_programs/ (elementwise, dot with a
//    column-major result, reduce to a tuple, a while loop) against numpy's
//    results (v1_0_programs/gen_data.py wrote the .npy files);
//  - donation as 1.0 defines it (the donated argument is deleted when the
//    execution completes), replicas, serialization;
//  - custom calls as 1.0 defines them: registered (the seed's myfunc, a
//    typed call frame), found by dlsym in custom_call_libraries, unresolved;
//  - events through the raw table (a synchronous plugin: ready at once);
//  - what came after 1.0 is refused or left alone cleanly: the 1.2
//    statistics slot, the 1.1 program_shape field, tuple parameters, host
//    feeds, profiles, the 1.2 element types.
// Hand-computed values are worked out in the comments beside them.
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "core/npy/npy.h"
#include "core/runtime/profiler.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "examples/custom_call/myfunc.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::plexa::abi_test::TakeError;
using ::testing::HasSubstr;

std::string ProgramText(const std::string& name) {
  std::ifstream in(std::string(PLEXA_V1_0_PROGRAMS_DIR) + "/" + name + ".hlo");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

Literal Npy(const std::string& name) {
  auto l = ReadNpyFile(std::string(PLEXA_V1_0_PROGRAMS_DIR) + "/data/" + name +
                       ".npy");
  EXPECT_TRUE(l.ok()) << l.status();
  return l.ok() ? std::move(*l) : Literal();
}

// `l` in the reversed (column-major) layout: {0, 1, ..., rank-1}.
Literal ColumnMajor(const Literal& l) {
  std::vector<int64_t> m2m;
  for (int64_t d = 0; d < l.shape().rank(); ++d) m2m.push_back(d);
  auto moved = l.Relayout(LayoutUtil::MakeLayout(m2m));
  EXPECT_TRUE(moved.ok()) << moved.status();
  return std::move(*moved);
}

bool IsDeleted(const Buffer& b) {
  absl::StatusOr<bool> deleted = b.IsDeleted();
  EXPECT_TRUE(deleted.ok()) << deleted.status();
  return deleted.ok() && *deleted;
}

class V1_0PluginTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(PLEXA_V1_0_RUNNER_PLUGIN);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    api_ = plugin_->api();
    auto client =
        plugin_->CreateClient({{"num_devices", PLX_Value_INT64, "", 2}});
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }

  std::unique_ptr<Buffer> Upload(const Literal& l, int64_t device = 0) {
    auto b = client_->BufferFromLiteral(l, device);
    EXPECT_TRUE(b.ok()) << b.status();
    return b.ok() ? std::move(*b) : nullptr;
  }

  // Compiles `program`, runs it once on `args` (uploaded as they are, with
  // their layouts) and returns the outputs in the default layout.
  absl::StatusOr<std::vector<Literal>> Run(const std::string& program,
                                           const std::vector<Literal>& args,
                                           const CompileOptions& options = {}) {
    auto exe = client_->Compile(program, "hlo-text", options);
    if (!exe.ok()) return exe.status();
    std::vector<std::unique_ptr<Buffer>> owned;
    std::vector<Buffer*> raw;
    for (const Literal& a : args) {
      owned.push_back(Upload(a));
      raw.push_back(owned.back().get());
    }
    auto out = (*exe)->Execute({raw});
    if (!out.ok()) return out.status();
    std::vector<Literal> results;
    for (auto& b : (*out)[0]) {
      auto l = b->ToLiteral();
      if (!l.ok()) return l.status();
      results.push_back(std::move(*l));
    }
    return results;
  }

  std::shared_ptr<Plugin> plugin_;
  const PLX_Api* api_ = nullptr;
  std::unique_ptr<Client> client_;
};

TEST_F(V1_0PluginTest, LoadsAsAbi1_0) {
  const PluginAttributes& a = plugin_->attributes();
  EXPECT_EQ(a.name, "v1_0-runner");
  EXPECT_EQ(a.abi_major, 1);
  EXPECT_EQ(a.abi_minor, 0);
  EXPECT_EQ(a.formats, std::vector<std::string>{"hlo-text"});
  EXPECT_TRUE(plugin_->HasCapability(PLX_CAPABILITY_CUSTOM_CALL_TYPED));
  EXPECT_EQ(api_->version.minor, 0);
  EXPECT_EQ(api_->struct_size, PLX_Api_STRUCT_SIZE_1_0);
  ASSERT_EQ(client_->devices().size(), 2u);
  EXPECT_EQ(client_->devices()[1].id, 1);
  EXPECT_EQ(client_->devices()[1].kind, "test:v1_0-runner");
}

// ABI 1.2's strided host arrays reach a 1.0 plugin gathered by the host
// (the plugin would not read byte_strides); memories and device layouts
// are refused naming ABI 1.0. base = arange(8).reshape(2, 4) as f32;
// base[:, 1::2] = [[1, 3], [5, 7]] has strides (16, 8) from &base[1].
TEST_F(V1_0PluginTest, StridedUploadIsGatheredByTheHost) {
  const float base[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  const Shape shape =
      ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType::F32, {2, 2});
  auto b = client_->BufferFromHostData(&base[1], 28, shape, {16, 8});
  ASSERT_TRUE(b.ok()) << b.status();
  auto l = (*b)->ToLiteral();
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(l->Get<float>({0, 0}), 1.f);
  EXPECT_EQ(l->Get<float>({0, 1}), 3.f);
  EXPECT_EQ(l->Get<float>({1, 0}), 5.f);
  EXPECT_EQ(l->Get<float>({1, 1}), 7.f);
  UploadOptions column_major;
  column_major.device_layout = LayoutUtil::MakeLayout({0, 1});
  auto refused = client_->BufferFromHostData(base, 16, shape, {}, column_major);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(refused.status().message()),
              HasSubstr("(ABI 1.0) has no memory and layout slots"));
  EXPECT_FALSE(plugin_->HasMemories());
}

TEST_F(V1_0PluginTest, BuffersKeepTheirLayoutUpAndDown) {
  // f32[2,3] {{1,2,3},{4,5,6}} column-major: memory holds 1,4,2,5,3,6.
  const Literal m = Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}});
  auto b = Upload(ColumnMajor(m));
  auto shape = b->shape();
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->ToString(), "f32[2,3]{0,1}");
  auto back = b->ToLiteral();  // row-major
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, m);
  // Through the raw table, in the host layout the caller names.
  const int64_t col_major[] = {0, 1};
  float got[6] = {};
  auto to_host = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  to_host.buffer = b->handle();
  to_host.host_minor_to_major = col_major;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&to_host));  // size query
  EXPECT_EQ(to_host.dst_size, sizeof(got));
  to_host.dst = got;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&to_host));
  EXPECT_THAT(got, ::testing::ElementsAre(1, 4, 2, 5, 3, 6));

  // s32[2,2,2] from raw bytes in layout {0,1,2}: element (i,j,k) sits at
  // i + 2j + 4k; its value is to be 4i + 2j + k, i.e. 0..7 row-major.
  const int32_t bytes[8] = {0, 4, 2, 6, 1, 5, 3, 7};
  const int64_t dims[] = {2, 2, 2}, m2m[] = {0, 1, 2};
  PLX_ArrayShape s{};
  s.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  s.element_type = PLX_Type_S32;
  s.dims = dims;
  s.num_dims = 3;
  s.minor_to_major = m2m;
  auto from_host = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  from_host.client = client_->handle();
  from_host.data = bytes;
  from_host.data_size = sizeof(bytes);
  from_host.shape = &s;
  ASSERT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&from_host));
  auto raw_shape = PLX_TEST_ARGS(PLX_Buffer_Shape_Args);
  raw_shape.buffer = from_host.buffer;
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_Shape(&raw_shape));
  EXPECT_EQ(raw_shape.on_device_size, sizeof(bytes));
  EXPECT_EQ(raw_shape.device, client_->devices()[0].handle);
  int32_t row_major[8] = {};
  to_host = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  to_host.buffer = from_host.buffer;
  to_host.dst = row_major;
  to_host.dst_size = sizeof(row_major);
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&to_host));
  EXPECT_THAT(row_major, ::testing::ElementsAre(0, 1, 2, 3, 4, 5, 6, 7));
  auto destroy = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
  destroy.buffer = from_host.buffer;
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&destroy));

  // A data_size that is not what the shape needs names both sizes.
  from_host.data_size = 31;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&from_host),
                   INVALID_ARGUMENT, "31", "32");
}

TEST_F(V1_0PluginTest, CopyToAnotherDeviceThenDelete) {
  auto b = Upload(Literal::CreateR1<int32_t>({7, -8, 9}));
  auto copy = PLX_TEST_ARGS(PLX_Buffer_CopyToDevice_Args);
  copy.buffer = b->handle();
  copy.dst_device = client_->devices()[1].handle;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_CopyToDevice(&copy));
  auto shape = PLX_TEST_ARGS(PLX_Buffer_Shape_Args);
  shape.buffer = copy.dst_buffer;
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_Shape(&shape));
  EXPECT_EQ(shape.device, client_->devices()[1].handle);

  ASSERT_TRUE(b->Delete().ok());
  EXPECT_EQ(IsDeleted(*b), true);
  auto gone = b->ToLiteral();
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(gone.status().message(), HasSubstr("deleted"));
  // The copy is a buffer of its own.
  int32_t got[3] = {};
  auto to_host = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  to_host.buffer = copy.dst_buffer;
  to_host.dst = got;
  to_host.dst_size = sizeof(got);
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&to_host));
  EXPECT_THAT(got, ::testing::ElementsAre(7, -8, 9));
  auto destroy = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
  destroy.buffer = copy.dst_buffer;
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&destroy));
}

TEST_F(V1_0PluginTest, ElementwiseMatchesNumpy) {
  auto out = Run(ProgramText("elementwise"),
                 {ColumnMajor(Npy("elementwise_x")), Npy("elementwise_y")});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0], Npy("elementwise"));
}

TEST_F(V1_0PluginTest, DotWithAColumnMajorResultMatchesNumpy) {
  auto exe = client_->Compile(ProgramText("dot"), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  ASSERT_EQ((*exe)->output_shapes().size(), 1u);
  EXPECT_EQ((*exe)->output_shapes()[0].ToString(), "f32[2,2]{0,1}");
  auto a = Upload(ColumnMajor(Npy("dot_a")));
  auto b = Upload(Npy("dot_b"));
  auto out = (*exe)->Execute({{a.get(), b.get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  auto shape = (*out)[0][0]->shape();
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->ToString(), "f32[2,2]{0,1}");
  auto result = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, Npy("dot"));  // {{58, 64}, {139, 154}}
}

TEST_F(V1_0PluginTest, ReduceToATupleMatchesNumpy) {
  auto out = Run(ProgramText("reduce"), {ColumnMajor(Npy("reduce_x"))});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);  // the tuple's leaves
  EXPECT_EQ((*out)[0], Npy("reduce_0"));
  EXPECT_EQ((*out)[1], Npy("reduce_1"));
}

TEST_F(V1_0PluginTest, WhileLoopMatchesNumpy) {
  auto out = Run(ProgramText("while"), {Npy("while_n"), Npy("while_v")});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0], Npy("while_0"));
  EXPECT_EQ((*out)[1], Npy("while_1"));  // 32 v + 31 = {31, 63, -17}
}

TEST_F(V1_0PluginTest, DonatedArgumentIsConsumed) {
  auto exe = client_->Compile(ProgramText("elementwise"), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto x = Upload(Npy("elementwise_x"));
  auto y = Upload(Npy("elementwise_y"));
  // An index that is no argument: refused, nothing consumed.
  auto bad = (*exe)->Execute({{x.get(), y.get()}}, {2});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(IsDeleted(*x), false);

  auto out = (*exe)->Execute({{x.get(), y.get()}}, {0});
  ASSERT_TRUE(out.ok()) << out.status();
  auto result = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, Npy("elementwise"));
  EXPECT_EQ(IsDeleted(*x), true);
  EXPECT_EQ(IsDeleted(*y), false);
  // The consumed buffer cannot run again.
  auto again = (*exe)->Execute({{x.get(), y.get()}});
  EXPECT_EQ(again.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(again.status().message(), HasSubstr("deleted"));
}

TEST_F(V1_0PluginTest, ReplicasMeetInAllReduce) {
  const std::string program = R"(HloModule all_reduce

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2]{0} parameter(0)
  ROOT %r = f32[2]{0} all-reduce(%x), replica_groups={}, to_apply=%add
}
)";
  CompileOptions options;
  options.num_replicas = 2;
  auto exe = client_->Compile(program, "hlo-text", options);
  ASSERT_TRUE(exe.ok()) << exe.status();
  EXPECT_EQ((*exe)->num_replicas(), 2);
  auto x0 = Upload(Literal::CreateR1<float>({1, 2}), 0);
  auto x1 = Upload(Literal::CreateR1<float>({10, 20}), 1);
  auto out = (*exe)->Execute({{x0.get()}, {x1.get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 2; ++r) {  // {1 + 10, 2 + 20} on both
    auto l = (*out)[r][0]->ToLiteral();
    ASSERT_TRUE(l.ok()) << l.status();
    EXPECT_EQ(*l, Literal::CreateR1<float>({11, 22})) << "replica " << r;
  }
  // A buffer on the other replica's device is refused.
  auto swapped = (*exe)->Execute({{x1.get()}, {x0.get()}});
  EXPECT_EQ(swapped.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(V1_0PluginTest, SerializedExecutableRunsAgain) {
  auto exe = client_->Compile(ProgramText("dot"), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto bytes = (*exe)->Serialize();
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = client_->DeserializeExecutable(*bytes);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto a = Upload(Npy("dot_a"));
  auto b = Upload(Npy("dot_b"));
  auto out = (*loaded)->Execute({{a.get(), b.get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  auto result = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, Npy("dot"));
  auto garbage = client_->DeserializeExecutable("not an executable");
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kInvalidArgument);
}

// ------------------------------------------------------------ custom calls

// A typed (api_version 1) target: out = in0 + the number in backend_config;
// fails with a message when backend_config is "fail".
int32_t AddConfigTyped(PLX_CallFrame* frame) {
  const std::string config(frame->backend_config, frame->backend_config_size);
  if (config == "fail") {
    frame->error_message = "asked to fail";
    return 1;
  }
  const float add = std::stof(config);
  const auto* in = static_cast<const float*>(frame->args[0].data);
  auto* out = static_cast<float*>(frame->results[0].data);
  for (int64_t i = 0; i < frame->results[0].dims[0]; ++i) out[i] = in[i] + add;
  return 0;
}

TEST_F(V1_0PluginTest, SeedMyfuncRegisteredThroughTheAbi) {
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall(
                      "myfunc", reinterpret_cast<void*>(&myfunc), 0, "host")
                  .ok());
  const std::string program = R"(HloModule seed_custom_call

ENTRY main {
  x = f32[2] parameter(0)
  y = f32[2,3] parameter(1)
  ROOT z = f32[3,3] custom-call(x, y), custom_call_target="myfunc"
}
)";
  auto out =
      Run(program, {Literal::CreateR1<float>({1, 2}),
                    Literal::CreateR2<float>({{10, 20, 30}, {40, 50, 60}})});
  ASSERT_TRUE(out.ok()) << out.status();
  // z[i][j] = x[i % 2] * y[i % 2][j] + i (examples/custom_call/myfunc.h).
  EXPECT_EQ((*out)[0], Literal::CreateR2<float>(
                           {{10, 20, 30}, {81, 101, 121}, {12, 22, 32}}));
  // Another platform is refused.
  EXPECT_EQ(plugin_
                ->RegisterCustomCall("myfunc", reinterpret_cast<void*>(&myfunc),
                                     0, "vulkan")
                .code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(V1_0PluginTest, TypedCallFrameTarget) {
  ASSERT_TRUE(plugin_
                  ->RegisterCustomCall("add_config_typed",
                                       reinterpret_cast<void*>(&AddConfigTyped),
                                       1)
                  .ok());
  const std::string program = R"(HloModule typed

ENTRY main {
  x = f32[3] parameter(0)
  ROOT y = f32[3] custom-call(x), custom_call_target="add_config_typed", api_version=API_VERSION_TYPED_FFI, backend_config="0.5"
}
)";
  auto out = Run(program, {Literal::CreateR1<float>({1, 2, -3})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({1.5f, 2.5f, -2.5f}));

  std::string failing = program;
  failing.replace(failing.find("\"0.5\""), 5, "\"fail\"");
  auto failed = Run(failing, {Literal::CreateR1<float>({1, 2, -3})});
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(failed.status().message(), HasSubstr("asked to fail"));
}

TEST_F(V1_0PluginTest, LibraryTargetsByDlsym) {
  const std::string program = R"(HloModule library_targets

ENTRY main {
  m = f32[2,3] parameter(0)
  v = f32[4] parameter(1)
  sums = f32[2] custom-call(m), custom_call_target="row_sums_f32_2x3"
  mm = (f32[], f32[]) custom-call(v), custom_call_target="min_max_f32_4"
  lo = f32[] get-tuple-element(mm), index=0
  hi = f32[] get-tuple-element(mm), index=1
  ROOT t = (f32[2], f32[], f32[]) tuple(sums, lo, hi)
}
)";
  CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  // The matrix goes up column-major; the target sees it row-major.
  auto out =
      Run(program,
          {ColumnMajor(Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6.5f}})),
           Literal::CreateR1<float>({3, -7, 12, 0.5f})},
          options);
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ((*out)[0], Literal::CreateR1<float>({6, 15.5f}));  // 1+2+3, 4+5+6.5
  EXPECT_EQ((*out)[1], Literal::CreateR0<float>(-7));
  EXPECT_EQ((*out)[2], Literal::CreateR0<float>(12));
}

TEST_F(V1_0PluginTest, UnresolvedTargetIsNotFoundNamingThePlacesSearched) {
  CompileOptions options;
  options.custom_call_libraries = {PLEXA_CUSTOM_CALL_LIBRARY};
  auto exe = client_->Compile(R"(HloModule m

ENTRY main {
  v = f32[4] parameter(0)
  ROOT s = f32[4] custom-call(v), custom_call_target="no_such_target_v1_0"
}
)",
                              "hlo-text", options);
  ASSERT_FALSE(exe.ok());
  EXPECT_EQ(exe.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(exe.status().message(), HasSubstr("no_such_target_v1_0"));
  EXPECT_THAT(exe.status().message(), HasSubstr("the registry"));
  EXPECT_THAT(exe.status().message(), HasSubstr(PLEXA_CUSTOM_CALL_LIBRARY));
  EXPECT_THAT(exe.status().message(), HasSubstr("dlsym"));
}

// ------------------------------------------------------------------ events

struct Callbacks {
  int calls = 0;
  bool got_error = false;
};

void CountCallback(PLX_Error* error, void* user_arg) {
  auto* c = static_cast<Callbacks*>(user_arg);
  ++c->calls;
  c->got_error = error != nullptr;
  // The callback owns the error; a ready success carries none.
}

TEST_F(V1_0PluginTest, EventsOfASynchronousPluginAreReadyAtOnce) {
  auto exe = client_->Compile(ProgramText("dot"), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  const Literal a_value = Npy("dot_a");
  PLX_Event* uploaded = nullptr;
  auto from_host = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  const int64_t a_dims[] = {2, 3};
  PLX_ArrayShape a_shape{};
  a_shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  a_shape.element_type = PLX_Type_F32;
  a_shape.dims = a_dims;
  a_shape.num_dims = 2;
  from_host.client = client_->handle();
  from_host.data = a_value.data().data();
  from_host.data_size = a_value.data().size();
  from_host.shape = &a_shape;
  from_host.done_with_host_buffer = &uploaded;
  ASSERT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&from_host));
  ASSERT_NE(uploaded, nullptr);
  auto b = Upload(Npy("dot_b"));

  PLX_Buffer* args_r0[] = {from_host.buffer, b->handle()};
  PLX_Buffer* const* arguments[] = {args_r0};
  PLX_Buffer* out_r0[1] = {nullptr};
  PLX_Buffer** outputs[] = {out_r0};
  PLX_Event* done[1] = {nullptr};
  auto execute = PLX_TEST_ARGS(PLX_Executable_Execute_Args);
  execute.executable = (*exe)->handle();
  execute.num_replicas = 1;
  execute.arguments = arguments;
  execute.num_arguments = 2;
  execute.outputs = outputs;
  execute.num_outputs = 1;
  execute.completion_events = done;
  ASSERT_PLX_OK(api_, api_->PLX_Executable_Execute(&execute));
  ASSERT_NE(done[0], nullptr);

  float got[4] = {};
  PLX_Event* copied = nullptr;
  auto to_host = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  to_host.buffer = out_r0[0];
  to_host.dst = got;
  to_host.dst_size = sizeof(got);
  to_host.event = &copied;
  ASSERT_PLX_OK(api_, api_->PLX_Buffer_ToHost(&to_host));
  ASSERT_NE(copied, nullptr);

  for (PLX_Event* e : {uploaded, done[0], copied}) {
    auto ready = PLX_TEST_ARGS(PLX_Event_IsReady_Args);
    ready.event = e;
    EXPECT_PLX_OK(api_, api_->PLX_Event_IsReady(&ready));
    EXPECT_TRUE(ready.is_ready);
    Callbacks c;
    auto on_ready = PLX_TEST_ARGS(PLX_Event_OnReady_Args);
    on_ready.event = e;
    on_ready.callback = CountCallback;
    on_ready.user_arg = &c;
    EXPECT_PLX_OK(api_, api_->PLX_Event_OnReady(&on_ready));
    EXPECT_EQ(c.calls, 1);  // at once, on this thread
    EXPECT_FALSE(c.got_error);
    on_ready.callback = nullptr;
    EXPECT_PLX_ERROR(api_, api_->PLX_Event_OnReady(&on_ready), INVALID_ARGUMENT,
                     "PLX_Event_OnReady", "callback");
    auto await = PLX_TEST_ARGS(PLX_Event_Await_Args);
    await.event = e;
    EXPECT_PLX_OK(api_, api_->PLX_Event_Await(&await));
    auto destroy = PLX_TEST_ARGS(PLX_Event_Destroy_Args);
    destroy.event = e;
    EXPECT_PLX_OK(api_, api_->PLX_Event_Destroy(&destroy));
  }
  auto destroy_null = PLX_TEST_ARGS(PLX_Event_Destroy_Args);
  EXPECT_PLX_OK(api_, api_->PLX_Event_Destroy(&destroy_null));
  // {{1,2,3},{4,5,6}} x {{7,8},{9,10},{11,12}} = {{58,64},{139,154}},
  // row-major.
  EXPECT_THAT(got, ::testing::ElementsAre(58, 64, 139, 154));

  for (PLX_Buffer* buffer : {from_host.buffer, out_r0[0]}) {
    auto destroy = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
    destroy.buffer = buffer;
    EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&destroy));
  }
}

// ------------------------------------------- what came after 1.0, refused

TEST_F(V1_0PluginTest, NewerCallsAreRefusedNamingTheVersion) {
  auto exe = client_->Compile(ProgramText("dot"), "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  // 1.2's statistics slot: past the end of a 1.0 table, never read.
  EXPECT_FALSE(PLX_API_HAS_SLOT(api_, PLX_Executable_Statistics));
  auto stats = (*exe)->GetStatistics();
  EXPECT_EQ(stats.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(stats.status().message(), HasSubstr("ABI 1.0"));
  EXPECT_THAT(stats.status().message(), HasSubstr("PLX_Executable_Statistics"));
  // 1.1's program_shape: a 1.0 plugin neither writes it nor the host
  // invents one.
  EXPECT_FALSE((*exe)->program_shape().has_value());
  const char sentinel[] = "untouched";
  auto sig = PLX_TEST_ARGS(PLX_Executable_Signature_Args);
  sig.executable = (*exe)->handle();
  sig.program_shape = sentinel;
  EXPECT_PLX_OK(api_, api_->PLX_Executable_Signature(&sig));
  EXPECT_EQ(sig.program_shape, sentinel);
  EXPECT_EQ(sig.num_outputs, 1u);
  // 1.1's tuple parameters: the host refuses them, naming the plugin's
  // version; the plugin refuses such a program too.
  auto tuple_param = ParameterBuffers(
      *client_, Literal::MakeTuple({Literal::CreateR0<float>(1)}));
  EXPECT_EQ(tuple_param.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(tuple_param.status().message(), HasSubstr("ABI 1.0"));
  auto tuple_program = client_->Compile(R"(HloModule t

ENTRY main {
  p = (f32[], s32[]) parameter(0)
  ROOT x = f32[] get-tuple-element(p), index=0
}
)",
                                        "hlo-text");
  EXPECT_EQ(tuple_program.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(tuple_program.status().message(), HasSubstr("ABI 1.1"));
  // 1.1's host feeds: an infeed program is refused at compile time.
  auto infeed = client_->Compile(R"(HloModule f

ENTRY main {
  t = token[] after-all()
  in = (f32[2], token[]) infeed(t)
  ROOT x = f32[2] get-tuple-element(in), index=0
}
)",
                                 "hlo-text");
  EXPECT_EQ(infeed.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(infeed.status().message(), HasSubstr("ABI 1.1"));
  // 1.1's feeds and 1.2's profiler extensions on a plain program: skipped
  // by a plugin that does not know them; the run is right and unprofiled.
  auto a = Upload(Npy("dot_a"));
  auto b = Upload(Npy("dot_b"));
  HostFeedQueue in_queue, out_queue;
  QueueFeeds feeds(&in_queue, &out_queue);
  RecordingProfiler profiler;
  auto out = (*exe)->Execute({{a.get(), b.get()}}, {}, &feeds, &profiler);
  ASSERT_TRUE(out.ok()) << out.status();
  auto result = (*out)[0][0]->ToLiteral();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(*result, Npy("dot"));
  EXPECT_TRUE(profiler.events().empty());
  // 1.2's element types are not 1.0 types.
  const int64_t dims[] = {4};
  PLX_ArrayShape s4{};
  s4.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  s4.element_type = PLX_Type_S4;
  s4.dims = dims;
  s4.num_dims = 1;
  const uint8_t packed[2] = {0x21, 0x43};
  auto from_host = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  from_host.client = client_->handle();
  from_host.data = packed;
  from_host.data_size = sizeof(packed);
  from_host.shape = &s4;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_BufferFromHost(&from_host),
                   INVALID_ARGUMENT, "PLX_Client_BufferFromHost", "ABI 1.0");
}

TEST_F(V1_0PluginTest, ClientDestroyWaitsForItsBuffers) {
  auto create = PLX_TEST_ARGS(PLX_Client_Create_Args);
  ASSERT_PLX_OK(api_, api_->PLX_Client_Create(&create));
  const float one = 1;
  PLX_ArrayShape scalar{};
  scalar.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  scalar.element_type = PLX_Type_F32;
  auto from_host = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  from_host.client = create.client;
  from_host.data = &one;
  from_host.data_size = sizeof(one);
  from_host.shape = &scalar;
  ASSERT_PLX_OK(api_, api_->PLX_Client_BufferFromHost(&from_host));
  auto destroy = PLX_TEST_ARGS(PLX_Client_Destroy_Args);
  destroy.client = create.client;
  EXPECT_PLX_ERROR(api_, api_->PLX_Client_Destroy(&destroy),
                   FAILED_PRECONDITION, "PLX_Client_Destroy", "1 buffer");
  auto destroy_buffer = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
  destroy_buffer.buffer = from_host.buffer;
  EXPECT_PLX_OK(api_, api_->PLX_Buffer_Destroy(&destroy_buffer));
  EXPECT_PLX_OK(api_, api_->PLX_Client_Destroy(&destroy));
}

}  // namespace
}  // namespace plexa::host
