// RUN: xmo-opt %s --split-input-file --verify-diagnostics | filecheck %s
// Verifier errors of Reduce* and TopK.

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.ReduceSum"(%x, %a) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x1x4xf32>
}
// CHECK: ov.ReduceSum: output 0 has type tensor<2x1x4xf32>, but inputs and attributes give tensor<2x4xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %a = "ov.Constant"() <{value = dense<1> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.ReduceMean"(%x, %a) <{keep_dims = true}> : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x4xf32>
}
// CHECK: ov.ReduceMean: output 0 has type tensor<2x4xf32>, but inputs and attributes give tensor<2x1x4xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %a = "ov.Constant"() <{value = dense<3> : tensor<i64>}> : () -> tensor<i64>
  %y = "ov.ReduceMax"(%x, %a) : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x3xf32>
}
// CHECK: ov.ReduceMax: axis 3 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %a = "ov.Constant"() <{value = dense<[1.0]> : tensor<1xf32>}> : () -> tensor<1xf32>
  %y = "ov.ReduceMin"(%x, %a) : (tensor<2x3x4xf32>, tensor<1xf32>) -> tensor<2x4xf32>
}
// CHECK: ov.ReduceMin: axes (input 1) must be an integer type, got f32

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %a = "ov.Constant"() <{value = dense<[[0, 1]]> : tensor<1x2xi64>}> : () -> tensor<1x2xi64>
  %y = "ov.ReduceProd"(%x, %a) : (tensor<2x3x4xf32>, tensor<1x2xi64>) -> tensor<4xf32>
}
// CHECK: ov.ReduceProd: axes must be a scalar or 1-D, got shape [1,2]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %y = "ov.ReduceSum"(%x) : (tensor<2x3x4xf32>) -> tensor<f32>
}
// CHECK: ov.ReduceSum: expected 2 inputs, got 1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi32>)
}
// CHECK: ov.TopK: output 0 has type tensor<2x3x4xf32>, but inputs and attributes give tensor<2x2x4xf32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi64>)
}
// CHECK: ov.TopK: output 1 has type tensor<2x2x4xi64>, but inputs and attributes give tensor<2x2x4xi32>

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 3 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x2xf32>, tensor<2x3x2xi32>)
}
// CHECK: ov.TopK: axis 3 is out of range for rank 3

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "largest", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi32>)
}
// CHECK: ov.TopK: unknown mode 'largest'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "ascending"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi32>)
}
// CHECK: ov.TopK: unknown sort 'ascending'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<[2, 3]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<2xi64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi32>)
}
// CHECK: ov.TopK: k must be a scalar, got shape [2]

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<-1> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x?x4xf32>, tensor<2x?x4xi32>)
}
// CHECK: ov.TopK: k must not be negative, got -1

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value", index_element_type = "i16"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x2x4xf32>, tensor<2x2x4xi16>)
}
// CHECK: ov.TopK: attribute index_element_type must be one of ['i32', 'i64'], got i16

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v, %i = "ov.TopK"(%x, %k) <{mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi32>)
}
// CHECK: ov.TopK: missing required attribute 'axis'

// -----

builtin.module {
  %x = "ov.Parameter"() : () -> tensor<2x3x4xf32>
  %k = "ov.Constant"() <{value = dense<2> : tensor<i64>}> : () -> tensor<i64>
  %v = "ov.TopK"(%x, %k) <{axis = 1 : i64, mode = "max", sort = "value"}> : (tensor<2x3x4xf32>, tensor<i64>) -> tensor<2x2x4xf32>
}
// CHECK: ov.TopK: expected 2 outputs, got 1
