// RUN: xmo-opt %s -p convert-tf-to-ov | filecheck %s
// A functional While whose condition depends on the data (sum(v) < 100):
// trip count -1, the cond function converted twice -- outside on the initial
// values (the execution condition) and in the body on the body's results
// (the body's condition output, result 0); i and v are loop-carried (merged
// inputs with back edges, last outputs), the invariant w (a constant) is
// cloned into the body, the invariant n (read by nothing) is dropped and
// its While result is the outer value.

builtin.module {
  "tf.Function"() <{sym_name = "body", arg_names = ["i", "v", "w", "n"], result_names = ["i_out", "v_out", "w_out", "n_out"]}> ({
  ^bb0(%i: tensor<*xi32>, %v: tensor<*xf32>, %w: tensor<*xf32>, %n: tensor<*xi32>):
    %one = "tf.Const"() <{node_name = "one", dtype = i32, value = dense<1> : tensor<i32>}> : () -> tensor<i32>
    %inc = "tf.AddV2"(%i, %one) <{node_name = "inc", T = i32}> : (tensor<*xi32>, tensor<i32>) -> tensor<*xi32>
    %two = "tf.Const"() <{node_name = "two", dtype = f32, value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %dbl = "tf.Mul"(%v, %two) <{node_name = "dbl", T = f32}> : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
    %add = "tf.AddV2"(%dbl, %w) <{node_name = "add", T = f32}> : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
    "tf.Return"(%inc, %add, %w, %n) : (tensor<*xi32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>) -> ()
  }) : () -> ()
  "tf.Function"() <{sym_name = "cond", arg_names = ["i", "v", "w", "n"], result_names = ["ok"]}> ({
  ^bb0(%i: tensor<*xi32>, %v: tensor<*xf32>, %w: tensor<*xf32>, %n: tensor<*xi32>):
    %ax = "tf.Const"() <{node_name = "ax", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
    %s = "tf.Sum"(%v, %ax) <{node_name = "s", T = f32, Tidx = i32, keep_dims = false}> : (tensor<*xf32>, tensor<2xi32>) -> tensor<*xf32>
    %lim = "tf.Const"() <{node_name = "lim", dtype = f32, value = dense<1.000000e+02> : tensor<f32>}> : () -> tensor<f32>
    %lt = "tf.Less"(%s, %lim) <{node_name = "lt", T = f32}> : (tensor<*xf32>, tensor<f32>) -> tensor<*xi1>
    "tf.Return"(%lt) : (tensor<*xi1>) -> ()
  }) : () -> ()
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[?, 3]>}> : () -> tensor<?x3xf32>
  %i0 = "tf.Const"() <{node_name = "i0", dtype = i32, value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %w = "tf.Const"() <{node_name = "w", dtype = f32, value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %n = "tf.Const"() <{node_name = "n", dtype = i32, value = dense<3> : tensor<i32>}> : () -> tensor<i32>
  %loop, %loop_1, %loop_2, %loop_3 = "tf.StatelessWhile"(%i0, %x, %w, %n) <{node_name = "loop", T = [i32, f32, f32, i32], body = #tf.func<"body", {}>, cond = #tf.func<"cond", {}>, parallel_iterations = 10 : i64}> : (tensor<i32>, tensor<?x3xf32>, tensor<3xf32>, tensor<i32>) -> (tensor<*xi32>, tensor<*xf32>, tensor<*xf32>, tensor<*xi32>)
  %v = "tf.Identity"(%loop_1) <{node_name = "v", T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
  %steps = "tf.Identity"(%loop) <{node_name = "steps", T = i32}> : (tensor<*xi32>) -> tensor<*xi32>
  "tf.Output"(%v) <{tensor_name = "v"}> : (tensor<*xf32>) -> ()
  "tf.Output"(%steps) <{tensor_name = "steps"}> : (tensor<*xi32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[I0:.*]] = "ov.Constant"() <{value = dense<0> : tensor<i32>
// CHECK:      %[[EXEC:.*]] = "ov.Less"({{.*}}) <{friendly_name = "loop/cond/lt"}>
// CHECK-NEXT: %[[TRIP:.*]] = "ov.Constant"() <{value = dense<-1> : tensor<i64>
// CHECK-NEXT: %[[I:.*]], %[[V:.*]] = "ov.Loop"(%[[TRIP]], %[[EXEC]], %[[I0]], %[[X]]) <{input_map = [{kind = "merged", external = 2 : i64, parameter = 0 : i64, result = 1 : i64}, {kind = "merged", external = 3 : i64, parameter = 1 : i64, result = 2 : i64}], output_map = [{kind = "last", result = 1 : i64, external = 0 : i64, iteration = -1 : i64}, {kind = "last", result = 2 : i64, external = 1 : i64, iteration = -1 : i64}], body_condition_output_idx = 0 : i64
// CHECK-NEXT:   %[[PI:.*]] = "ov.Parameter"() <{friendly_name = "loop/body/v0"}> : () -> tensor<i32>
// CHECK-NEXT:   %[[PV:.*]] = "ov.Parameter"() <{friendly_name = "loop/body/v1"}> : () -> tensor<?x3xf32>
// CHECK-NEXT:   %[[W:.*]] = "ov.Constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>, friendly_name = "loop/body/w"}>
// CHECK:        %[[INC:.*]] = "ov.Add"(%[[PI]], %{{.*}}) <{friendly_name = "loop/body/inc"}>
// CHECK:        %[[DBL:.*]] = "ov.Multiply"(%[[PV]], %{{.*}})
// CHECK-NEXT:   %[[ADD:.*]] = "ov.Add"(%[[DBL]], %[[W]])
// CHECK:        %[[SUM:.*]] = "ov.ReduceSum"(%[[ADD]], %{{.*}}) {{.*}}friendly_name = "loop/body/cond/s"
// CHECK:        %[[LT:.*]] = "ov.Less"(%[[SUM]], %{{.*}}) <{friendly_name = "loop/body/cond/lt"}>
// CHECK-NEXT:   "ov.Result"(%[[LT]])
// CHECK-NEXT:   "ov.Result"(%[[INC]])
// CHECK-NEXT:   "ov.Result"(%[[ADD]])
// CHECK-NEXT: })
// CHECK-NEXT: "ov.Result"(%[[V]])
// CHECK-NEXT: "ov.Result"(%[[I]])
