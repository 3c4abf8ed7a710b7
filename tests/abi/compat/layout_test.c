/* abi_layout_test: every field offset, constant and v1.0 args size of the
 * frozen v1.0 header (and every fact 1.1 added, from the frozen v1.1
 * header) is unchanged in the current header (and in the
 * simulated v1.4 header, which shows that header is a legal evolution). A
 * reordered field, a renumbered enum or a shrunk struct fails here even if
 * every plugin and host in the tree is rebuilt consistently. */
#include <stdio.h>

#include "compat/layout_entry.h"

const PlxLayoutEntry* PlxLayoutFrozenV1_0(size_t* n);
const PlxLayoutEntry* PlxLayoutCurrent(size_t* n);
const PlxLayoutEntry* PlxLayoutFutureV1_4(size_t* n);
const PlxLayoutEntry* PlxLayoutFrozenV1_1Added(size_t* n);
const PlxLayoutEntry* PlxLayoutCurrentV1_1Added(size_t* n);
const PlxLayoutEntry* PlxLayoutFutureV1_4V1_1Added(size_t* n);
const PlxLayoutEntry* PlxLayoutFrozenV1_2Added(size_t* n);
const PlxLayoutEntry* PlxLayoutCurrentV1_2Added(size_t* n);
const PlxLayoutEntry* PlxLayoutFutureV1_4V1_2Added(size_t* n);

int main(void) {
  size_t nf = 0, nc = 0, nn = 0;
  const PlxLayoutEntry* frozen = PlxLayoutFrozenV1_0(&nf);
  const PlxLayoutEntry* current = PlxLayoutCurrent(&nc);
  const PlxLayoutEntry* future = PlxLayoutFutureV1_4(&nn);
  int errors = 0;
  if (nf < 250) {
    fprintf(stderr, "only %zu layout entries: the list is truncated\n", nf);
    return 1;
  }
  errors +=
      PlxCompareLayouts("current header vs v1.0", frozen, nf, current, nc);
  errors += PlxCompareLayouts("v1.4 fixture vs v1.0", frozen, nf, future, nn);
  if (errors == 0) printf("%zu v1.0 layout facts unchanged\n", nf);
  /* What 1.1 added stays put too (tests/abi/frozen/v1_1). */
  {
    size_t mf = 0, mc = 0, mn = 0;
    const PlxLayoutEntry* added = PlxLayoutFrozenV1_1Added(&mf);
    const PlxLayoutEntry* cur = PlxLayoutCurrentV1_1Added(&mc);
    const PlxLayoutEntry* fut = PlxLayoutFutureV1_4V1_1Added(&mn);
    const int before = errors;
    if (mf < 20) {
      fprintf(stderr, "only %zu v1.1 layout entries: truncated\n", mf);
      return 1;
    }
    errors += PlxCompareLayouts("current header vs v1.1", added, mf, cur, mc);
    errors += PlxCompareLayouts("v1.4 fixture vs v1.1", added, mf, fut, mn);
    if (errors == before) printf("%zu v1.1 layout facts unchanged\n", mf);
  }
  /* What 1.2 added (tests/abi/frozen/v1_2) stays put too. */
  {
    size_t mf = 0, mc = 0, mn = 0;
    const PlxLayoutEntry* added = PlxLayoutFrozenV1_2Added(&mf);
    const PlxLayoutEntry* cur = PlxLayoutCurrentV1_2Added(&mc);
    const PlxLayoutEntry* fut = PlxLayoutFutureV1_4V1_2Added(&mn);
    const int before = errors;
    if (mf < 150) {
      fprintf(stderr, "only %zu v1.2 layout entries: truncated\n", mf);
      return 1;
    }
    errors += PlxCompareLayouts("current header vs v1.2", added, mf, cur, mc);
    errors += PlxCompareLayouts("v1.4 fixture vs v1.2", added, mf, fut, mn);
    if (errors == before) printf("%zu v1.2 layout facts unchanged\n", mf);
  }
  return errors == 0 ? 0 : 1;
}
