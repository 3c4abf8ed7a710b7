/* One fact of the v1.0 ABI: a field offset, a constant, or a minimum size. */
#ifndef PLEXA_TESTS_ABI_COMPAT_LAYOUT_ENTRY_H_
#define PLEXA_TESTS_ABI_COMPAT_LAYOUT_ENTRY_H_

#include <stddef.h>
#include <stdint.h>

enum { PLX_LAYOUT_EXACT = 0, PLX_LAYOUT_AT_LEAST = 1 };

typedef struct PlxLayoutEntry {
  const char* name;
  int rule; /* PLX_LAYOUT_EXACT or PLX_LAYOUT_AT_LEAST */
  uint64_t value;
} PlxLayoutEntry;

#ifdef __cplusplus
extern "C" {
#endif

/* Compares `newer` against the `base` (v1.0) list: same entries in the same
 * order, EXACT values equal, AT_LEAST values not smaller. Prints every
 * difference to stderr prefixed with `what`; returns the number found. */
int PlxCompareLayouts(const char* what, const PlxLayoutEntry* base,
                      size_t base_n, const PlxLayoutEntry* newer,
                      size_t newer_n);

#ifdef __cplusplus
}
#endif

#endif /* PLEXA_TESTS_ABI_COMPAT_LAYOUT_ENTRY_H_ */
