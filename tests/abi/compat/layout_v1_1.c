/* The v1.1 layout list (what 1.1 added), compiled against the frozen v1.1
 * header, or the current or simulated 1.4 header: PLX_LAYOUT_FN names the
 * function, PLX_LAYOUT_EXPECT_MINOR (when given) the minor the header must
 * have. */
#include <plexa/plexa_c_api.h>
#if defined(PLX_LAYOUT_EXPECT_MINOR) && \
    (PLX_API_MAJOR != 1 || PLX_API_MINOR != PLX_LAYOUT_EXPECT_MINOR)
#error "compiled against the wrong header"
#endif
#define PLX_LAYOUT_LIST_V1_1
#include "compat/layout_table.h"
