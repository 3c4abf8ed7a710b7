// Registers the CPU plugin with the conformance suite (tests/conformance):
// every case runs through the C ABI on libplexa_plugin_cpu.so.
#include "tools/conformance/plugin_backend.h"

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    cpuplugin,
    plexa::MakePluginBackend("cpuplugin", PLEXA_CPU_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4}}));
