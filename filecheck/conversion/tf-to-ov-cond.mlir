// RUN: xmo-opt %s -p convert-tf-to-ov | filecheck %s
// A frozen tf.cond (Switch / Merge) whose predicate folds to a constant: a
// PlaceholderWithDefault(false) learning phase. The Switch forwards x to the
// false port; the true branch is dead -- through data edges (then_mul) and
// through control edges from its pivot (the constant "two") -- so it is not
// converted, even the op no converter knows; the Merge forwards the live
// branch (value_index, its output 1, is the constant 1). Only x, the constant
// "one" and the Add are computed.

builtin.module {
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[2, 3]>}> : () -> tensor<2x3xf32>
  %dflt = "tf.Const"() <{node_name = "dflt", dtype = i1, value = dense<false> : tensor<i1>}> : () -> tensor<i1>
  %lp = "tf.PlaceholderWithDefault"(%dflt) <{node_name = "learning_phase", dtype = i1, shape = #tf.shape<[]>}> : (tensor<i1>) -> tensor<*xi1>
  %sw_pred, %sw_pred_1 = "tf.Switch"(%lp, %lp) <{node_name = "sw_pred", T = i1}> : (tensor<*xi1>, tensor<*xi1>) -> (tensor<*xi1>, tensor<*xi1>)
  %pivot_t = "tf.Identity"(%sw_pred_1) <{node_name = "pivot_t", T = i1}> : (tensor<*xi1>) -> tensor<*xi1>
  %pivot_f = "tf.Identity"(%sw_pred) <{node_name = "pivot_f", T = i1}> : (tensor<*xi1>) -> tensor<*xi1>
  %sw_x, %sw_x_1 = "tf.Switch"(%x, %lp) <{node_name = "sw_x", T = f32}> : (tensor<2x3xf32>, tensor<*xi1>) -> (tensor<*xf32>, tensor<*xf32>)
  %two = "tf.Const"() <{node_name = "two", control_inputs = ["pivot_t"], dtype = f32, value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %one = "tf.Const"() <{node_name = "one", control_inputs = ["pivot_f"], dtype = f32, value = dense<1.000000e+00> : tensor<f32>}> : () -> tensor<f32>
  %then_mul = "tf.Mul"(%sw_x_1, %two) <{node_name = "then_mul", T = f32}> : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %then_out = "tf.Unknown"(%then_mul) <{node_name = "then_out", op_type = "FancyOp", T = f32}> : (tensor<*xf32>) -> tensor<*x!tf.unknown>
  %else_out = "tf.AddV2"(%sw_x, %one) <{node_name = "else_out", T = f32}> : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
  %merge, %merge_1 = "tf.Merge"(%then_out, %else_out) <{node_name = "merge", N = 2 : i64, T = f32}> : (tensor<*x!tf.unknown>, tensor<*xf32>) -> (tensor<*xf32>, tensor<*xi32>)
  %y = "tf.Identity"(%merge) <{node_name = "y", T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
  "tf.Output"(%y) <{tensor_name = "y"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x", tensor_names = {{\[\["x", "x:0", "sw_x", "sw_x:0"\]\]}}}> : () -> tensor<2x3xf32>
// CHECK-NEXT: "ov.Constant"() <{value = dense<false> : tensor<i1>, friendly_name = "dflt"
// CHECK-NEXT: %[[ONE:.*]] = "ov.Constant"() <{value = dense<1.000000e+00> : tensor<f32>, friendly_name = "one"
// CHECK-NEXT: %[[ADD:.*]] = "ov.Add"(%[[X]], %[[ONE]]) <{friendly_name = "else_out", tensor_names = {{\[\["else_out", "else_out:0", "merge", "merge:0", "y", "y:0"\]\]}}}>
// CHECK-NEXT: "ov.Constant"() <{value = dense<1> : tensor<i32>, friendly_name = "merge:1"
// CHECK-NEXT: "ov.Result"(%[[ADD]]) : (tensor<2x3xf32>) -> ()
// CHECK-NOT: two
// CHECK-NOT: FancyOp
