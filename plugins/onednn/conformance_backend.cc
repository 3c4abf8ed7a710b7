// Registers the oneDNN plugin with the conformance suite
// (tests/conformance): every case runs through the C ABI on
// libplexa_plugin_onednn.so, with min_flops=0, min_elements=0 and
// all_primitives=1 so that every pattern oneDNN takes reaches it, however
// small (by default small ones stay on the CPU plugin).
#include "tools/conformance/plugin_backend.h"

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    onednnplugin,
    plexa::MakePluginBackend("onednnplugin", PLEXA_ONEDNN_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4},
                              {"min_flops", PLX_Value_INT64, "", 0},
                              {"min_elements", PLX_Value_INT64, "", 0},
                              {"all_primitives", PLX_Value_INT64, "", 1}}));
