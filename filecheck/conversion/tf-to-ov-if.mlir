// RUN: xmo-opt %s -p convert-tf-to-ov | filecheck %s
// A StatelessIf on a predicate fed at run time becomes an ov.If whose
// branches are the two functions: the argument x is each branch's invariant
// input (parameter 0), the branch results its last outputs; constants of a
// branch stay inside it.

builtin.module {
  "tf.Function"() <{sym_name = "else", arg_names = ["a"], result_names = ["y"]}> ({
  ^bb0(%a: tensor<*xf32>):
    %s = "tf.Sigmoid"(%a) <{node_name = "s", T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
    "tf.Return"(%s) : (tensor<*xf32>) -> ()
  }) : () -> ()
  "tf.Function"() <{sym_name = "then", arg_names = ["a"], result_names = ["y"]}> ({
  ^bb0(%a: tensor<*xf32>):
    %k = "tf.Const"() <{node_name = "k", dtype = f32, value = dense<2.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %m = "tf.Mul"(%a, %k) <{node_name = "m", T = f32}> : (tensor<*xf32>, tensor<f32>) -> tensor<*xf32>
    "tf.Return"(%m) : (tensor<*xf32>) -> ()
  }) : () -> ()
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[?, 4]>}> : () -> tensor<?x4xf32>
  %p = "tf.Placeholder"() <{node_name = "p", dtype = i1, shape = #tf.shape<[]>}> : () -> tensor<i1>
  %if = "tf.StatelessIf"(%p, %x) <{node_name = "if", Tcond = i1, Tin = [f32], Tout = [f32], else_branch = #tf.func<"else", {}>, then_branch = #tf.func<"then", {}>}> : (tensor<i1>, tensor<?x4xf32>) -> tensor<*xf32>
  %y = "tf.Identity"(%if) <{node_name = "y", T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
  "tf.Output"(%y) <{tensor_name = "y"}> : (tensor<*xf32>) -> ()
}

// CHECK:      %[[X:.*]] = "ov.Parameter"() <{friendly_name = "x"
// CHECK-NEXT: %[[P:.*]] = "ov.Parameter"() <{friendly_name = "p"
// CHECK-NEXT: %[[IF:.*]] = "ov.If"(%[[P]], %[[X]]) <{then_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], then_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}], else_input_map = [{kind = "invariant", external = 1 : i64, parameter = 0 : i64}], else_output_map = [{kind = "last", result = 0 : i64, external = 0 : i64, iteration = -1 : i64}]
// CHECK-NEXT:   %[[A:.*]] = "ov.Parameter"() <{friendly_name = "if/then/in0"}> : () -> tensor<?x4xf32>
// CHECK-NEXT:   %[[K:.*]] = "ov.Constant"() <{value = dense<2.000000e+00> : tensor<f32>, friendly_name = "if/then/k"}>
// CHECK-NEXT:   %[[M:.*]] = "ov.Multiply"(%[[A]], %[[K]])
// CHECK-NEXT:   "ov.Result"(%[[M]])
// CHECK-NEXT: }, {
// CHECK-NEXT:   %[[B:.*]] = "ov.Parameter"() <{friendly_name = "if/else/in0"}> : () -> tensor<?x4xf32>
// CHECK-NEXT:   %[[S:.*]] = "ov.Sigmoid"(%[[B]])
// CHECK-NEXT:   "ov.Result"(%[[S]])
// CHECK-NEXT: }) : (tensor<i1>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NEXT: "ov.Result"(%[[IF]])
