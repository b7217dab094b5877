// RUN: xmo-opt %s -t ov-ir -o %t.xml
// RUN: filecheck %s --input-file %t.xml --check-prefix=XML
// RUN: xmo-opt %t.xml | filecheck %s --check-prefix=BACK
// `-t ov-ir -o` writes IR v11 (.xml + .bin); reading it back gives the module.

builtin.module @tiny {
  %x = "ov.Parameter"() <{friendly_name = "x", tensor_names = [["x", "in,put"]]}> : () -> tensor<1x?xf32>
  %c = "ov.Constant"() <{value = dense<2.0> : tensor<1xf32>, friendly_name = "two"}> : () -> tensor<1xf32>
  %y = "ov.Multiply"(%x, %c) <{friendly_name = "mul", tensor_names = [["y"]]}> : (tensor<1x?xf32>, tensor<1xf32>) -> tensor<1x?xf32>
  "ov.Result"(%y) : (tensor<1x?xf32>) -> ()
}

// XML: <net name="tiny" version="11">
// XML: <layer id="0" name="x" type="Parameter" version="opset1">
// XML: <data shape="1,?" element_type="f32"
// XML: <port id="0" precision="FP32" names="x,in\,put">
// XML: <layer id="{{[0-9]+}}" name="mul" type="Multiply" version="opset1">
// XML: <port id="2" precision="FP32" names="y">
// XML: <dim>-1</dim>
// XML: type="Result" version="opset1"

// BACK: "ov.Parameter"() <{friendly_name = "x", tensor_names = {{\[\["x", "in,put"\]\]}}}> : () -> tensor<1x?xf32>
// BACK: "ov.Multiply"(%{{.*}}, %{{.*}}) <{friendly_name = "mul", auto_broadcast = "numpy", tensor_names = {{\[\["y"\]\]}}}> : (tensor<1x?xf32>, tensor<1xf32>) -> tensor<1x?xf32>
