/* The v1.0 layout list compiled against the current header
 * (abi/include), or against the simulated v1.1 header when
 * PLX_LAYOUT_FN is given on the command line. */
#include <plexa/plexa_c_api.h>
#ifndef PLX_LAYOUT_FN
#define PLX_LAYOUT_FN PlxLayoutCurrent
#endif
#include "compat/layout_table.h"
