// RUN: xmo-opt %s | xmo-opt | filecheck %s
// ov.Loop, ov.TensorIterator and ov.If with their bodies and every port-map
// kind survive a print-parse round trip (and verify).

// A Loop with a run-time trip count: every input kind (merged, invariant,
// slice), both output kinds (last, concat), both special body ports.
builtin.module {
  %0 = "ov.Parameter"() <{friendly_name = "n"}> : () -> tensor<i64>
  %1 = "ov.Parameter"() : () -> tensor<2xf32>
  %2 = "ov.Parameter"() : () -> tensor<2xf32>
  %3 = "ov.Parameter"() : () -> tensor<7x2xf32>
  %4 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %5, %6 = "ov.Loop"(%0, %4, %1, %2, %3) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 1 : i64, result = 1 : i64}, {kind = "invariant", external = 3 : i64, parameter = 2 : i64}, {kind = "slice", external = 4 : i64, parameter = 3 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "concat", result = 2 : i64, external = 1 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], current_iteration_input_idx = 0 : i64, body_condition_output_idx = 0 : i64, friendly_name = "loop"}> ({
    %7 = "ov.Parameter"() : () -> tensor<i64>
    %8 = "ov.Parameter"() : () -> tensor<2xf32>
    %9 = "ov.Parameter"() : () -> tensor<2xf32>
    %10 = "ov.Parameter"() : () -> tensor<1x2xf32>
    %11 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    %12 = "ov.Add"(%8, %9) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %13 = "ov.Multiply"(%10, %12) : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
    "ov.Result"(%11) : (tensor<i1>) -> ()
    "ov.Result"(%12) : (tensor<2xf32>) -> ()
    "ov.Result"(%13) : (tensor<1x2xf32>) -> ()
  }) : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>, tensor<7x2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
  "ov.Result"(%5) : (tensor<2xf32>) -> ()
  "ov.Result"(%6) : (tensor<?x2xf32>) -> ()
  // TensorIterator: the sliced input gives 7 iterations, so the concatenated
  // output is static; the merged state is widened to a dynamic dim because the
  // back edge brings a different shape.
  %20 = "ov.Parameter"() : () -> tensor<1x2xf32>
  %21, %22 = "ov.TensorIterator"(%3, %20) <{input_map = [{kind = "slice", external = 0 : i64, parameter = 0 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}, {kind = "merged", external = 1 : i64, parameter = 1 : i64, result = 0 : i64}], output_map = [{kind = "concat", result = 1 : i64, external = 0 : i64, axis = 1 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}, {kind = "last", result = 0 : i64, external = 1 : i64, iteration = -1 : i64}]}> ({
    %23 = "ov.Parameter"() : () -> tensor<1x2xf32>
    %24 = "ov.Parameter"() : () -> tensor<?x2xf32>
    %25 = "ov.Concat"(%24, %23) <{axis = 0 : i64}> : (tensor<?x2xf32>, tensor<1x2xf32>) -> tensor<?x2xf32>
    %26 = "ov.Add"(%23, %23) : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
    "ov.Result"(%25) : (tensor<?x2xf32>) -> ()
    "ov.Result"(%26) : (tensor<1x2xf32>) -> ()
  }) : (tensor<7x2xf32>, tensor<1x2xf32>) -> (tensor<1x14xf32>, tensor<?x2xf32>)
  "ov.Result"(%21) : (tensor<1x14xf32>) -> ()
  "ov.Result"(%22) : (tensor<?x2xf32>) -> ()
  // If on a run-time condition: the branches' shapes merge (a differing dim
  // becomes dynamic, a differing rank a dynamic rank).
  %30 = "ov.Parameter"() : () -> tensor<i1>
  %31, %32 = "ov.If"(%30, %1, %3) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "last", result = 1 : i64, external = 1 : i64, iteration = -1 : i64}], else_input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], else_output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "last", result = 0 : i64, external = 1 : i64, iteration = -1 : i64}]}> ({
    %33 = "ov.Parameter"() : () -> tensor<2xf32>
    %34 = "ov.Relu"(%33) : (tensor<2xf32>) -> tensor<2xf32>
    "ov.Result"(%34) : (tensor<2xf32>) -> ()
    "ov.Result"(%33) : (tensor<2xf32>) -> ()
  }, {
    %35 = "ov.Parameter"() : () -> tensor<7x2xf32>
    "ov.Result"(%35) : (tensor<7x2xf32>) -> ()
    %36 = "ov.Constant"() <{value = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
    "ov.Result"(%36) : (tensor<3xf32>) -> ()
  }) : (tensor<i1>, tensor<2xf32>, tensor<7x2xf32>) -> (tensor<?xf32>, tensor<*xf32>)
  "ov.Result"(%31) : (tensor<?xf32>) -> ()
  "ov.Result"(%32) : (tensor<*xf32>) -> ()
}

