// ABI 1.2: memories, memory statistics, structured layouts and strided host
// arrays, on every in-tree plugin and on the asynctest plugin (which has a
// second, limited memory), through the host library and the raw table.
// Every expected value is written by hand from the arrays in the test.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "abi/host/plugin_host.h"
#include "abi_test_util.h"
#include "absl/status/status.h"
#include "core/literal/literal.h"
#include "core/shape/layout_util.h"
#include "core/shape/shape_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa::host {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr char kNegate[] = R"(HloModule negate
ENTRY main {
  x = f32[256] parameter(0)
  ROOT y = f32[256] negate(x)
})";

struct Loaded {
  std::shared_ptr<Plugin> plugin;
  std::unique_ptr<Client> client;
};

Loaded Load(const char* path, int64_t num_devices = 1) {
  Loaded l;
  auto plugin = Plugin::Load(path);
  EXPECT_TRUE(plugin.ok()) << plugin.status();
  if (!plugin.ok()) return l;
  l.plugin = *plugin;
  auto client = l.plugin->CreateClient(
      {{"num_devices", PLX_Value_INT64, "", num_devices}});
  EXPECT_TRUE(client.ok()) << client.status();
  if (client.ok()) l.client = std::move(*client);
  return l;
}

Shape F32(std::vector<int64_t> dims) {
  return ShapeUtil::MakeShapeWithDescendingLayout(PrimitiveType::F32, dims);
}

std::vector<float> Values(const Literal& l) {
  std::vector<float> out(l.data().size() / sizeof(float));
  std::memcpy(out.data(), l.data().data(), l.data().size());
  return out;
}

absl::StatusOr<std::vector<float>> Download(const Buffer& b) {
  auto literal = b.ToLiteral();
  if (!literal.ok()) return literal.status();
  return Values(*literal);
}

class MemoryLayoutTest : public ::testing::TestWithParam<const char*> {};

TEST_P(MemoryLayoutTest, EveryDeviceListsItsDefaultMemoryFirst) {
  Loaded l = Load(GetParam(), 2);
  ASSERT_NE(l.client, nullptr);
  ASSERT_TRUE(l.plugin->HasMemories());
  std::vector<int64_t> ids;
  for (int64_t d = 0; d < 2; ++d) {
    auto memories = l.client->Memories(d);
    ASSERT_TRUE(memories.ok()) << memories.status();
    ASSERT_GE(memories->size(), 1u);
    EXPECT_EQ((*memories)[0].kind, PLX_MemoryKind_DEVICE);
    EXPECT_EQ((*memories)[0].kind_name, "device");
    for (const MemoryInfo& m : *memories) {
      EXPECT_EQ(m.device_index, d);
      ids.push_back(m.id);
    }
  }
  // Ids are unique within the client.
  std::vector<int64_t> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::unique(sorted.begin(), sorted.end()), sorted.end());
}

TEST_P(MemoryLayoutTest, StatisticsCountBuffersUntilTheyGo) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  auto memories = l.client->Memories(0);
  ASSERT_TRUE(memories.ok()) << memories.status();
  const MemoryInfo& device = (*memories)[0];
  auto before = l.client->GetMemoryStatistics(device);
  ASSERT_TRUE(before.ok()) << before.status();
  EXPECT_EQ(before->bytes_in_use, 0);
  EXPECT_EQ(before->num_allocs, 0);

  std::vector<float> x(256, 1.5f);
  auto b = l.client->BufferFromHostData(x.data(), 1024, F32({256}), {});
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*b)->ReadyEvent().value()->Await().ok());
  auto one = l.client->GetMemoryStatistics(device);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_GE(one->bytes_in_use, 1024);  // at least the data; padding allowed
  EXPECT_EQ(one->num_allocs, 1);
  EXPECT_EQ(one->largest_alloc_size, one->bytes_in_use);
  EXPECT_EQ(one->peak_bytes_in_use, one->bytes_in_use);

  // An execution's output is the host's too.
  auto exe = l.client->Compile(kNegate, "hlo-text");
  ASSERT_TRUE(exe.ok()) << exe.status();
  auto out = (*exe)->Execute({{b->get()}});
  ASSERT_TRUE(out.ok()) << out.status();
  auto two = l.client->GetMemoryStatistics(device);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->num_allocs, 2);
  EXPECT_EQ(two->bytes_in_use, 2 * one->bytes_in_use);
  EXPECT_EQ(two->peak_bytes_in_use, two->bytes_in_use);

  b->reset();
  (*out)[0].clear();
  auto after = l.client->GetMemoryStatistics(device);
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->bytes_in_use, 0);
  EXPECT_EQ(after->num_allocs, 0);
  EXPECT_EQ(after->largest_alloc_size, 0);
  EXPECT_EQ(after->peak_bytes_in_use, two->peak_bytes_in_use);
}

