//===- SympowBase.td - The sympow dialect definition -------*- tablegen -*-===//
//
// The dialect of symmetric power attention: linear attention with kernel
// (q.k)^p, data-dependent gating and learned rotary positions. The math every
// op follows is ../shared/SPEC.md (copied in docs/SPEC.md).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_DIALECT_SYMPOWBASE_TD
#define SYMPOW_DIALECT_SYMPOWBASE_TD

include "mlir/IR/OpBase.td"

def Sympow_Dialect : Dialect {
  let name = "sympow";
  let cppNamespace = "::sympow";
  let summary = "Symmetric power (conformal) linear attention";
  let description = [{
    The `sympow` dialect describes symmetric power transformer layers: linear
    attention whose kernel is `(q.k)^p` for an even power `p`, with a learned
    decay of the state (the gate `log_g`, plus a per-head constant
    `log_gamma`) and rotary positions whose rotation speed may be learned
    (`beta`). A whole layer is one `sympow.layer` op; the compiler decomposes
    it into the smaller ops of this dialect (embedding, rotation, gated state
    update and query, causal attention block, discounted scan) before tiling
    them into GPU kernels.

    Tensor layouts follow the SPEC: `q [B, T, Hq, d]`, `k [B, T, H, d]`,
    `v [B, T, H, e]`, gates `[B, T, H]`, states `S [B, H, D, e]`,
    `Z [B, H, D]`, `c [B, H]` with `D = C(d + p - 1, p)`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
  private:
    // In SympowAttrs.cpp, where the attribute storage classes are complete.
    void registerAttributes();
  public:
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

#endif // SYMPOW_DIALECT_SYMPOWBASE_TD
