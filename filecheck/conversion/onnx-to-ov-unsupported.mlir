// RUN: not xmo-opt %s -p convert-onnx-to-ov 2>&1 | filecheck %s
// Unconvertible nodes are reported together, by type, with counts and names;
// nodes that only depend on them are not reported.

builtin.module {
  %x = "onnx.Input"() <{name = "x"}> : () -> tensor<2xf32>
  %a = "onnx.Custom"(%x) <{domain = "my.domain", op_type = "Frob", version = 1 : i64, output_names = ["a"], node_name = "f1"}> : (tensor<2xf32>) -> tensor<2xf32>
  %b = "onnx.Custom"(%x) <{domain = "my.domain", op_type = "Frob", version = 1 : i64, output_names = ["b"], node_name = "f2"}> : (tensor<2xf32>) -> tensor<2xf32>
  %c = "onnx.Add"(%a, %b) <{output_names = ["c"], node_name = "add"}> : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  "onnx.Output"(%c) <{name = "c"}> : (tensor<2xf32>) -> ()
}

// CHECK: xmo-opt: error: List of operations that cannot be converted:
// CHECK-NEXT: my.domain:Frob (2): f1, f2
// CHECK-NEXT: reason: unknown operation
// CHECK-NOT: add