TEST_P(MemoryLayoutTest, BuffersLiveOnTheDefaultMemoryInTheirLayout) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  auto memories = l.client->Memories(0);
  ASSERT_TRUE(memories.ok()) << memories.status();
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  auto b = l.client->BufferFromHostData(x.data(), 24, F32({2, 3}), {});
  ASSERT_TRUE(b.ok()) << b.status();
  auto placement = (*b)->GetPlacement();
  ASSERT_TRUE(placement.ok()) << placement.status();
  EXPECT_EQ(placement->memory, (*memories)[0].handle);
  EXPECT_THAT(placement->layout.minor_to_major(), ElementsAre(1, 0));
  EXPECT_TRUE(placement->layout.tiles().empty());
  EXPECT_EQ(placement->layout.element_size_in_bits(), 0);
}

TEST_P(MemoryLayoutTest, ThePreferredLayoutIsOneTheBufferTakes) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  auto preferred = l.client->PreferredLayout(PrimitiveType::F32, {2, 3});
  ASSERT_TRUE(preferred.ok()) << preferred.status();
  ASSERT_EQ(preferred->minor_to_major().size(), 2u);
  // Asking again gives the same answer (the arrays stay valid).
  auto again = l.client->PreferredLayout(PrimitiveType::F32, {2, 3});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*preferred, *again);
  UploadOptions options;
  options.device_layout = *preferred;
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  auto b = l.client->BufferFromHostData(x.data(), 24, F32({2, 3}), {}, options);
  ASSERT_TRUE(b.ok()) << b.status();
  auto placement = (*b)->GetPlacement();
  ASSERT_TRUE(placement.ok()) << placement.status();
  EXPECT_EQ(placement->layout, *preferred);
}

// A dense view in another dimension order costs no copy: the strides are
// the layout. numpy: a = arange(6, dtype=float32).reshape(3, 2); a.T has
// shape (2, 3) and strides (4, 8).
TEST_P(MemoryLayoutTest, ATransposedViewIsTakenAsItsLayout) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  const std::vector<float> a = {0, 1, 2, 3, 4, 5};
  auto b = l.client->BufferFromHostData(a.data(), 24, F32({2, 3}), {4, 8});
  if (abi_test::PluginName(GetParam()) == "asynctest") {
    // It holds row-major f32 only: the view's layout is refused by name.
    EXPECT_EQ(b.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(std::string(b.status().message()), HasSubstr("{0,1}"));
    return;
  }
  ASSERT_TRUE(b.ok()) << b.status();
  auto placement = (*b)->GetPlacement();
  ASSERT_TRUE(placement.ok()) << placement.status();
  EXPECT_THAT(placement->layout.minor_to_major(), ElementsAre(0, 1));
  auto values = Download(**b);
  ASSERT_TRUE(values.ok()) << values.status();
  // a.T = [[0, 2, 4], [1, 3, 5]]
  EXPECT_THAT(*values, ElementsAre(0, 2, 4, 1, 3, 5));
}

// Views that are not dense are gathered: every other column, a reversed
// vector (negative stride, data pointing at the last element), a broadcast
// row (stride 0).
TEST_P(MemoryLayoutTest, StridedViewsAreGathered) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  // base = arange(8).reshape(2, 4); base[:, ::2] = [[0, 2], [4, 6]],
  // strides (16, 8), spanning 16 * 1 + 8 * 1 + 4 = 28 bytes.
  const std::vector<float> base = {0, 1, 2, 3, 4, 5, 6, 7};
  auto cols =
      l.client->BufferFromHostData(base.data(), 28, F32({2, 2}), {16, 8});
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_THAT(Download(**cols).value(), ElementsAre(0, 2, 4, 6));
  // base[1, ::-1] = [7, 6, 5, 4]: origin &base[7], stride -4.
  auto reversed = l.client->BufferFromHostData(&base[7], 16, F32({4}), {-4});
  ASSERT_TRUE(reversed.ok()) << reversed.status();
  EXPECT_THAT(Download(**reversed).value(), ElementsAre(7, 6, 5, 4));
  // broadcast_to(base[:2], (3, 2)) = [[0, 1]] * 3: strides (0, 4).
  auto rows = l.client->BufferFromHostData(base.data(), 8, F32({3, 2}), {0, 4});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_THAT(Download(**rows).value(), ElementsAre(0, 1, 0, 1, 0, 1));
}

