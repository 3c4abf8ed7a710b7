#include <stdio.h>
#include <string.h>

#include "compat/layout_entry.h"

int PlxCompareLayouts(const char* what, const PlxLayoutEntry* base,
                      size_t base_n, const PlxLayoutEntry* newer,
                      size_t newer_n) {
  int errors = 0;
  size_t i;
  if (base_n != newer_n) {
    fprintf(stderr, "%s: %zu entries vs %zu\n", what, base_n, newer_n);
    return 1;
  }
  for (i = 0; i < base_n; ++i) {
    const PlxLayoutEntry* b = &base[i];
    const PlxLayoutEntry* n = &newer[i];
    if (strcmp(b->name, n->name) != 0) {
      fprintf(stderr, "%s: entry %zu is %s vs %s\n", what, i, b->name, n->name);
      ++errors;
      continue;
    }
    if (b->rule == PLX_LAYOUT_EXACT && b->value != n->value) {
      fprintf(stderr, "%s: %s is %llu in the frozen header but %llu now\n",
              what, b->name, (unsigned long long)b->value,
              (unsigned long long)n->value);
      ++errors;
    }
    if (b->rule == PLX_LAYOUT_AT_LEAST && n->value < b->value) {
      fprintf(stderr, "%s: %s shrank from %llu (frozen header) to %llu\n", what,
              b->name, (unsigned long long)b->value,
              (unsigned long long)n->value);
      ++errors;
    }
  }
  return errors;
}
