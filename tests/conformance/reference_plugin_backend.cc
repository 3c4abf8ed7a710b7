// The reference plugin through the C ABI as the conformance backend
// "referenceplugin", with enough devices for the replicated cases.
#include "tools/conformance/plugin_backend.h"

PLEXA_REGISTER_CONFORMANCE_BACKEND(
    referenceplugin,
    plexa::MakePluginBackend("referenceplugin", PLEXA_REFERENCE_PLUGIN,
                             {{"num_devices", PLX_Value_INT64, "", 4}}));