TEST_P(MemoryLayoutTest, BadStridesAreErrors) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  const std::vector<float> base(8, 0.f);
  auto odd =
      l.client->BufferFromHostData(base.data(), 32, F32({2, 2}), {16, 6});
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(odd.status().message()),
              HasSubstr("byte_strides[1] = 6 is not a multiple"));
  auto short_data =
      l.client->BufferFromHostData(base.data(), 20, F32({2, 2}), {16, 8});
  EXPECT_EQ(short_data.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(short_data.status().message()),
              HasSubstr("reach 28"));
  auto count = l.client->BufferFromHostData(base.data(), 32, F32({2, 2}), {16});
  EXPECT_EQ(count.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(count.status().message()),
              HasSubstr("1 byte_strides for f32[2,2]"));
}

// A requested device layout: the values are converted on the way and read
// back in row-major order; layouts the plugin cannot hold are refused.
TEST_P(MemoryLayoutTest, ARequestedDeviceLayoutIsHonouredOrRefused) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  const std::vector<float> x = {1, 2, 3, 4, 5, 6};
  UploadOptions column_major;
  column_major.device_layout = LayoutUtil::MakeLayout({0, 1});
  auto b =
      l.client->BufferFromHostData(x.data(), 24, F32({2, 3}), {}, column_major);
  if (abi_test::PluginName(GetParam()) == "asynctest") {
    // It holds row-major f32 only, and says so.
    EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(b.status().message()), HasSubstr("row-major"));
  } else {
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_THAT((*b)->GetPlacement()->layout.minor_to_major(),
                ElementsAre(0, 1));
    EXPECT_THAT(Download(**b).value(), ElementsAre(1, 2, 3, 4, 5, 6));
  }
  UploadOptions tiled;
  tiled.device_layout = LayoutUtil::MakeLayout({1, 0});
  tiled.device_layout->mutable_tiles()->push_back(Tile({2, 2}));
  auto t = l.client->BufferFromHostData(x.data(), 24, F32({2, 3}), {}, tiled);
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("device_layout"));
  UploadOptions spaced;
  spaced.device_layout = LayoutUtil::MakeLayout({1, 0});
  spaced.device_layout->set_memory_space(1);
  auto s = l.client->BufferFromHostData(x.data(), 24, F32({2, 3}), {}, spaced);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.status().message()), HasSubstr("memory space 1"));
}

PLEXA_INSTANTIATE_ON_PLUGINS(MemoryLayoutTest);
INSTANTIATE_TEST_SUITE_P(AsyncTest, MemoryLayoutTest,
                         ::testing::Values(PLEXA_ASYNCTEST_PLUGIN),
                         [](const auto&) { return "asynctest"; });

// The asynctest plugin's second memory: buffers placed there are counted
// there, its limit is enforced, and placement reports it.
TEST(AsyncTestMemories, BuffersCanBePlacedOnThePinnedMemory) {
  Loaded l = Load(PLEXA_ASYNCTEST_PLUGIN, 2);
  ASSERT_NE(l.client, nullptr);
  auto memories = l.client->Memories(1);
  ASSERT_TRUE(memories.ok()) << memories.status();
  ASSERT_EQ(memories->size(), 2u);
  const MemoryInfo& device = (*memories)[0];
  const MemoryInfo& pinned = (*memories)[1];
  EXPECT_EQ(pinned.kind, PLX_MemoryKind_HOST_VISIBLE);
  EXPECT_EQ(pinned.kind_name, "pinned_host");
  EXPECT_EQ(l.client->GetMemoryStatistics(pinned)->bytes_limit, 1 << 20);

  UploadOptions on_pinned;
  on_pinned.memory = pinned.handle;
  std::vector<float> x(256, 2.0f);
  auto b =
      l.client->BufferFromHostData(x.data(), 1024, F32({256}), {}, on_pinned);
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*b)->ReadyEvent().value()->Await().ok());
  EXPECT_EQ((*b)->GetPlacement()->memory, pinned.handle);
  EXPECT_EQ(l.client->GetMemoryStatistics(pinned)->bytes_in_use, 1024);
  EXPECT_EQ(l.client->GetMemoryStatistics(device)->bytes_in_use, 0);
  EXPECT_THAT(Download(**b).value(), ::testing::Each(2.0f));

  // 1 MiB in all: another 1 MiB does not fit.
  std::vector<float> big(1 << 18, 0.f);
  auto too_big = l.client->BufferFromHostData(big.data(), 1 << 20,
                                              F32({1 << 18}), {}, on_pinned);
  EXPECT_EQ(too_big.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(too_big.status().message()),
              HasSubstr("'pinned_host' memory"));

  // The memory of device 1 given with device 0: a contradiction.
  auto other = l.client->Memories(0);
  ASSERT_TRUE(other.ok());
  const PLX_Api* api = l.plugin->api();
  auto args = PLX_TEST_ARGS(PLX_Client_BufferFromHost_Args);
  PLX_ArrayShape shape{};
  const int64_t dims[1] = {256};
  shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  shape.element_type = PLX_Type_F32;
  shape.dims = dims;
  shape.num_dims = 1;
  args.client = l.client->handle();
  args.device = l.client->devices()[0].handle;
  args.memory = pinned.handle;
  args.data = x.data();
  args.data_size = 1024;
  args.shape = &shape;
  PLX_Error* error = api->PLX_Client_BufferFromHost(&args);
  ASSERT_NE(error, nullptr);
  absl::Status status = ConsumeError(api, error);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              HasSubstr("belongs to device 1, not to the device given (0)"));
  b->reset();
  EXPECT_EQ(l.client->GetMemoryStatistics(pinned)->bytes_in_use, 0);
}

