// Registers the oneDNN plugin with the conformance suite
// (tests/conformance): every case runs through the C ABI on
// libplexa_plugin_onednn.so.
#include "tests/conformance/plugin_backend.h"

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    onednnplugin,
    plexa::MakePluginBackend("onednnplugin", PLEXA_ONEDNN_PLUGIN));
