// Helpers for tests that drive a plugin through its RAW C table (dlopen +
// PLX_GetApi), the way a C host would: no SDK, no host library.
#ifndef PLEXA_TESTS_ABI_ABI_TEST_UTIL_H_
#define PLEXA_TESTS_ABI_ABI_TEST_UTIL_H_

#include <dlfcn.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "plexa/plexa_c_api.h"

// Instantiates the TEST_P suite `Suite` (parameter: a plugin's path) on
// every in-tree plugin that is built: the reference plugin, and the CPU,
// oneDNN and Vulkan plugins when they are (named by their file:
// libplexa_plugin_NAME.so -> NAME).
#define PLEXA_INSTANTIATE_ON_PLUGINS(Suite)                                    \
  INSTANTIATE_TEST_SUITE_P(                                                    \
      Plugins, Suite, ::testing::ValuesIn(::plexa::abi_test::InTreePlugins()), \
      [](const auto& info) {                                                   \
        return ::plexa::abi_test::PluginName(info.param);                      \
      })

namespace plexa::abi_test {

inline std::vector<const char*> InTreePlugins() {
  return {
      PLEXA_REFERENCE_PLUGIN,
#ifdef PLEXA_CPU_PLUGIN
      PLEXA_CPU_PLUGIN,
#endif
#ifdef PLEXA_ONEDNN_PLUGIN
      PLEXA_ONEDNN_PLUGIN,
#endif
#ifdef PLEXA_VULKAN_PLUGIN
      PLEXA_VULKAN_PLUGIN,
#endif
  };
}

inline std::string PluginName(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string file = path.substr(slash == std::string::npos ? 0 : slash + 1);
  const std::string prefix = "libplexa_plugin_";
  if (file.rfind(prefix, 0) == 0) file = file.substr(prefix.size());
  const size_t dot = file.find('.');
  return dot == std::string::npos ? file : file.substr(0, dot);
}

// Zeroed args with struct_size set from the header's macro.
template <typename Args>
Args MakeArgs(size_t size) {
  Args a;
  std::memset(&a, 0, sizeof(a));
  a.struct_size = size;
  return a;
}
#define PLX_TEST_ARGS(Type) \
  ::plexa::abi_test::MakeArgs<Type>(Type##_STRUCT_SIZE)

// Loads a plugin and returns its table (the handle is never closed: the
// table must outlive every test of the binary). Fails the test on error.
inline const PLX_Api* LoadRawApi(const char* path) {
  void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    ADD_FAILURE() << "dlopen(" << path << "): " << dlerror();
    return nullptr;
  }
  auto* get_api =
      reinterpret_cast<PLX_GetApi_Fn*>(dlsym(handle, PLX_GET_API_SYMBOL));
  if (get_api == nullptr) {
    ADD_FAILURE() << path << " has no " << PLX_GET_API_SYMBOL;
    return nullptr;
  }
  const PLX_Api* api = get_api();
  if (api == nullptr || api->version.major != PLX_API_MAJOR) {
    ADD_FAILURE() << path << ": no table or another major";
    return nullptr;
  }
  auto init = PLX_TEST_ARGS(PLX_Plugin_Initialize_Args);
  if (PLX_Error* e = api->PLX_Plugin_Initialize(&init)) {
    ADD_FAILURE() << path << ": PLX_Plugin_Initialize failed";
    auto d = PLX_TEST_ARGS(PLX_Error_Destroy_Args);
    d.error = e;
    api->PLX_Error_Destroy(&d);
    return nullptr;
  }
  return api;
}

struct ErrorInfo {
  bool is_error = false;
  PLX_Error_Code code = PLX_Error_Code_OK;
  std::string message;
};

// Reads an error with PLX_Error_GetCode and PLX_Error_Message (checking
// that both work on it) and destroys it. NULL -> is_error false.
inline ErrorInfo TakeError(const PLX_Api* api, PLX_Error* e) {
  ErrorInfo info;
  if (e == nullptr) return info;
  info.is_error = true;
  auto code = PLX_TEST_ARGS(PLX_Error_GetCode_Args);
  code.error = e;
  code.code = static_cast<PLX_Error_Code>(-1);
  PLX_Error* code_error = api->PLX_Error_GetCode(&code);
  EXPECT_EQ(code_error, nullptr) << "PLX_Error_GetCode failed on an error";
  if (code_error != nullptr) {
    auto d = PLX_TEST_ARGS(PLX_Error_Destroy_Args);
    d.error = code_error;
    api->PLX_Error_Destroy(&d);
  }
  info.code = code.code;
  EXPECT_NE(info.code, PLX_Error_Code_OK) << "an error with code OK";
  auto msg = PLX_TEST_ARGS(PLX_Error_Message_Args);
  msg.error = e;
  api->PLX_Error_Message(&msg);
  EXPECT_NE(msg.message, nullptr);
  if (msg.message != nullptr)
    info.message.assign(msg.message, msg.message_size);
  EXPECT_FALSE(info.message.empty()) << "an error without a message";
  auto d = PLX_TEST_ARGS(PLX_Error_Destroy_Args);
  d.error = e;
  api->PLX_Error_Destroy(&d);
  return info;
}

// Expects `e` to be an error with `code` whose message contains every one
// of `needles` (the first is normally the function's name).
inline void ExpectError(const PLX_Api* api, PLX_Error* e, PLX_Error_Code code,
                        std::initializer_list<std::string> needles,
                        const char* expr, const char* file, int line) {
  ::testing::ScopedTrace trace(file, line, expr);
  ErrorInfo info = TakeError(api, e);
  ASSERT_TRUE(info.is_error) << "expected an error";
  EXPECT_EQ(info.code, code) << info.message;
  for (const std::string& n : needles) {
    EXPECT_NE(info.message.find(n), std::string::npos)
        << "message \"" << info.message << "\" does not contain \"" << n
        << "\"";
  }
}
#define EXPECT_PLX_ERROR(api, call, code, ...)                         \
  ::plexa::abi_test::ExpectError((api), (call), PLX_Error_Code_##code, \
                                 {__VA_ARGS__}, #call, __FILE__, __LINE__)

// Expects success; on failure prints the error.
inline void ExpectOk(const PLX_Api* api, PLX_Error* e, const char* expr,
                     const char* file, int line) {
  if (e == nullptr) return;
  ErrorInfo info = TakeError(api, e);
  ADD_FAILURE_AT(file, line) << expr << " failed: " << info.message;
}
#define EXPECT_PLX_OK(api, call) \
  ::plexa::abi_test::ExpectOk((api), (call), #call, __FILE__, __LINE__)
#define ASSERT_PLX_OK(api, call)                       \
  do {                                                 \
    PLX_Error* plx_e_ = (call);                        \
    if (plx_e_ != nullptr) {                           \
      ::plexa::abi_test::ErrorInfo info_ =             \
          ::plexa::abi_test::TakeError((api), plx_e_); \
      FAIL() << #call << " failed: " << info_.message; \
    }                                                  \
  } while (0)

// Event calls through the raw table.
inline bool EventIsReady(const PLX_Api* api, PLX_Event* e) {
  auto r = PLX_TEST_ARGS(PLX_Event_IsReady_Args);
  r.event = e;
  EXPECT_PLX_OK(api, api->PLX_Event_IsReady(&r));
  return r.is_ready;
}
inline PLX_Error* AwaitEvent(const PLX_Api* api, PLX_Event* e) {
  auto w = PLX_TEST_ARGS(PLX_Event_Await_Args);
  w.event = e;
  return api->PLX_Event_Await(&w);
}
inline void DestroyEvent(const PLX_Api* api, PLX_Event* e) {
  auto d = PLX_TEST_ARGS(PLX_Event_Destroy_Args);
  d.event = e;
  EXPECT_PLX_OK(api, api->PLX_Event_Destroy(&d));
}

}  // namespace plexa::abi_test

#endif  // PLEXA_TESTS_ABI_ABI_TEST_UTIL_H_
