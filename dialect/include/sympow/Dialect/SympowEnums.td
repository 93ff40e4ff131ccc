//===- SympowEnums.td - Enumerations of the sympow dialect -*- tablegen -*-===//

#ifndef SYMPOW_DIALECT_SYMPOWENUMS_TD
#define SYMPOW_DIALECT_SYMPOWENUMS_TD

include "mlir/IR/EnumAttr.td"

def Sympow_RotaryLayout : I32EnumAttr<"RotaryLayout",
    "which dimensions a rotary pair couples", [
      I32EnumAttrCase<"Interleaved", 0, "interleaved">,
      I32EnumAttrCase<"Half", 1, "half">
    ]> {
  let cppNamespace = "::sympow";
  let genSpecializedAttr = 0;
  let description = [{
    `interleaved` pairs dims (2j, 2j+1); `half` pairs (j, j + r/2), where r is
    the number of rotated dims.
  }];
}

def Sympow_ScheduleKind : I32EnumAttr<"ScheduleKind",
    "how the rotation angle count grows along the sequence", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Uniform", 1, "uniform">,
      I32EnumAttrCase<"Learned", 2, "learned">,
      I32EnumAttrCase<"Warped", 3, "warped">,
      I32EnumAttrCase<"Blend", 4, "blend">
    ]> {
  let cppNamespace = "::sympow";
  let genSpecializedAttr = 0;
  let description = [{
    `none`: no rotation; `uniform` (RoPE): c_t = c_0 + t + 1; `learned`
    (conformal sympow): c_t = c_0 + sum_{s<=t} beta_s; `warped` (WRoPE) and
    `blend`: the relative angle count is a function w(i - j) of the age only,
    so only the attention formulation computes them.
  }];
}

def Sympow_GateKind : I32EnumAttr<"GateKind",
    "which decay gates a layer applies", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Head", 1, "head">,
      I32EnumAttrCase<"Data", 2, "data">,
      I32EnumAttrCase<"Both", 3, "both">
    ]> {
  let cppNamespace = "::sympow";
  let genSpecializedAttr = 0;
  let description = [{
    `head`: a per-head constant `log_gamma` (ALiBi-equivalent); `data`: the
    data-dependent `log_g`; `both`: their sum.
  }];
}

def Sympow_FormulationKind : I32EnumAttr<"FormulationKind",
    "how a layer is computed", [
      I32EnumAttrCase<"Attention", 0, "attention">,
      I32EnumAttrCase<"Chunked", 1, "chunked">,
      I32EnumAttrCase<"Recurrent", 2, "recurrent">
    ]> {
  let cppNamespace = "::sympow";
  let genSpecializedAttr = 0;
  let description = [{
    `attention`: the quadratic definition; `chunked`: attention inside chunks
    of C tokens and the state across them; `recurrent`: one token at a time
    against the state (decoding).
  }];
}

def Sympow_ElementKind : I32EnumAttr<"ElementKind",
    "the element type of q, k and v", [
      I32EnumAttrCase<"BF16", 0, "bf16">,
      I32EnumAttrCase<"F16", 1, "f16">,
      I32EnumAttrCase<"F32", 2, "f32">
    ]> {
  let cppNamespace = "::sympow";
  let genSpecializedAttr = 0;
}

#endif // SYMPOW_DIALECT_SYMPOWENUMS_TD
