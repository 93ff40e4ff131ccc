//===- SelectFormulation.cpp - Choose each layer's formulation ------------===//

#include "sympow/Compiler/CostModel.h"
#include "sympow/Compiler/Passes.h"
#include "sympow/Dialect/SympowOps.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWSELECTFORMULATION
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;
using namespace sympow;

namespace {

int64_t staticOr(int64_t size, int64_t fallback) {
  return ShapedType::isDynamic(size) ? fallback : size;
}

struct SelectFormulationPass
    : sympow::impl::SympowSelectFormulationBase<SelectFormulationPass> {
  using Base::Base;

  void runOnOperation() override {
    if (chunkSize < 1) {
      getOperation()->emitError()
          << "sympow-select-formulation: chunk-size must be >= 1, got "
          << static_cast<int64_t>(chunkSize);
      return signalPassFailure();
    }
    gpu = GpuSpec::forArch(arch);
    if (!gpu) {
      getOperation()->emitError()
          << "sympow-select-formulation: no GPU model for arch '" << arch
          << "': use sm_90a (H100) or sm_80 (A100)";
      return signalPassFailure();
    }
    getOperation()->walk([&](LayerOp layer) {
      if (layer.getFormulationAttr())
        return; // The user's choice.
      layer.setFormulationAttr(choose(layer));
    });
  }

  FormulationAttr choose(LayerOp layer) {
    MLIRContext *ctx = layer.getContext();
    ScheduleAttr schedule = layer.getScheduleAttr();
    if (schedule && schedule.isRelativeOnly())
      return FormulationAttr::get(ctx, FormulationKind::Attention,
                                  std::nullopt);
    ArrayRef<int64_t> q = layer.getQ().getType().getShape();
    ArrayRef<int64_t> v = layer.getV().getType().getShape();
    LayerSizes sizes;
    sizes.batch = staticOr(q[0], assumedBatch);
    sizes.seqLen = staticOr(q[1], assumedSeqLen);
    // Head counts scale both formulations alike; unknown ones count as 1.
    sizes.queryHeads = staticOr(q[2], 1);
    sizes.keyHeads = staticOr(v[2], 1);
    sizes.headDim = q[3];
    sizes.valueDim = v[3];
    sizes.power = layer.getPower();
    sizes.elementBytes = layer.getQ().getType().getElementTypeBitWidth() / 8;
    sizes.f16 = layer.getQ().getType().getElementType().isF16();
    sizes.hasInitialState = layer.hasInitialState();
    sizes.learnedSchedule =
        schedule && schedule.getKind() == ScheduleKind::Learned;
    sizes.rotatingSchedule =
        schedule && schedule.getKind() != ScheduleKind::None;
    sizes.relativeSchedule =
        schedule && (schedule.getKind() == ScheduleKind::Warped ||
                     schedule.getKind() == ScheduleKind::Blend);
    FormulationKind kind = chooseFormulation(sizes, chunkSize, *gpu);
    std::optional<int64_t> chunk;
    if (kind == FormulationKind::Chunked)
      chunk = chunkSize;
    return FormulationAttr::get(ctx, kind, chunk);
  }

  const GpuSpec *gpu = nullptr;
};

} // namespace
