// The custom-call target of the Operation Semantics seed (CustomCall):
//
//   let x = f32[2] {1,2};
//   let y = f32[2x3] {{10, 20, 30}, {40, 50, 60}};
//   CustomCall("myfunc", {x, y}, f32[3x3])
//
// The seed shows only z[0][0]; this implementation defines every element:
//
//   z[i][j] = x[i % 2] * y[i % 2][j] + i      (i, j in 0..2)
//
// so for the seed's x and y:  z = {{10, 20, 30}, {81, 101, 121}, {12, 22, 32}}.
#ifndef PLEXA_EXAMPLES_CUSTOM_CALL_MYFUNC_H_
#define PLEXA_EXAMPLES_CUSTOM_CALL_MYFUNC_H_

#ifdef __cplusplus
extern "C" {
#endif

// API version 0 ("original"): in[i] points at operand i, out at the result,
// all row-major.
void myfunc(void* out, void** in);

#ifdef __cplusplus
}
#endif

#endif  // PLEXA_EXAMPLES_CUSTOM_CALL_MYFUNC_H_
