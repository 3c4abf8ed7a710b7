// Registers the Vulkan plugin with the conformance suite
// (tests/conformance): every case runs through the C ABI on
// libplexa_plugin_vulkan.so, with four virtual devices for the replicated
// cases; "vulkanvalidated" runs them again under the Khronos validation
// layer (scripts/setup.sh installs it), where any validation error fails
// the case; "vulkanstaging" (below) through the staging path, and
// "vulkanasync" through it with asynchronous calls.
#include "tools/conformance/plugin_backend.h"

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    vulkanplugin,
    plexa::MakePluginBackend("vulkanplugin", PLEXA_VULKAN_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4}}));

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    vulkanvalidated,
    plexa::MakePluginBackend("vulkanvalidated", PLEXA_VULKAN_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4},
                              {"validation", PLX_Value_INT64, "", 1}}));

// "vulkanstaging": every buffer in device memory the host does not map,
// reached through staging copies (option staging=1, docs/vulkan.md), so
// the suite checks every host step's downloads and uploads on lavapipe.
PLEXA_REGISTER_CONFORMANCE_BACKEND(
    vulkanstaging,
    plexa::MakePluginBackend("vulkanstaging", PLEXA_VULKAN_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4},
                              {"staging", PLX_Value_INT64, "", 1}}));

// "vulkanasync": the staging path through ABI 1.2's asynchronous calls
// (ReplicatedRun::RunAsync): every execution on the client's execution
// thread, every download completed on the device's completion thread.
PLEXA_REGISTER_CONFORMANCE_BACKEND(
    vulkanasync,
    plexa::MakePluginBackend("vulkanasync", PLEXA_VULKAN_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4},
                              {"staging", PLX_Value_INT64, "", 1}},
                             {}, /*asynchronous=*/true));
