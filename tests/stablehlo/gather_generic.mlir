// gather.mlir as `mlir-opt --mlir-print-op-generic` writes it: the module
// and the function in the generic form too.
"builtin.module"() <{sym_name = "jit_take"}> ({
  "func.func"() <{function_type = (tensor<5x3xf32>, tensor<4xi32>) -> tensor<4x3xf32>, res_attrs = [{jax.result_info = ""}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<5x3xf32>, %arg1: tensor<4xi32>):
    %0 = "stablehlo.broadcast_in_dim"(%arg1) <{broadcast_dimensions = array<i64: 0>}> : (tensor<4xi32>) -> tensor<4x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<5x3xf32>, tensor<4x1xi32>) -> tensor<4x3xf32>
    "func.return"(%1) : (tensor<4x3xf32>) -> ()
  }) : () -> ()
}) : () -> ()
