// jax.lax.fori_loop(0, n, lambda i, acc: acc * 0.5 + x, x): the loop
// bound and x come from outside the loop (x is captured by the body), in
// the generic form.
module @jit_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<i32>) -> (tensor<3xf32>, tensor<i32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:2 = "stablehlo.while"(%c, %arg0) ({
    ^bb0(%i: tensor<i32>, %acc: tensor<3xf32>):
      %1 = "stablehlo.compare"(%i, %arg1) <{comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
      "stablehlo.return"(%1) : (tensor<i1>) -> ()
    }, {
    ^bb0(%i: tensor<i32>, %acc: tensor<3xf32>):
      %c1 = "stablehlo.constant"() <{value = dense<1> : tensor<i32>}> : () -> tensor<i32>
      %1 = "stablehlo.add"(%i, %c1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      %half = "stablehlo.constant"() <{value = dense<5.000000e-01> : tensor<3xf32>}> : () -> tensor<3xf32>
      %2 = "stablehlo.multiply"(%acc, %half) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      %3 = "stablehlo.add"(%2, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
      "stablehlo.return"(%1, %3) : (tensor<i32>, tensor<3xf32>) -> ()
    }) : (tensor<i32>, tensor<3xf32>) -> (tensor<i32>, tensor<3xf32>)
    return %0#1, %0#0 : tensor<3xf32>, tensor<i32>
  }
}
