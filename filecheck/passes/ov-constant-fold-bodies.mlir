// RUN: xmo-opt %s -p ov-constant-fold | filecheck %s
// A control op whose input type is refined while folding (the Reshape's
// target shape folds to [-1, 4]) refines its body Parameters, and the ops
// using them inside the body are inferred again (they kept ?x? before).

builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "c"}> : () -> tensor<i1>
  %1 = "ov.Parameter"() <{friendly_name = "x"}> : () -> tensor<?x4xf32>
  %2 = "ov.Constant"() <{value = dense<-1> : tensor<1xi64>}> : () -> tensor<1xi64>
  %3 = "ov.Constant"() <{value = dense<4> : tensor<1xi64>}> : () -> tensor<1xi64>
  %4 = "ov.Concat"(%2, %3) <{axis = 0 : i64}> : (tensor<1xi64>, tensor<1xi64>) -> tensor<2xi64>
  %5 = "ov.Reshape"(%1, %4) <{special_zero = false}> : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %6 = "ov.If"(%0, %5) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}], else_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], else_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}], friendly_name = "if"}> ({
    %7 = "ov.Parameter"() : () -> tensor<?x?xf32>
    %8 = "ov.Relu"(%7) : (tensor<?x?xf32>) -> tensor<?x?xf32>
    %9 = "ov.Sigmoid"(%8) : (tensor<?x?xf32>) -> tensor<?x?xf32>
    "ov.Result"(%9) : (tensor<?x?xf32>) -> ()
  }, {
    %10 = "ov.Parameter"() : () -> tensor<?x?xf32>
    "ov.Result"(%10) : (tensor<?x?xf32>) -> ()
  }) : (tensor<i1>, tensor<?x?xf32>) -> tensor<?x?xf32>
  "ov.Result"(%6) : (tensor<?x?xf32>) -> ()
}

// CHECK:      %5 = "ov.Reshape"(%1, %4) <{special_zero = false}> : (tensor<?x4xf32>, tensor<2xi64>) -> tensor<?x4xf32>
// CHECK-NEXT: %6 = "ov.If"(%0, %5)
// CHECK-NEXT:   %7 = "ov.Parameter"() : () -> tensor<?x4xf32>
// CHECK-NEXT:   %8 = "ov.Relu"(%7) : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:   %9 = "ov.Sigmoid"(%8) : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT:   "ov.Result"(%9) : (tensor<?x4xf32>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT:   %10 = "ov.Parameter"() : () -> tensor<?x4xf32>
// CHECK-NEXT:   "ov.Result"(%10) : (tensor<?x4xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i1>, tensor<?x4xf32>) -> tensor<?x4xf32>
