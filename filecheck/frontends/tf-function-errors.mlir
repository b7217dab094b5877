// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier messages of calls of the function library: a call names a
// tf.Function of the module that takes and returns what the call passes.

// a While whose body is not a function of the module
builtin.module {
  "tf.Function"() <{sym_name = "cond", arg_names = ["i"], result_names = ["ok"]}> ({
  ^bb0(%i: tensor<i32>):
    %t = "tf.Const"() <{node_name = "t", dtype = i1, value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "tf.Return"(%t) : (tensor<i1>) -> ()
  }) : () -> ()
  %0 = "tf.Const"() <{node_name = "i0", dtype = i32, value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %1 = "tf.While"(%0) <{node_name = "w", T = [i32], body = #tf.func<"body", {}>, cond = #tf.func<"cond", {}>}> : (tensor<i32>) -> tensor<*xi32>
}
// CHECK: tf.While 'w': 'body' names 'body', which is not a tf.Function of the module

// -----

// a body returning fewer values than the loop has variables
builtin.module {
  "tf.Function"() <{sym_name = "body", arg_names = ["i", "v"], result_names = ["i2"]}> ({
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    "tf.Return"(%i) : (tensor<i32>) -> ()
  }) : () -> ()
  "tf.Function"() <{sym_name = "cond", arg_names = ["i", "v"], result_names = ["ok"]}> ({
  ^bb0(%i: tensor<i32>, %v: tensor<f32>):
    %t = "tf.Const"() <{node_name = "t", dtype = i1, value = dense<true> : tensor<i1>}> : () -> tensor<i1>
    "tf.Return"(%t) : (tensor<i1>) -> ()
  }) : () -> ()
  %0 = "tf.Const"() <{node_name = "i0", dtype = i32, value = dense<0> : tensor<i32>}> : () -> tensor<i32>
  %1 = "tf.Const"() <{node_name = "v0", dtype = f32, value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %2, %3 = "tf.StatelessWhile"(%0, %1) <{node_name = "w", T = [i32, f32], body = #tf.func<"body", {}>, cond = #tf.func<"cond", {}>}> : (tensor<i32>, tensor<f32>) -> (tensor<*xi32>, tensor<*xf32>)
}
// CHECK: tf.StatelessWhile 'w': function 'body' ('body') returns 1 value, the node needs 2

// -----

// an If branch taking another number of arguments than the If passes
builtin.module {
  "tf.Function"() <{sym_name = "f", arg_names = [], result_names = ["y"]}> ({
    %t = "tf.Const"() <{node_name = "t", dtype = f32, value = dense<1.0> : tensor<f32>}> : () -> tensor<f32>
    "tf.Return"(%t) : (tensor<f32>) -> ()
  }) : () -> ()
  %0 = "tf.Const"() <{node_name = "p", dtype = i1, value = dense<true> : tensor<i1>}> : () -> tensor<i1>
  %1 = "tf.Const"() <{node_name = "x", dtype = f32, value = dense<0.0> : tensor<f32>}> : () -> tensor<f32>
  %2 = "tf.StatelessIf"(%0, %1) <{node_name = "if", Tcond = i1, Tin = [f32], Tout = [f32], then_branch = #tf.func<"f", {}>, else_branch = #tf.func<"f", {}>}> : (tensor<i1>, tensor<f32>) -> tensor<*xf32>
}
// CHECK: tf.StatelessIf 'if': function 'f' ('then_branch') takes 0 arguments, the node passes 1

// -----

// a function whose body does not end with tf.Return
builtin.module {
  "tf.Function"() <{sym_name = "f", arg_names = ["a"], result_names = []}> ({
  ^bb0(%a: tensor<f32>):
    "tf.NoOp"() <{node_name = "n"}> : () -> ()
  }) : () -> ()
}
// CHECK: Operation tf.NoOp terminates block in single-block region but is not a terminator
