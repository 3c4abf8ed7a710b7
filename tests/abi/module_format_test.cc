// The plexa-module program format through the ABI: the reference plugin
// lists it, compiles serialized modules and runs them with the same
// results as HLO text, and refuses broken bytes with INVALID_ARGUMENT
// errors (never a crash) that say what is wrong.
#include <string>

#include "abi/host/plugin_host.h"
#include "core/literal/literal.h"
#include "core/proto/module_proto.h"
#include "core/text/hlo_parser.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace plexa {
namespace {

using host::Plugin;
using ::testing::Contains;
using ::testing::HasSubstr;

// A constant with a column-major layout and a reducer: the serialized
// literal bytes and the called computation have to arrive intact.
constexpr char kProgram[] = R"hlo(
HloModule abi_module
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (x: f32[2,3]) -> (f32[2,3], f32[2]) {
  %x = f32[2,3] parameter(0)
  %k = f32[2,3]{0,1} constant({ { 10, 20, 30 }, { 40, 50, 60 } })
  %sum = f32[2,3] add(%x, %k)
  %zero = f32[] constant(0)
  %rows = f32[2] reduce(%sum, %zero), dimensions={1}, to_apply=%add
  ROOT %t = (f32[2,3], f32[2]) tuple(%sum, %rows)
}
)hlo";

std::string Serialized(const char* text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  auto bytes = SerializeModule(**module);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  return *bytes;
}

class ModuleFormatTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto plugin = Plugin::Load(PLEXA_REFERENCE_PLUGIN);
    ASSERT_TRUE(plugin.ok()) << plugin.status();
    plugin_ = *plugin;
    auto client = plugin_->CreateClient();
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = std::move(*client);
  }

  // Runs the program on x = {{1,2,3},{4,5,6}}: sum = x + k, rows = the
  // row sums of sum. By hand: sum = {{11,22,33},{44,55,66}}, rows =
  // {66, 165}.
  void ExpectRuns(const std::string& program, const std::string& format) {
    auto exe = client_->Compile(program, format);
    ASSERT_TRUE(exe.ok()) << exe.status();
    auto in = client_->BufferFromLiteral(
        Literal::CreateR2<float>({{1, 2, 3}, {4, 5, 6}}));
    ASSERT_TRUE(in.ok()) << in.status();
    auto out = (*exe)->Execute({{in->get()}});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ((*out)[0].size(), 2u);
    EXPECT_EQ(*(*out)[0][0]->ToLiteral(),
              Literal::CreateR2<float>({{11, 22, 33}, {44, 55, 66}}));
    EXPECT_EQ(*(*out)[0][1]->ToLiteral(), Literal::CreateR1<float>({66, 165}));
  }

  void ExpectRefused(const std::string& program, const std::string& fragment) {
    auto exe = client_->Compile(program, "plexa-module");
    ASSERT_FALSE(exe.ok());
    EXPECT_EQ(exe.status().code(), absl::StatusCode::kInvalidArgument)
        << exe.status();
    EXPECT_THAT(exe.status().message(), HasSubstr(fragment));
  }

  std::shared_ptr<Plugin> plugin_;
  std::unique_ptr<host::Client> client_;
};

TEST_F(ModuleFormatTest, ReferencePluginListsTheFormat) {
  EXPECT_THAT(plugin_->attributes().formats, Contains("plexa-module"));
  EXPECT_THAT(plugin_->attributes().formats, Contains("hlo-text"));
}

TEST_F(ModuleFormatTest, CompilesAndRunsASerializedModule) {
  ExpectRuns(Serialized(kProgram), "plexa-module");
  ExpectRuns(kProgram, "hlo-text");
}

TEST_F(ModuleFormatTest, RefusesBrokenBytes) {
  const std::string bytes = Serialized(kProgram);
  ExpectRefused("", "no format_version");
  ExpectRefused(kProgram, "plexa-module");  // text sent under the wrong name
  ExpectRefused(bytes.substr(0, bytes.size() / 2), "plexa-module");
  std::string v9 = bytes;
  ASSERT_EQ(v9[0], '\x08');  // field 1 (format_version), a varint
  v9[1] = 9;
  ExpectRefused(v9, "format version 9 is newer");
  // Every truncation: a status each time, never a crash.
  for (size_t n = 0; n < bytes.size(); n += 7) {
    auto exe = client_->Compile(bytes.substr(0, n), "plexa-module");
    EXPECT_FALSE(exe.ok()) << n;
  }
}

}  // namespace
}  // namespace plexa
