//===- TransformsPasses.td - Tensor-level sympow passes ----*- tablegen -*-===//

#ifndef SYMPOW_COMPILER_TRANSFORMSPASSES_TD
#define SYMPOW_COMPILER_TRANSFORMSPASSES_TD

include "mlir/Pass/PassBase.td"

def SympowSelectFormulation : Pass<"sympow-select-formulation"> {
  let summary = "Choose attention, chunked or recurrent for each layer";
  let description = [{
    Sets `formulation` on every `sympow.layer` that has none, by the cost
    model of docs/CostModel.md: the recurrent step when one token meets a
    state (decoding), else the cheaper of the attention formulation and the
    chunked one in estimated time (FLOPs and bytes on the target). Layers
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
  ];
}

#endif // SYMPOW_COMPILER_TRANSFORMSPASSES_TD
