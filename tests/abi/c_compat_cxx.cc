// The header compiled as C++ (-pedantic -Werror; built twice, as C++11 and
// as C++20, with PLX_LAYOUT_FN naming the function) for abi_c_compat_test.
#include <plexa/plexa_c_api.h>

#include "compat/layout_table.h"

// The header's own static_asserts ran above; the C++ view of a slot is a
// plain function pointer.
static_assert(sizeof(PLX_Api::PLX_Client_Compile) == sizeof(void*),
              "a slot is one pointer");
