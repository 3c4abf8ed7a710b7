/* The v1.2 layout list (what 1.2 adds), compiled against the current
 * header or the simulated 1.4 one: PLX_LAYOUT_FN names the function,
 * PLX_LAYOUT_EXPECT_MINOR (when given) the minor the header must have. */
#include <plexa/plexa_c_api.h>
#if defined(PLX_LAYOUT_EXPECT_MINOR) && \
    (PLX_API_MAJOR != 1 || PLX_API_MINOR != PLX_LAYOUT_EXPECT_MINOR)
#error "compiled against the wrong header"
#endif
#define PLX_LAYOUT_LIST_V1_2
#include "compat/layout_table.h"
