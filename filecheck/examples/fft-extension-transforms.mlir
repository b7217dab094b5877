// RUN: xmo-opt %s --extensions %S/../../examples/fft_extension -p complex-to-pairs | filecheck %s --check-prefix=FRONT
// RUN: xmo-opt %s --extensions %S/../../examples/fft_extension -p complex-to-pairs,convert-tf-to-ov,ov-dce | filecheck %s --check-prefix=LEGAL
// RUN: xmo-opt %s --extensions %S/../../examples/fft_extension -p complex-to-pairs,convert-tf-to-ov,ov-dce,fft-to-dft | filecheck %s --check-prefix=DFT
// "Writing a transformation": the FFT example's sub-graph transformation
// (StridedSlice pair + Complex removed), extractor (IFFT2D -> FFT), op
// replacement (ComplexAbs -> sqrt of a sum of squares) and back lowering.

builtin.module {
  %x = "tf.Placeholder"() <{node_name = "x", dtype = f32, shape = #tf.shape<[1, 8, 8, 2]>}> : () -> tensor<1x8x8x2xf32>
  %b0 = "tf.Const"() <{node_name = "b0", dtype = i32, value = dense<[0, 0]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %e0 = "tf.Const"() <{node_name = "e0", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %b1 = "tf.Const"() <{node_name = "b1", dtype = i32, value = dense<[0, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %e1 = "tf.Const"() <{node_name = "e1", dtype = i32, value = dense<[0, 2]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %s = "tf.Const"() <{node_name = "s", dtype = i32, value = dense<[1, 1]> : tensor<2xi32>}> : () -> tensor<2xi32>
  %re = "tf.StridedSlice"(%x, %b0, %e0, %s) <{node_name = "re", Index = i32, T = f32, begin_mask = 0 : i64, ellipsis_mask = 1 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64}> : (tensor<1x8x8x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<*xf32>
  %im = "tf.StridedSlice"(%x, %b1, %e1, %s) <{node_name = "im", Index = i32, T = f32, begin_mask = 0 : i64, ellipsis_mask = 1 : i64, end_mask = 0 : i64, new_axis_mask = 0 : i64, shrink_axis_mask = 2 : i64}> : (tensor<1x8x8x2xf32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>) -> tensor<*xf32>
  %c = "tf.Unknown"(%re, %im) <{node_name = "c", op_type = "Complex"}> : (tensor<*xf32>, tensor<*xf32>) -> tensor<*x!tf.unknown>
  %f = "tf.Unknown"(%c) <{node_name = "f", op_type = "IFFT2D"}> : (tensor<*x!tf.unknown>) -> tensor<*x!tf.unknown>
  %a = "tf.Unknown"(%f) <{node_name = "a", op_type = "ComplexAbs"}> : (tensor<*x!tf.unknown>) -> tensor<*x!tf.unknown>
  "tf.Output"(%a) <{tensor_name = "a"}> : (tensor<*x!tf.unknown>) -> ()
}
// FRONT-NOT: tf.StridedSlice
// FRONT-NOT: op_type = "Complex"
// FRONT: %[[X:.*]] = "tf.Placeholder"()
// FRONT: "tf.Unknown"(%[[X]]) <{node_name = "f", op_type = "IFFT2D"}>
// FRONT-NOT: tf.StridedSlice

// LEGAL: %[[P:.*]] = "ov.Parameter"()
// LEGAL: %[[F:.*]] = "ov.FFT"(%[[P]]) <{inverse = true, friendly_name = "f"
// LEGAL-SAME: (tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32>
// LEGAL: "ov.Multiply"(%[[F]], %[[F]])
// LEGAL: "ov.ReduceSum"
// LEGAL-SAME: -> tensor<1x8x8xf32>
// LEGAL: "ov.Sqrt"
// LEGAL-SAME: friendly_name = "a"

// DFT-NOT: ov.FFT
// DFT: "ov.IDFT"(%{{.*}}, %{{.*}}) <{{{.*}}friendly_name = "f"
// DFT-SAME: (tensor<1x8x8x2xf32>, tensor<2xi64>) -> tensor<1x8x8x2xf32>
