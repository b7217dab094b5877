// RUN: xmo-opt %s | xmo-opt | filecheck %s
// Elementwise binary ops (arithmetic, comparison, logical), Select and Convert
// round-trip with static, dynamic and dynamic-rank operands.

builtin.module {
  %a = "ov.Parameter"() : () -> tensor<2x3xf32>
  %b = "ov.Parameter"() : () -> tensor<3xf32>
  %d = "ov.Parameter"() : () -> tensor<?x3xf32>
  %u = "ov.Parameter"() : () -> tensor<*xf32>
  %i = "ov.Parameter"() : () -> tensor<4x1xi32>
  %j = "ov.Parameter"() : () -> tensor<5xi32>
  %p = "ov.Parameter"() : () -> tensor<2x3xi1>
  %q = "ov.Parameter"() : () -> tensor<?x3xi1>
  %add = "ov.Add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %sub = "ov.Subtract"(%a, %d) : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  %mul = "ov.Multiply"(%d, %b) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %div = "ov.Divide"(%i, %j) <{m_pythondiv = false}> : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  %pow = "ov.Power"(%a, %u) : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<*xf32>
  %max = "ov.Maximum"(%a, %a) <{auto_broadcast = "none"}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %min = "ov.Minimum"(%d, %d) : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
  %sqd = "ov.SquaredDifference"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %fm = "ov.FloorMod"(%i, %j) : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
  %mod = "ov.Mod"(%i, %i) : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
  %pd = "ov.Add"(%a, %d) <{auto_broadcast = "pdpd"}> : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
  %eq = "ov.Equal"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %ne = "ov.NotEqual"(%d, %b) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xi1>
  %lt = "ov.Less"(%i, %j) : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi1>
  %gt = "ov.Greater"(%u, %a) : (tensor<*xf32>, tensor<2x3xf32>) -> tensor<*xi1>
  %le = "ov.LessEqual"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %ge = "ov.GreaterEqual"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %and = "ov.LogicalAnd"(%p, %q) : (tensor<2x3xi1>, tensor<?x3xi1>) -> tensor<2x3xi1>
  %or = "ov.LogicalOr"(%p, %eq) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
  %xor = "ov.LogicalXor"(%q, %q) : (tensor<?x3xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
  %not = "ov.LogicalNot"(%q) : (tensor<?x3xi1>) -> tensor<?x3xi1>
  %sel = "ov.Select"(%p, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %seld = "ov.Select"(%q, %b, %b) : (tensor<?x3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %cvt = "ov.Convert"(%a) <{destination_type = "f16"}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %cvtb = "ov.Convert"(%p) <{destination_type = "u8"}> : (tensor<2x3xi1>) -> tensor<2x3xui8>
  %cvtu = "ov.Convert"(%u) <{destination_type = "i64"}> : (tensor<*xf32>) -> tensor<*xi64>
  "ov.Result"(%add) : (tensor<2x3xf32>) -> ()
}

// ---- generated checks ----
// CHECK: %add = "ov.Add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %sub = "ov.Subtract"(%a, %d) : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
// CHECK: %mul = "ov.Multiply"(%d, %b) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: %div = "ov.Divide"(%i, %j) <{m_pythondiv = false}> : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
// CHECK: %pow = "ov.Power"(%a, %u) : (tensor<2x3xf32>, tensor<*xf32>) -> tensor<*xf32>
// CHECK: %max = "ov.Maximum"(%a, %a) <{auto_broadcast = "none"}> : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %min = "ov.Minimum"(%d, %d) : (tensor<?x3xf32>, tensor<?x3xf32>) -> tensor<?x3xf32>
// CHECK: %sqd = "ov.SquaredDifference"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %fm = "ov.FloorMod"(%i, %j) : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi32>
// CHECK: %mod = "ov.Mod"(%i, %i) : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x1xi32>
// CHECK: %pd = "ov.Add"(%a, %d) <{auto_broadcast = "pdpd"}> : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>
// CHECK: %eq = "ov.Equal"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
// CHECK: %ne = "ov.NotEqual"(%d, %b) : (tensor<?x3xf32>, tensor<3xf32>) -> tensor<?x3xi1>
// CHECK: %lt = "ov.Less"(%i, %j) : (tensor<4x1xi32>, tensor<5xi32>) -> tensor<4x5xi1>
// CHECK: %gt = "ov.Greater"(%u, %a) : (tensor<*xf32>, tensor<2x3xf32>) -> tensor<*xi1>
// CHECK: %le = "ov.LessEqual"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: %ge = "ov.GreaterEqual"(%a, %a) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: %and = "ov.LogicalAnd"(%p, %q) : (tensor<2x3xi1>, tensor<?x3xi1>) -> tensor<2x3xi1>
// CHECK: %or = "ov.LogicalOr"(%p, %eq) : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1>
// CHECK: %xor = "ov.LogicalXor"(%q, %q) : (tensor<?x3xi1>, tensor<?x3xi1>) -> tensor<?x3xi1>
// CHECK: %not = "ov.LogicalNot"(%q) : (tensor<?x3xi1>) -> tensor<?x3xi1>
// CHECK: %sel = "ov.Select"(%p, %a, %b) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: %seld = "ov.Select"(%q, %b, %b) : (tensor<?x3xi1>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
// CHECK: %cvt = "ov.Convert"(%a) <{destination_type = "f16"}> : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK: %cvtb = "ov.Convert"(%p) <{destination_type = "u8"}> : (tensor<2x3xi1>) -> tensor<2x3xui8>
// CHECK: %cvtu = "ov.Convert"(%u) <{destination_type = "i64"}> : (tensor<*xf32>) -> tensor<*xi64>
