/* Structs that cross the ABI as ARRAYS with only a count (PLX_NamedValue:
 * options and attributes; PLX_ArrayShape: signatures and feed leaves;
 * PLX_CallFrameBuffer: a typed call frame's arguments and results;
 * PLX_Attribute: its typed attributes). The
 * other side walks such an array at its own sizeof, so these structs are
 * frozen forever (docs/abi.md, "Arrays of structs"): their size and every
 * field's offset stay what the version that introduced them said, and a
 * later minor that needs more adds a new struct and a new array field
 * instead. Compiled against the frozen headers, the current header and the
 * simulated 1.4 header; PLX_ELEMENT_FN names the function,
 * PLX_ELEMENT_SINCE_1_1 / _1_2 list the structs 1.1 / 1.2 introduced
 * (PLX_CallFrameBuffer; PLX_Attribute). */
#include <plexa/plexa_c_api.h>
#include <stddef.h>

#include "compat/layout_entry.h"

#define PLX_ELEMENT_SIZE(type) \
  {"sizeof(" #type ")", PLX_LAYOUT_EXACT, (uint64_t)sizeof(type)},
#define PLX_ELEMENT_MACRO(type) \
  {#type "_STRUCT_SIZE", PLX_LAYOUT_EXACT, (uint64_t)type##_STRUCT_SIZE},

static const PlxLayoutEntry kEntries[] = {
#if defined(PLX_ELEMENT_SINCE_1_2)
    PLX_ELEMENT_SIZE(PLX_Attribute) PLX_ELEMENT_MACRO(PLX_Attribute)
#elif defined(PLX_ELEMENT_SINCE_1_1)
    PLX_ELEMENT_SIZE(PLX_CallFrameBuffer) PLX_ELEMENT_MACRO(PLX_CallFrameBuffer)
#else
    PLX_ELEMENT_SIZE(PLX_NamedValue) PLX_ELEMENT_MACRO(PLX_NamedValue)
        PLX_ELEMENT_SIZE(PLX_ArrayShape) PLX_ELEMENT_MACRO(PLX_ArrayShape)
#endif
};

const PlxLayoutEntry* PLX_ELEMENT_FN(size_t* n) {
  *n = sizeof(kEntries) / sizeof(kEntries[0]);
  return kEntries;
}
