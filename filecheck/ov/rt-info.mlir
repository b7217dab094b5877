// RUN: xmo-opt %s | filecheck %s --check-prefix=TEXT
// RUN: xmo-opt %s -t ov-ir -o %t.xml && filecheck %s --check-prefix=XML < %t.xml
// RUN: xmo-opt %t.xml | filecheck %s --check-prefix=BACK
// Runtime info: typed values in the textual IR, OpenVINO's <rt_info> in the
// IR, typed again when read back (known keys; others come back as text).

builtin.module {
  %x = "ov.Parameter"() <{friendly_name = "x", rt_info = {old_api_map_order = [0 : i64, 2 : i64, 1 : i64]}}> : () -> tensor<1x2x3xf32>
  %r = "ov.Relu"(%x) <{friendly_name = "relu", rt_info = {fused_names = ["relu", "bias"], decompression = "", level = 3 : i64, note = "text"}}> : (tensor<1x2x3xf32>) -> tensor<1x2x3xf32>
  "ov.Result"(%r) : (tensor<1x2x3xf32>) -> ()
}

// TEXT: rt_info = {old_api_map_order = [0 : i64, 2 : i64, 1 : i64]}
// TEXT: rt_info = {fused_names = ["relu", "bias"], decompression = "", level = 3 : i64, note = "text"}

// XML:      <attribute name="old_api_map_order" version="0" value="0,2,1" />
// XML:      <attribute name="decompression" version="0" />
// XML-NEXT: <attribute name="fused_names" version="0" value="relu,bias" />
// XML-NEXT: <attribute name="level" version="0" value="3" />
// XML-NEXT: <attribute name="note" version="0" value="text" />

// BACK: rt_info = {old_api_map_order = [0 : i64, 2 : i64, 1 : i64]}
// BACK: rt_info = {decompression = "", fused_names = ["relu", "bias"], level = "3", note = "text"}