// Misuse through the raw table, and a 1.0 caller whose struct ends before
// the 1.2 fields: whatever lies beyond its struct_size is not read (the
// zero defaults apply: default memory, dense data, the host's layout).
class RawMemoryTest : public ::testing::TestWithParam<const char*> {};

TEST_P(RawMemoryTest, MisuseIsAnErrorNamingTheCall) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  const PLX_Api* api = l.plugin->api();
  auto expect_error = [&](PLX_Error* e, absl::StatusCode code,
                          const std::string& text) {
    ASSERT_NE(e, nullptr) << text;
    absl::Status s = ConsumeError(api, e);
    EXPECT_EQ(s.code(), code) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(text));
  };
  auto describe = PLX_TEST_ARGS(PLX_Memory_Describe_Args);
  expect_error(api->PLX_Memory_Describe(&describe),
               absl::StatusCode::kInvalidArgument,
               "PLX_Memory_Describe: memory is NULL");
  describe.memory =
      reinterpret_cast<PLX_Memory*>(l.client->devices()[0].handle);
  expect_error(api->PLX_Memory_Describe(&describe),
               absl::StatusCode::kInvalidArgument,
               "is a PLX_Device, expected a PLX_Memory");
  auto stats = PLX_TEST_ARGS(PLX_Memory_Statistics_Args);
  stats.struct_size = 8;
  expect_error(api->PLX_Memory_Statistics(&stats),
               absl::StatusCode::kInvalidArgument, "struct_size is 8");

  auto preferred = PLX_TEST_ARGS(PLX_Client_PreferredLayout_Args);
  const int64_t dims[2] = {2, 3};
  preferred.client = l.client->handle();
  preferred.element_type = PLX_Type_F32;
  preferred.dims = dims;
  preferred.num_dims = 2;
  expect_error(api->PLX_Client_PreferredLayout(&preferred),
               absl::StatusCode::kInvalidArgument, "layout is NULL");
  PLX_Layout layout{};
  preferred.layout = &layout;
  expect_error(api->PLX_Client_PreferredLayout(&preferred),
               absl::StatusCode::kInvalidArgument,
               "set it to PLX_Layout_STRUCT_SIZE");
  layout.struct_size = PLX_Layout_STRUCT_SIZE;
  preferred.element_type = static_cast<PLX_Type>(99);
  expect_error(api->PLX_Client_PreferredLayout(&preferred),
               absl::StatusCode::kInvalidArgument, "99");

  // A deleted buffer has no placement.
  std::vector<float> x(256, 0.f);
  auto b = l.client->BufferFromHostData(x.data(), 1024, F32({256}), {});
  ASSERT_TRUE(b.ok()) << b.status();
  ASSERT_TRUE((*b)->Delete().ok());
  auto placement = PLX_TEST_ARGS(PLX_Buffer_Layout_Args);
  placement.buffer = (*b)->handle();
  placement.layout = &layout;
  expect_error(api->PLX_Buffer_Layout(&placement),
               absl::StatusCode::kFailedPrecondition, "was deleted");
}

