/* abi_c_compat_test: plexa_c_api.h compiled as C11 with -pedantic -Werror
 * (this file) and as C++11 and C++20 with -pedantic -Werror
 * (c_compat_cxx.cc), and the three compilations agree on every v1.0
 * layout fact (offsets, enum values, sizes). The macros the header offers
 * a C host (PLX_STRUCT_SIZE, PLX_API_HAS_SLOT) are exercised too. */
#include <plexa/plexa_c_api.h>
#include <stdio.h>
#include <string.h>

#define PLX_LAYOUT_FN PlxLayoutC
#include "compat/layout_table.h"

const PlxLayoutEntry* PlxLayoutCxx11(size_t* n);
const PlxLayoutEntry* PlxLayoutCxx20(size_t* n);

static int failures = 0;
#define EXPECT(cond)                                                      \
  do {                                                                    \
    if (!(cond)) {                                                        \
      fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                         \
    }                                                                     \
  } while (0)

static PLX_Error* FakeRegister(PLX_CustomCall_Register_Args* args) {
  (void)args;
  return NULL;
}

int main(void) {
  size_t nc = 0, n11 = 0, n20 = 0;
  const PlxLayoutEntry* c = PlxLayoutC(&nc);
  const PlxLayoutEntry* cxx11 = PlxLayoutCxx11(&n11);
  const PlxLayoutEntry* cxx20 = PlxLayoutCxx20(&n20);
  PLX_Api api;

  EXPECT(PlxCompareLayouts("C++11 vs C11", c, nc, cxx11, n11) == 0);
  EXPECT(PlxCompareLayouts("C++20 vs C11", c, nc, cxx20, n20) == 0);

  /* PLX_STRUCT_SIZE covers exactly up to the last field. */
  EXPECT(PLX_Error_Destroy_Args_STRUCT_SIZE == 3 * sizeof(void*));
  EXPECT(PLX_Buffer_Delete_Args_STRUCT_SIZE ==
         offsetof(PLX_Buffer_Delete_Args, buffer) + sizeof(PLX_Buffer*));
  EXPECT(PLX_Api_STRUCT_SIZE == PLX_Api_STRUCT_SIZE_1_2);
  EXPECT(PLX_Api_STRUCT_SIZE_1_2 ==
         PLX_Api_STRUCT_SIZE_1_0 + 9 * sizeof(void*));
  EXPECT(PLX_API_MAJOR == 1 && PLX_API_MINOR == 3);
  /* 1.3 grew two structs at their ends; their 1.2 sizes stay. */
  EXPECT(PLX_CompileOptions_STRUCT_SIZE ==
         PLX_CompileOptions_STRUCT_SIZE_1_0 + sizeof(int64_t));
  EXPECT(PLX_Executable_Signature_Args_STRUCT_SIZE ==
         PLX_Executable_Signature_Args_STRUCT_SIZE_1_1 + sizeof(int64_t));
  EXPECT(strcmp(PLX_GET_API_SYMBOL, "PLX_GetApi") == 0);

  /* PLX_API_HAS_SLOT: the size must cover the slot and the slot must be
   * filled. */
  memset(&api, 0, sizeof(api));
  api.struct_size = PLX_Api_STRUCT_SIZE_1_0;
  EXPECT(!PLX_API_HAS_SLOT(&api, PLX_CustomCall_Register));
  api.PLX_CustomCall_Register = FakeRegister;
  EXPECT(PLX_API_HAS_SLOT(&api, PLX_CustomCall_Register));
  api.struct_size = PLX_Api_STRUCT_SIZE_1_0 - sizeof(void*);
  EXPECT(!PLX_API_HAS_SLOT(&api, PLX_CustomCall_Register));

  if (failures == 0) printf("C11, C++11 and C++20 agree on %zu facts\n", nc);
  return failures == 0 ? 0 : 1;
}
