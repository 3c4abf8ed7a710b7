// func.call between functions, jax.lax.cond (if) and jax.lax.switch
// (case, index clamped by HLO's rule: out of range runs the last branch).
module @jit_branches attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>, %arg1: tensor<i32>) -> (tensor<4xf32>, tensor<4xf32>) {
    %0 = call @scale(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.compare  GT, %arg1, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = "stablehlo.if"(%1) ({
      %4 = stablehlo.negate %0 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }, {
      %4 = func.call @scale(%0) : (tensor<4xf32>) -> tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }) : (tensor<i1>) -> tensor<4xf32>
    %3 = "stablehlo.case"(%arg1) ({
      %cst = stablehlo.constant dense<1.000000e+00> : tensor<4xf32>
      stablehlo.return %cst : tensor<4xf32>
    }, {
      %4 = stablehlo.abs %arg0 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }, {
      %4 = stablehlo.multiply %arg0, %0 : tensor<4xf32>
      stablehlo.return %4 : tensor<4xf32>
    }) : (tensor<i32>) -> tensor<4xf32>
    return %2, %3 : tensor<4xf32>, tensor<4xf32>
  }
  func.func private @scale(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<[1.000000e+00, 2.000000e+00, -3.000000e+00, 5.000000e-01]> : tensor<4xf32>
    %0 = stablehlo.multiply %arg0, %cst : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