TEST_P(RawMemoryTest, AnOlderCallersStructEndsBeforeThe1_2Fields) {
  Loaded l = Load(GetParam());
  ASSERT_NE(l.client, nullptr);
  const PLX_Api* api = l.plugin->api();
  const float x[2] = {3.f, 4.f};
  const int64_t dims[1] = {2};
  PLX_ArrayShape shape{};
  shape.struct_size = PLX_ArrayShape_STRUCT_SIZE;
  shape.element_type = PLX_Type_F32;
  shape.dims = dims;
  shape.num_dims = 1;
  PLX_Client_BufferFromHost_Args args;
  // Garbage everywhere a 1.0 caller's struct does not reach.
  std::memset(&args, 0xA5, sizeof(args));
  std::memset(&args, 0, PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0);
  args.struct_size = PLX_Client_BufferFromHost_Args_STRUCT_SIZE_1_0;
  args.client = l.client->handle();
  args.data = x;
  args.data_size = sizeof(x);
  args.shape = &shape;
  PLX_Error* e = api->PLX_Client_BufferFromHost(&args);
  ASSERT_EQ(e, nullptr) << ConsumeError(api, e);
  auto out = PLX_TEST_ARGS(PLX_Buffer_ToHost_Args);
  float got[2] = {0, 0};
  out.buffer = args.buffer;
  out.dst = got;
  out.dst_size = sizeof(got);
  e = api->PLX_Buffer_ToHost(&out);
  ASSERT_EQ(e, nullptr) << ConsumeError(api, e);
  EXPECT_EQ(got[0], 3.f);
  EXPECT_EQ(got[1], 4.f);
  auto destroy = PLX_TEST_ARGS(PLX_Buffer_Destroy_Args);
  destroy.buffer = args.buffer;
  EXPECT_EQ(api->PLX_Buffer_Destroy(&destroy), nullptr);
}

PLEXA_INSTANTIATE_ON_PLUGINS(RawMemoryTest);

}  // namespace
}  // namespace plexa::host

namespace plexa::host {
namespace {

// ABI 1.2 extension tables (PLX_Api.extension_start): the asynctest
// plugin exports a vendor table (type 0x10042, version 1) with one
// function; a host finds it by type, checks version and size, and calls it
// with its handles. Plugins without tables have none to find.
struct AsyncTestExtension {
  size_t struct_size;
  int32_t type;
  PLX_Extension* next;
  int32_t version;
  PLX_Error* (*NumWorkers)(PLX_Client* client, int64_t* out);
};

TEST(ApiExtensionTables, AVendorTableIsFoundByTypeAndVersion) {
  Loaded l = Load(PLEXA_ASYNCTEST_PLUGIN, 3);
  ASSERT_NE(l.client, nullptr);
  const size_t size = PLX_STRUCT_SIZE(AsyncTestExtension, NumWorkers);
  const PLX_ApiExtension* found = l.plugin->FindApiExtension(0x10042, 1, size);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->version, 1);
  EXPECT_EQ(PLX_FindExtension(l.plugin->api()->extension_start, 0x10042),
            reinterpret_cast<const PLX_Extension*>(found));
  const auto* table = reinterpret_cast<const AsyncTestExtension*>(found);
  int64_t workers = 0;
  PLX_Error* e = table->NumWorkers(l.client->handle(), &workers);
  ASSERT_EQ(e, nullptr) << ConsumeError(l.plugin->api(), e);
  EXPECT_EQ(workers, 3);
  // A bad handle is an error naming the function, not a crash.
  e = table->NumWorkers(nullptr, &workers);
  absl::Status s = ConsumeError(l.plugin->api(), e);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()),
              HasSubstr("AsyncTestExtension.NumWorkers: client is NULL"));
  // A later version, or more than the table has, is not found.
  EXPECT_EQ(l.plugin->FindApiExtension(0x10042, 2, size), nullptr);
  EXPECT_EQ(l.plugin->FindApiExtension(0x10042, 1, size + 8), nullptr);
  EXPECT_EQ(l.plugin->FindApiExtension(0x10043, 1, size), nullptr);
}

TEST(ApiExtensionTables, PluginsWithoutTablesHaveNone) {
  for (const char* path : abi_test::InTreePlugins()) {
    auto plugin = Plugin::Load(path);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    EXPECT_EQ((*plugin)->api()->extension_start, nullptr) << path;
    EXPECT_EQ((*plugin)->FindApiExtension(0x10042, 1, 0), nullptr) << path;
  }
  // A 1.0 plugin's table says NULL too: nothing to walk.
  auto old = Plugin::Load(PLEXA_OLD_PLUGIN_V1_0);
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ((*old)->FindApiExtension(0x10042, 1, 0), nullptr);
}

}  // namespace
}  // namespace plexa::host
