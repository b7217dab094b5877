// RUN: xmo-opt %s -p convert-mxnet-to-ov | filecheck %s
// MXNet nodes with string attributes: a graph input, a parameter of the
// .params file (a Constant), FullyConnected (flatten) + relu, an unused label
// variable that is no graph input, tensor names <node>_output.

builtin.module {
  %x = "mxnet.Var"() <{node_name = "data", attrs = {__shape__ = "(2, 3, 2)"}}> : () -> tensor<2x3x2xf32>
  %w = "mxnet.Var"() <{node_name = "fc_weight", attrs = {}, kind = "arg", value = dense<0.5> : tensor<4x6xf32>}> : () -> tensor<4x6xf32>
  %l = "mxnet.Var"() <{node_name = "softmax_label", attrs = {}}> : () -> tensor<*xf32>
  %fc = "mxnet.Node"(%x, %w) <{op_type = "FullyConnected", node_name = "fc", attrs = {num_hidden = "4", no_bias = "True"}}> : (tensor<2x3x2xf32>, tensor<4x6xf32>) -> tensor<*xf32>
  %r = "mxnet.Node"(%fc) <{op_type = "Activation", node_name = "relu", attrs = {act_type = "relu"}}> : (tensor<*xf32>) -> tensor<*xf32>
  %s = "mxnet.Node"(%r, %l) <{op_type = "SoftmaxOutput", node_name = "softmax", attrs = {}}> : (tensor<*xf32>, tensor<*xf32>) -> tensor<*xf32>
  "mxnet.Output"(%s) <{tensor_name = "softmax_output"}> : (tensor<*xf32>) -> ()
}

// CHECK: "ov.Parameter"() <{{.*}}friendly_name = "data"
// CHECK-NOT: softmax_label
// CHECK: "ov.Constant"() <{{.*}}friendly_name = "fc_weight"
// CHECK: "ov.Reshape"
// CHECK: "ov.MatMul"{{.*}}transpose_b = true, friendly_name = "fc"
// CHECK: "ov.Relu"{{.*}}friendly_name = "relu"
// CHECK: "ov.Softmax"{{.*}}axis = 1 : i64, friendly_name = "softmax"{{.*}}"softmax_output"
// CHECK: "ov.Result"
