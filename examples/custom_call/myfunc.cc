// The seed's myfunc, written as the seed writes it (array references over
// the raw pointers), with every element of z defined (see myfunc.h).
#include "myfunc.h"

extern "C" void myfunc(void* out, void** in) {
  float(&x)[2] = *static_cast<float(*)[2]>(in[0]);
  float(&y)[2][3] = *static_cast<float(*)[2][3]>(in[1]);
  float(&z)[3][3] = *static_cast<float(*)[3][3]>(out);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      z[i][j] = x[i % 2] * y[i % 2][j] + static_cast<float>(i);
    }
  }
}
