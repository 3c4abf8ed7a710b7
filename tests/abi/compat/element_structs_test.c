/* abi_element_structs_test: the structs passed as arrays with only a count
 * (element_structs.c) have exactly the size, in the current header and in
 * the simulated 1.4 header, that the header which introduced them gave
 * (frozen 1.0, 1.1 and 1.2 headers). The layout test alone allowed them to grow
 * (it checks offsets and minimum sizes): an older caller would then walk
 * the array at the wrong stride. */
#include <stdio.h>

#include "compat/layout_entry.h"

const PlxLayoutEntry* PlxElementsFrozenV1_0(size_t* n);
const PlxLayoutEntry* PlxElementsCurrentV1_0(size_t* n);
const PlxLayoutEntry* PlxElementsFutureV1_0(size_t* n);
const PlxLayoutEntry* PlxElementsFrozenV1_1(size_t* n);
const PlxLayoutEntry* PlxElementsCurrentV1_1(size_t* n);
const PlxLayoutEntry* PlxElementsFutureV1_1(size_t* n);
const PlxLayoutEntry* PlxElementsFrozenV1_2(size_t* n);
const PlxLayoutEntry* PlxElementsCurrentV1_2(size_t* n);
const PlxLayoutEntry* PlxElementsFutureV1_2(size_t* n);

int main(void) {
  size_t nf = 0, nc = 0, nn = 0;
  int errors = 0;
  /* Each list is fetched before it is compared (argument evaluation order
   * is unspecified, so the counts must be set first). */
  const PlxLayoutEntry* f = PlxElementsFrozenV1_0(&nf);
  const PlxLayoutEntry* c = PlxElementsCurrentV1_0(&nc);
  const PlxLayoutEntry* n = PlxElementsFutureV1_0(&nn);
  errors += PlxCompareLayouts("1.0 element structs, current", f, nf, c, nc);
  errors +=
      PlxCompareLayouts("1.0 element structs, simulated 1.4", f, nf, n, nn);
  f = PlxElementsFrozenV1_1(&nf);
  c = PlxElementsCurrentV1_1(&nc);
  n = PlxElementsFutureV1_1(&nn);
  errors += PlxCompareLayouts("1.1 element structs, current", f, nf, c, nc);
  errors +=
      PlxCompareLayouts("1.1 element structs, simulated 1.4", f, nf, n, nn);
  f = PlxElementsFrozenV1_2(&nf);
  c = PlxElementsCurrentV1_2(&nc);
  n = PlxElementsFutureV1_2(&nn);
  errors += PlxCompareLayouts("1.2 element structs, current", f, nf, c, nc);
  errors +=
      PlxCompareLayouts("1.2 element structs, simulated 1.4", f, nf, n, nn);
  /* The rule itself: a grown element struct (PLX_NamedValue from 56 to 72
   * bytes, the example) must be reported. */
  {
    const PlxLayoutEntry base[] = {{"sizeof(PLX_NamedValue)", 0, 56}};
    const PlxLayoutEntry grown[] = {{"sizeof(PLX_NamedValue)", 0, 72}};
    fprintf(stderr, "(the next difference is expected: the self-check)\n");
    if (PlxCompareLayouts("self-check", base, 1, grown, 1) != 1) {
      fprintf(stderr, "a grown element struct was not reported\n");
      ++errors;
    }
  }
  if (errors == 0) {
    printf("element structs frozen: 4 structs, sizes and _STRUCT_SIZE\n");
  }
  return errors == 0 ? 0 : 1;
}
