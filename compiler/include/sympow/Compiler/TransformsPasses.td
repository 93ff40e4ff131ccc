//===- TransformsPasses.td - Tensor-level sympow passes ----*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_TRANSFORMSPASSES_TD
#define SYMPOW_COMPILER_TRANSFORMSPASSES_TD

include "mlir/Pass/PassBase.td"

def SympowSelectFormulation : Pass<"sympow-select-formulation"> {
  let summary = "Choose attention, chunked or recurrent for each layer";
  let description = [{
    Sets `formulation` on every `sympow.layer` that has none: the recurrent
    step when one token meets a state (decoding), else the faster of the
    attention formulation and the chunked one in the time the calibrated GPU
    model predicts for `arch` (docs/Performance.md: each formulation's
    kernels estimated from the layer's sizes, as today's generators build
    them). Layers
    whose schedule has no recurrent form (warped, blend) always get
    `attention`. A formulation already present is the user's override and is
    kept.

    ```mlir
    // before
    %y = sympow.layer power = 2 q(...) k(...) v(...) -> tensor<1x65536x8x64xbf16>
    // after
    %y = sympow.layer power = 2 q(...) k(...) v(...)
           formulation = <chunked, chunk = 64> -> tensor<1x65536x8x64xbf16>
    ```
  }];
  let dependentDialects = ["::sympow::SympowDialect"];
  let options = [
    Option<"chunkSize", "chunk-size", "int64_t", /*default=*/"64",
           "Chunk size C given to the chunked formulation">,
    Option<"assumedSeqLen", "assumed-seq-len", "int64_t", /*default=*/"4096",
           "Sequence length T to cost layers whose T is dynamic">,
    Option<"assumedBatch", "assumed-batch", "int64_t", /*default=*/"1",
           "Batch size B to cost layers whose B is dynamic">,
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_90a\"",
           "GPU whose predicted times decide: sm_90a (H100) or sm_80 (A100)">,
  ];
}

def SympowDecomposeLayer : Pass<"sympow-decompose-layer"> {
  let summary = "Rewrite each sympow.layer into the dialect's smaller ops";
  let description = [{
    Replaces every `sympow.layer` by the pieces its formulation computes,
    at tensor level (run `--sympow-select-formulation` first, or write the
    formulation on the layer):

    - all: the total gate `log_g + log_gamma` (linalg), the angle counts
      (`sympow.angle_count` for learned, t + 1 + c0 for uniform) and the
      rotation of q and k (`sympow.rotate`);
    - `attention`: one `sympow.attention_block` over the whole sequence
      (which rotates by w(i - j) itself for warped and blend), plus
      `sympow.state_query` against an initial state, then `sympow.combine`;
      a final state comes from one `sympow.state_update` over all tokens;
    - `chunked`: tokens padded to N = ceil(T / C) chunks and folded into the
      batch; each chunk's own state (`sympow.state_update`), the
      `sympow.discounted_scan` over chunks, then per chunk the intra-chunk
      `sympow.attention_block` and the `sympow.state_query` against the state
      before it, combined; every chunk is independent but for the scan;
    - `recurrent`: an `scf.for` over tokens, each a `sympow.state_update` of
      one token followed by a `sympow.state_query` (the decoding step).

    The final angle count is c at the last token (T >= 1).
  }];
  let dependentDialects = [
    "::sympow::SympowDialect", "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // SYMPOW_COMPILER_TRANSFORMSPASSES_TD
