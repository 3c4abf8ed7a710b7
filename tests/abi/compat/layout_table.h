/* Defines `const PlxLayoutEntry* PLX_LAYOUT_FN(size_t* n)`: a layout list
 * (default the v1.0 one, compat/v1_0_layout.inc; PLX_LAYOUT_LIST_V1_1 and
 * PLX_LAYOUT_LIST_V1_2 pick what those minors added)
 * evaluated against whichever plexa_c_api.h the including file was
 * compiled with. Included from C and from C++. */
#ifndef PLEXA_TESTS_ABI_COMPAT_LAYOUT_TABLE_H_
#define PLEXA_TESTS_ABI_COMPAT_LAYOUT_TABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "compat/layout_entry.h"

#ifndef PLX_LAYOUT_FN
#error "define PLX_LAYOUT_FN before including layout_table.h"
#endif

static const PlxLayoutEntry kPlxLayoutEntries[] = {
#define PLX_LAYOUT_FIELD(T, f) \
  {#T "." #f, PLX_LAYOUT_EXACT, (uint64_t)offsetof(T, f)},
#define PLX_LAYOUT_VALUE(v) {#v, PLX_LAYOUT_EXACT, (uint64_t)(v)},
#define PLX_LAYOUT_MIN_SIZE(v) {#v, PLX_LAYOUT_AT_LEAST, (uint64_t)(v)},
#if defined(PLX_LAYOUT_LIST_V1_1)
#include "compat/v1_1_layout.inc"
#elif defined(PLX_LAYOUT_LIST_V1_2)
#include "compat/v1_2_layout.inc"
#else
#include "compat/v1_0_layout.inc"
#endif
#undef PLX_LAYOUT_FIELD
#undef PLX_LAYOUT_VALUE
#undef PLX_LAYOUT_MIN_SIZE
};

#ifdef __cplusplus
extern "C" {
#endif
const PlxLayoutEntry* PLX_LAYOUT_FN(size_t* n);
#ifdef __cplusplus
}
#endif

const PlxLayoutEntry* PLX_LAYOUT_FN(size_t* n) {
  *n = sizeof(kPlxLayoutEntries) / sizeof(kPlxLayoutEntries[0]);
  return kPlxLayoutEntries;
}

#endif /* PLEXA_TESTS_ABI_COMPAT_LAYOUT_TABLE_H_ */