// CHECK:      %0 = "ov.Parameter"() <{friendly_name = "n"}> : () -> tensor<i64>
// CHECK-NEXT: %1 = "ov.Parameter"() : () -> tensor<2xf32>
// CHECK-NEXT: %2 = "ov.Parameter"() : () -> tensor<2xf32>
// CHECK-NEXT: %3 = "ov.Parameter"() : () -> tensor<7x2xf32>
// CHECK-NEXT: %4 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
// CHECK-NEXT: %5, %6 = "ov.Loop"(%0, %4, %1, %2, %3) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 1 : i64, result = 1 : i64}, {kind = "invariant", external = 3 : i64, parameter = 2 : i64}, {kind = "slice", external = 4 : i64, parameter = 3 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "concat", result = 2 : i64, external = 1 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], current_iteration_input_idx = 0 : i64, body_condition_output_idx = 0 : i64, friendly_name = "loop"}> ({
// CHECK-NEXT: %7 = "ov.Parameter"() : () -> tensor<i64>
// CHECK-NEXT: %8 = "ov.Parameter"() : () -> tensor<2xf32>
// CHECK-NEXT: %9 = "ov.Parameter"() : () -> tensor<2xf32>
// CHECK-NEXT: %10 = "ov.Parameter"() : () -> tensor<1x2xf32>
// CHECK-NEXT: %11 = "ov.Constant"() <{value = dense<true> : tensor<i1>}> : () -> tensor<i1>
// CHECK-NEXT: %12 = "ov.Add"(%8, %9) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %13 = "ov.Multiply"(%10, %12) : (tensor<1x2xf32>, tensor<2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT: "ov.Result"(%11) : (tensor<i1>) -> ()
// CHECK-NEXT: "ov.Result"(%12) : (tensor<2xf32>) -> ()
// CHECK-NEXT: "ov.Result"(%13) : (tensor<1x2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i64>, tensor<i1>, tensor<2xf32>, tensor<2xf32>, tensor<7x2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>)
// CHECK-NEXT: "ov.Result"(%5) : (tensor<2xf32>) -> ()
// CHECK-NEXT: "ov.Result"(%6) : (tensor<?x2xf32>) -> ()
// CHECK-NEXT: %7 = "ov.Parameter"() : () -> tensor<1x2xf32>
// CHECK-NEXT: %8, %9 = "ov.TensorIterator"(%3, %7) <{input_map = [{kind = "slice", external = 0 : i64, parameter = 0 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}, {kind = "merged", external = 1 : i64, parameter = 1 : i64, result = 0 : i64}], output_map = [{kind = "concat", result = 1 : i64, external = 0 : i64, axis = 1 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}, {kind = "last", result = 0 : i64, external = 1 : i64, iteration = -1 : i64}]}> ({
// CHECK-NEXT: %10 = "ov.Parameter"() : () -> tensor<1x2xf32>
// CHECK-NEXT: %11 = "ov.Parameter"() : () -> tensor<?x2xf32>
// CHECK-NEXT: %12 = "ov.Concat"(%11, %10) <{axis = 0 : i64}> : (tensor<?x2xf32>, tensor<1x2xf32>) -> tensor<?x2xf32>
// CHECK-NEXT: %13 = "ov.Add"(%10, %10) : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x2xf32>
// CHECK-NEXT: "ov.Result"(%12) : (tensor<?x2xf32>) -> ()
// CHECK-NEXT: "ov.Result"(%13) : (tensor<1x2xf32>) -> ()
// CHECK-NEXT: }) : (tensor<7x2xf32>, tensor<1x2xf32>) -> (tensor<1x14xf32>, tensor<?x2xf32>)
// CHECK-NEXT: "ov.Result"(%8) : (tensor<1x14xf32>) -> ()
// CHECK-NEXT: "ov.Result"(%9) : (tensor<?x2xf32>) -> ()
// CHECK-NEXT: %10 = "ov.Parameter"() : () -> tensor<i1>
// CHECK-NEXT: %11, %12 = "ov.If"(%10, %1, %3) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "last", result = 1 : i64, external = 1 : i64, iteration = -1 : i64}], else_input_map = [{kind = "invariant", external = 2 : i64, parameter = 0 : i64}], else_output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "last", result = 0 : i64, external = 1 : i64, iteration = -1 : i64}]}> ({
// CHECK-NEXT: %13 = "ov.Parameter"() : () -> tensor<2xf32>
// CHECK-NEXT: %14 = "ov.Relu"(%13) : (tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: "ov.Result"(%14) : (tensor<2xf32>) -> ()
// CHECK-NEXT: "ov.Result"(%13) : (tensor<2xf32>) -> ()
// CHECK-NEXT: }, {
// CHECK-NEXT: %15 = "ov.Parameter"() : () -> tensor<7x2xf32>
// CHECK-NEXT: "ov.Result"(%15) : (tensor<7x2xf32>) -> ()
// CHECK-NEXT: %16 = "ov.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
// CHECK-NEXT: "ov.Result"(%16) : (tensor<3xf32>) -> ()
// CHECK-NEXT: }) : (tensor<i1>, tensor<2xf32>, tensor<7x2xf32>) -> (tensor<?xf32>, tensor<*xf32>)
// CHECK-NEXT: "ov.Result"(%11) : (tensor<?xf32>) -> ()
// CHECK-NEXT: "ov.Result"(%12) : (tensor<*xf32>) -> ()
