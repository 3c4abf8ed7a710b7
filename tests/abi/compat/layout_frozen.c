/* The v1.0 layout list compiled against the frozen v1.0 header. */
#include <plexa/plexa_c_api.h>
#if PLX_API_MAJOR != 1 || PLX_API_MINOR != 0
#error "compiled against the wrong header: expected the frozen v1.0 one"
#endif
#define PLX_LAYOUT_FN PlxLayoutFrozenV1_0
#include "compat/layout_table.h"
