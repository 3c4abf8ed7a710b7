// Registers the oneDNN plugin with the conformance suite
// (tests/conformance): every case runs through the C ABI on
// libplexa_plugin_onednn.so, with min_flops=0 so that the suite's small
// dots and convolutions reach oneDNN (by default they stay on the CPU
// plugin).
#include "tests/conformance/plugin_backend.h"

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    onednnplugin,
    plexa::MakePluginBackend("onednnplugin", PLEXA_ONEDNN_PLUGIN,
                             {{"min_flops", PLX_Value_INT64, "", 0}}));
