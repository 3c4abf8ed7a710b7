/* abi_layout_test: every field offset, constant and v1.0 args size of the
 * frozen v1.0 header is unchanged in the current header (and in the
 * simulated v1.2 header, which shows that header is a legal evolution). A
 * reordered field, a renumbered enum or a shrunk struct fails here even if
 * every plugin and host in the tree is rebuilt consistently. */
#include <stdio.h>

#include "compat/layout_entry.h"

const PlxLayoutEntry* PlxLayoutFrozenV1_0(size_t* n);
const PlxLayoutEntry* PlxLayoutCurrent(size_t* n);
const PlxLayoutEntry* PlxLayoutFutureV1_2(size_t* n);

int main(void) {
  size_t nf = 0, nc = 0, nn = 0;
  const PlxLayoutEntry* frozen = PlxLayoutFrozenV1_0(&nf);
  const PlxLayoutEntry* current = PlxLayoutCurrent(&nc);
  const PlxLayoutEntry* future = PlxLayoutFutureV1_2(&nn);
  int errors = 0;
  if (nf < 250) {
    fprintf(stderr, "only %zu layout entries: the list is truncated\n", nf);
    return 1;
  }
  errors +=
      PlxCompareLayouts("current header vs v1.0", frozen, nf, current, nc);
  errors += PlxCompareLayouts("v1.2 fixture vs v1.0", frozen, nf, future, nn);
  if (errors == 0) printf("%zu v1.0 layout facts unchanged\n", nf);
  return errors == 0 ? 0 : 1;
}
