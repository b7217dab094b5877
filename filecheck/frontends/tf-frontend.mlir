// RUN: xmo-opt %S/Inputs/tf_small.pbtxt | filecheck %s
// RUN: xmo-opt %S/Inputs/tf_small.pbtxt | xmo-opt | filecheck %s
// A text GraphDef (.pbtxt) loaded into the tf dialect: a ranked Placeholder,
// Consts from typed values (a scalar broadcast to 3x2), tensor ports, a control
// input, `_` attributes dropped, an op type without OpDef class (tf.Unknown),
// and the default output (the node nobody consumes). The printed module parses
// back (second RUN line).

// CHECK:      builtin.module {
// CHECK-NEXT:   %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[?, 3]>}> : () -> tensor<?x3xf32>
// CHECK-NEXT:   %dense_kernel = "tf.Const"() <{node_name = "dense/kernel", dtype = f32, value = dense<5.000000e-01> : tensor<3x2xf32>}> : () -> tensor<3x2xf32>
// CHECK-NEXT:   %dense_bias = "tf.Const"() <{node_name = "dense/bias", dtype = f32, value = dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>}> : () -> tensor<2xf32>
// CHECK-NEXT:   %dense_MatMul = "tf.MatMul"(%x, %dense_kernel) <{node_name = "dense/MatMul", T = f32, transpose_a = false, transpose_b = false}> : (tensor<?x3xf32>, tensor<3x2xf32>) -> tensor<*xf32>
// CHECK-NEXT:   %dense_BiasAdd = "tf.BiasAdd"(%dense_MatMul, %dense_bias) <{node_name = "dense/BiasAdd", T = f32, data_format = "NHWC"}> : (tensor<*xf32>, tensor<2xf32>) -> tensor<*xf32>
// CHECK-NEXT:   "tf.NoOp"() <{node_name = "init"}> : () -> ()
// CHECK-NEXT:   %dense_Relu = "tf.Relu"(%dense_BiasAdd) <{node_name = "dense/Relu", control_inputs = ["init"], T = f32}> : (tensor<*xf32>) -> tensor<*xf32>
// CHECK-NEXT:   %custom = "tf.Unknown"(%dense_Relu) <{node_name = "custom", op_type = "MyCustomOp", axes = array<i64: 0, 1>, body = #tf.func<"my_fn", {}>, out_shape = #tf.shape<*>}> : (tensor<*xf32>) -> tensor<*x!tf.unknown>
// CHECK-NEXT:   "tf.Output"(%custom) <{tensor_name = "custom"}> : (tensor<*x!tf.unknown>) -> ()
// CHECK-NEXT: }
