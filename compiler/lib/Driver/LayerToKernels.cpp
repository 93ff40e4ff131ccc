//===- LayerToKernels.cpp - Generate the GPU kernels of every layer -------===//

#include "sympow/Compiler/Driver/LayerKernels.h"
#include "sympow/Compiler/Passes.h"
#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Dialect/SympowOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWLAYERTOKERNELS
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;
using namespace sympow;

namespace {

/// The kernel request of `layer`, or an error on the layer saying why its
/// kernels cannot be generated.
FailureOr<LayerKernelRequest> requestFor(LayerOp layer) {
  FormulationAttr formulation = layer.getFormulationAttr();
  if (!formulation)
    return layer.emitOpError()
           << "has no formulation: run --sympow-select-formulation first or "
              "write one";
  auto q = layer.getQ().getType(), k = layer.getK().getType(),
       v = layer.getV().getType();
  if (q.isDynamicDim(2) || k.isDynamicDim(2))
    return layer.emitOpError()
           << "the kernels are specialised on the head counts: Hq and H "
              "must be static";
  LayerKernelRequest r;
  AttentionKernelSpec &s = r.spec;
  s.p = layer.getPower();
  s.d = q.getDimSize(3);
  s.e = v.getDimSize(3);
  s.hq = q.getDimSize(2);
  s.h = k.getDimSize(2);
  Type element = q.getElementType();
  s.dtype = element.isBF16()  ? ElementKind::BF16
            : element.isF16() ? ElementKind::F16
                              : ElementKind::F32;
  s.gate = layer.getGateKind();
  s.schedule = layer.getScheduleKind();
  if (RotaryAttr rotary = layer.getRotaryAttr()) {
    s.rotaryDims = rotary.getDims();
    s.rotaryBase = rotary.getBaseValue();
    s.rateScale = rotary.getRateScaleValue();
    s.layout = rotary.getLayout();
  }
  if (ScheduleAttr schedule = layer.getScheduleAttr())
    if (std::optional<int64_t> length = schedule.getLength())
      s.length = *length;
  s.scale = layer.getScaleOrDefault();
  switch (formulation.getKind()) {
  case FormulationKind::Attention:
    r.formulation = runtime::Formulation::Attention;
    if (layer.hasInitialState() || layer.hasFinalState())
      return layer.emitOpError()
             << "the attention kernel takes and returns no state: use the "
                "chunked or recurrent formulation";
    break;
  case FormulationKind::Chunked:
    r.formulation = runtime::Formulation::Chunked;
    r.chunk = *formulation.getChunk();
    break;
  case FormulationKind::Recurrent:
    r.formulation = runtime::Formulation::Recurrent;
    break;
  }
  if (llvm::Error error = verifyLayerKernels(r))
    return layer.emitOpError()
           << "cannot generate kernels: " << llvm::toString(std::move(error));
  return r;
}

struct LayerToKernelsPass
    : sympow::impl::SympowLayerToKernelsBase<LayerToKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder b(module.getContext());
    SymbolTable symbols(module);
    bool failedAny = false;
    module.walk([&](LayerOp layer) {
      FailureOr<LayerKernelRequest> request = requestFor(layer);
      if (failed(request)) {
        failedAny = true;
        return;
      }
      std::string variant = request->spec.variantName();
      // The _mma/_fma suffix names the attention kernel's path only.
      if (request->formulation != runtime::Formulation::Attention)
        variant = variant.substr(0, variant.rfind('_'));
      std::string name = "sympow_" + variant + "_" +
                         runtime::formulationName(request->formulation);
      if (request->chunk)
        name += std::to_string(request->chunk);
      // Layers of one variant share their kernels.
      if (!symbols.lookup(name)) {
        b.setInsertionPointToEnd(module.getBody());
        auto kernels = gpu::GPUModuleOp::create(b, layer.getLoc(), name);
        buildLayerKernels(b, kernels, *request);
        symbols.insert(kernels);
      }
      layer->setAttr("sympow.kernels",
                     FlatSymbolRefAttr::get(b.getContext(), name));
    });
    if (failedAny)
      return signalPassFailure();
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    b.getUnitAttr());
  }
};

} // namespace
