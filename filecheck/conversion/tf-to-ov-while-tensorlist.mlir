// RUN: xmo-opt %s -p convert-tf-to-ov | filecheck %s
// A functional While over TensorLists (tf.while_loop writing a TensorArray,
// as Keras' RNNs do): the list read at the counter t becomes a sliced input
// (axis 0, one row per iteration, squeezed in the body), the list written at
// t a concatenated output (the item unsqueezed on axis 0) that
// TensorListStack returns as it is; the trip count comes from the condition
// t < 5, which is then not evaluated in the body (a constant true), and t,
// needed for nothing else, is not carried. The execution condition is the
// cond function on the initial values, outside the loop.

builtin.module {
  "tf.Function"() <{sym_name = "body", arg_names = ["t", "xs", "ys"], result_names = ["t_out", "xs_out", "ys_out"]}> ({
  ^bb0(%t: tensor<*xi32>, %xs: tensor<*x!tf.variant>, %ys: tensor<*x!tf.variant>):
    %es = "tf.Const"() <{node_name = "es", dtype = i32, value = dense<-1> : tensor<i32>}> : () -> tensor<i32>
    %get = "tf.TensorListGetItem"(%xs, %t, %es) <{node_name = "get", element_dtype = f32}> : (tensor<*x!tf.variant>, tensor<*xi32>, tensor<i32>) -> tensor<*xf32>
    %two = "tf.Const"() <{node_name = "two", dtype = f32, value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %dbl = "tf.Mul"(%get, %two) <{node_name = "dbl", T = f32}> : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
    %set = "tf.TensorListSetItem"(%ys, %t, %dbl) <{node_name = "set", element_dtype = f32}> : (tensor<*x!tf.variant>, tensor<*xi32>, tensor<*xf32>) -> tensor<*x!tf.variant>
    %one = "tf.Const"() <{node_name = "one", dtype = i32, value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %inc = "tf.AddV2"(%t, %one) <{node_name = "inc", T = i32}> : (tensor<*xi32>, tensor<i32>) -> tensor<*xi32>
    "tf.Return"(%inc, %xs, %set) : (tensor<*xi32>, tensor<*x!tf.variant>, tensor<*x!tf.variant>) -> ()
  }) : () -> ()
  "tf.Function"() <{sym_name = "cond", arg_names = ["t", "xs", "ys"], result_names = ["ok"]}> ({
  ^bb0(%t: tensor<*xi32>, %xs: tensor<*x!tf.variant>, %ys: tensor<*x!tf.variant>):
    %lim = "tf.Const"() <{node_name = "lim", dtype = i32, value = dense<5> : tensor<i32>}> : () -> tensor<i32>
    %lt = "tf.Less"(%t, %lim) <{node_name = "lt", T = i32}> : (tensor<*xi32>, tensor<i32>) -> tensor<*xi1>
    "tf.Return"(%lt) : (tensor<*xi1>) -> ()
  }) : () -> ()
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[5, ?]>}> : () -> tensor<5x?xf32>
  %es = "tf.Const"() <{node_name = "es", dtype = i32, value = dense<-1> : tensor<i32>}> : () -> tensor<i32>
  %xs = "tf.TensorListFromTensor"(%x, %es) <{node_name = "xs", element_dtype = f32, shape_type = i32}> : (tensor<5x?xf32>, tensor<i32>) -> tensor<*x!tf.variant>
  %n = "tf.Const"() <{node_name = "n", dtype = i32, value = dense<5> : tensor<i32>}> : () -> tensor<i32>
  %ys = "tf.TensorListReserve"(%es, %n) <{node_name = "ys", element_dtype = f32, shape_type = i32}> : (tensor<i32>, tensor<i32>) -> tensor<*x!tf.variant>
  %t0 = "tf.Const"() <{node_name = "t0", dtype = i32, value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %loop, %loop_1, %loop_2 = "tf.While"(%t0, %xs, %ys) <{node_name = "loop", T = [i32, !tf.variant, !tf.variant], body = #tf.func<"body", {}>, cond = #tf.func<"cond", {}>, parallel_iterations = 10 : i64}> : (tensor<i32>, tensor<*x!tf.variant>, tensor<*x!tf.variant>) -> (tensor<*xi32>, tensor<*x!tf.variant>, tensor<*x!tf.variant>)
  %stack = "tf.TensorListStack"(%loop_2, %es) <{node_name = "stack", element_dtype = f32}> : (tensor<*x!tf.variant>, tensor<i32>) -> tensor<*xf32>
  %y = "tf.Identity"(%stack) <{node_name = "y", T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
  "tf.Output"(%y) <{tensor_name = "y"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK:      %[[EXEC:.*]] = "ov.Less"({{.*}}) <{friendly_name = "loop/cond/lt"}>
// CHECK-NEXT: %[[TRIP:.*]] = "ov.Constant"() <{value = dense<5> : tensor<i64>
// CHECK-NEXT: %[[LOOP:.*]] = "ov.Loop"(%[[TRIP]], %[[EXEC]], %[[X]]) <{input_map = [{kind = "slice", external = 2 : i64, parameter = 0 : i64, axis = 0 : i64, start = 0 : i64, stride = 1 : i64, end = -1 : i64, part_size = 1 : i64}], output_map = [{kind = "concat", result = 1 : i64, external = 0 : i64, axis = 0 : i64, {{.*}}}], body_condition_output_idx = 0 : i64
// CHECK-NEXT:   %[[P:.*]] = "ov.Parameter"() <{friendly_name = "loop/body/x1"}> : () -> tensor<1x?xf32>
// CHECK-NOT:    "ov.Parameter"
// CHECK:        %[[ROW:.*]] = "ov.Squeeze"(%[[P]], %{{.*}}) {{.*}} -> tensor<?xf32>
// CHECK:        %[[DBL:.*]] = "ov.Multiply"(%[[ROW]], %{{.*}}) <{friendly_name = "loop/body/dbl"}>
// CHECK-NEXT:   %[[TRUE:.*]] = "ov.Constant"() <{value = dense<true> : tensor<i1>, friendly_name = "loop/body/cond"}>
// CHECK:        %[[ITEM:.*]] = "ov.Unsqueeze"(%[[DBL]], %{{.*}}) {{.*}} -> tensor<1x?xf32>
// CHECK-NEXT:   "ov.Result"(%[[TRUE]])
// CHECK-NEXT:   "ov.Result"(%[[ITEM]])
// CHECK-NEXT: })
// CHECK-NEXT: "ov.Result"(%[[LOOP]])
