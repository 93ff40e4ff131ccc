//===- GPUToEmulator.cpp - gpu.module kernels to host functions -----------===//
//
// The pass `sympow-gpu-to-emulator` (EmulatorPasses.td says what it does).
// Order matters: accesses are instrumented while their memrefs still trace
// back to workgroup attributions and globals, so each check knows the exact
// allocation; only then do those become views of the per-block buffers.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"
#include "sympow/Compiler/Passes.h"

#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWGPUTOEMULATOR
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;
using namespace sympow::emulator;

namespace {

bool isWorkgroup(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.getMemorySpace())
    return false;
  if (auto s = dyn_cast<gpu::AddressSpaceAttr>(memref.getMemorySpace()))
    return s.getValue() == gpu::AddressSpace::Workgroup;
  if (auto s = dyn_cast<IntegerAttr>(memref.getMemorySpace()))
    return s.getInt() == 3;
  return false;
}

/// Bytes of a statically shaped identity-layout memref, 0 if it is not one.
int64_t staticBytes(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return 0;
  return type.getNumElements() * elementBytes(type.getElementType());
}

int64_t alignTo(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/// Ops the emulator runs, from the dialects it must not pass through.
bool isSupportedDeviceOp(Operation *op) {
  return isa<gpu::ThreadIdOp, gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp,
             gpu::GlobalIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp,
             gpu::NumSubgroupsOp, gpu::SubgroupSizeOp, gpu::BarrierOp,
             gpu::ShuffleOp, gpu::ReturnOp, gpu::GPUFuncOp,
             gpu::DynamicSharedMemoryOp, nvgpu::LdMatrixOp, nvgpu::MmaSyncOp,
             nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
             nvgpu::DeviceAsyncWaitOp>(op);
}

LogicalResult checkSupported(gpu::GPUModuleOp gm) {
  WalkResult r = gm.walk([&](Operation *op) {
    StringRef dialect = op->getName().getDialectNamespace();
    bool device = dialect == "gpu" || dialect == "nvgpu" || dialect == "nvvm" ||
                  dialect == "rocdl" || dialect == "amdgpu";
    if (op == gm.getOperation())
      return WalkResult::advance();
    if (device && !isSupportedDeviceOp(op)) {
      op->emitError("the emulator does not support '")
          << op->getName() << "' (supported: gpu ids, barrier, shuffle, "
          << "dynamic_shared_memory; nvgpu ldmatrix, mma.sync, cp.async)";
      return WalkResult::interrupt();
    }
    if (isa<vector::GatherOp, vector::ScatterOp, vector::ExpandLoadOp,
            vector::CompressStoreOp, vector::TransferReadOp,
            vector::TransferWriteOp, memref::CopyOp, memref::DmaStartOp>(op)) {
      op->emitError("the emulator does not support '")
          << op->getName()
          << "' in kernels (use memref.load/store, 1-D vector.load/store or "
             "maskedload/maskedstore; 1-D transfers are lowered to those)";
      return WalkResult::interrupt();
    }
    if (auto alloc = dyn_cast<memref::AllocOp>(op))
      if (!isWorkgroup(alloc.getType()) || !staticBytes(alloc.getType())) {
        op->emitError("the emulator supports memref.alloc in kernels only "
                      "for statically shaped workgroup memory, not ")
            << alloc.getType();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

struct WorkgroupLayout {
  llvm::DenseMap<StringRef, int64_t> globalOffsets;
  int64_t globalBytes = 0;
};

/// Offsets of the gpu.module's workgroup memref.globals, shared by all its
/// kernels at the start of the static region.
FailureOr<WorkgroupLayout> layoutGlobals(gpu::GPUModuleOp gm) {
  WorkgroupLayout layout;
  for (auto g : gm.getOps<memref::GlobalOp>()) {
    if (!isWorkgroup(g.getType()))
      continue;
    int64_t bytes = staticBytes(g.getType());
    if (!bytes)
      return g.emitError("workgroup global needs a static shape and identity "
                         "layout for the emulator");
    int64_t align = std::max<int64_t>(16, g.getAlignment().value_or(16));
    layout.globalBytes = alignTo(layout.globalBytes, align);
    layout.globalOffsets[g.getSymName()] = layout.globalBytes;
    layout.globalBytes += bytes;
  }
  return layout;
}

/// gpu.func -> func.func. Kernels get the two workgroup buffers as extra
/// arguments; returns the static workgroup bytes.
FailureOr<int64_t> convertFunc(gpu::GPUFuncOp f, const WorkgroupLayout &layout,
                               RuntimeCalls &calls) {
  MLIRContext *ctx = f.getContext();
  OpBuilder b(f);
  Location loc = f.getLoc();
  FunctionType ft = f.getFunctionType();
  bool kernel = f.isKernel();
  auto wgType = MemRefType::get(
      {ShapedType::kDynamic}, b.getI8Type(), MemRefLayoutAttrInterface(),
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup));
  SmallVector<Type> inputs(ft.getInputs());
  if (kernel)
    inputs.append({wgType, wgType});
  auto fn = func::FuncOp::create(
      b, loc, f.getName(), FunctionType::get(ctx, inputs, ft.getResults()));
  // Counted before the body moves: the private count derives from it.
  unsigned nIn = ft.getNumInputs();
  unsigned nWg = f.getNumWorkgroupAttributions();
  unsigned nPriv = f.getNumPrivateAttributions();
  fn.getBody().takeBody(f.getBody());
  Block &entry = fn.front();
  Value staticBuf, dynamicBuf;
  if (kernel) {
    staticBuf = entry.insertArgument(nIn, wgType, loc);
    dynamicBuf = entry.insertArgument(nIn + 1, wgType, loc);
  }
  unsigned first = nIn + (kernel ? 2 : 0);
  b.setInsertionPointToStart(&entry);
  int64_t offset = layout.globalBytes;
  auto view = [&](MemRefType type, Location l, OpBuilder &vb,
                  int64_t align = 16) -> Value {
    int64_t bytes = staticBytes(type);
    offset = alignTo(offset, std::max<int64_t>(16, align));
    Value v = memref::ViewOp::create(vb, l, type, staticBuf,
                                     calls.index(vb, l, offset), ValueRange{});
    offset += bytes;
    return v;
  };
  for (unsigned i = 0; i < nWg; ++i) {
    BlockArgument arg = entry.getArgument(first + i);
    auto type = cast<MemRefType>(arg.getType());
    if (!staticBytes(type))
      return f.emitError("workgroup attribution needs a static shape and "
                         "identity layout for the emulator, not ")
             << type;
    // An alignment the generator asked for (llvm.align), at least 16 bytes.
    int64_t align = 16;
    if (auto a = dyn_cast_or_null<IntegerAttr>(
            f.getWorkgroupAttributionAttr(i, "llvm.align")))
      align = a.getInt();
    arg.replaceAllUsesWith(view(type, loc, b, align));
  }
  for (unsigned i = 0; i < nPriv; ++i) {
    BlockArgument arg = entry.getArgument(first + nWg + i);
    auto type = cast<MemRefType>(arg.getType());
    arg.replaceAllUsesWith(memref::AllocaOp::create(b, loc, type).getResult());
  }
  entry.eraseArguments(first, nWg + nPriv);

  SmallVector<Operation *> ops;
  fn.walk([&](Operation *op) {
    if (isa<memref::AllocOp, memref::DeallocOp, memref::GetGlobalOp,
            gpu::DynamicSharedMemoryOp, gpu::ReturnOp>(op))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder ob(op);
    if (isa<gpu::ReturnOp>(op)) {
      func::ReturnOp::create(ob, op->getLoc(), op->getOperands());
      op->erase();
      continue;
    }
    if (auto d = dyn_cast<memref::DeallocOp>(op)) {
      if (isWorkgroup(d.getMemref().getType()))
        op->erase();
      continue;
    }
    if (!kernel)
      return op->emitError("the emulator supports workgroup memory in "
                           "kernels only, not in device functions");
    if (auto a = dyn_cast<memref::AllocOp>(op)) {
      a.replaceAllUsesWith(view(a.getType(), a.getLoc(), ob));
      op->erase();
    } else if (auto g = dyn_cast<memref::GetGlobalOp>(op)) {
      if (!isWorkgroup(g.getType()))
        continue;
      auto it = layout.globalOffsets.find(g.getName());
      if (it == layout.globalOffsets.end())
        return g.emitError("unknown workgroup global ") << g.getName();
      Value v = memref::ViewOp::create(ob, g.getLoc(), g.getType(), staticBuf,
                                       calls.index(ob, g.getLoc(), it->second),
                                       ValueRange{});
      g.replaceAllUsesWith(v);
      op->erase();
    } else if (auto d = dyn_cast<gpu::DynamicSharedMemoryOp>(op)) {
      d.replaceAllUsesWith(dynamicBuf);
      op->erase();
    }
  }
  f.erase();
  return offset;
}

/// Drops memory-space attributes: on the host every memref is plain memory.
void stripMemorySpaces(ModuleOp top) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([](MemRefType t) -> std::optional<Type> {
    if (!t.getMemorySpace())
      return std::nullopt;
    return MemRefType::get(t.getShape(), t.getElementType(), t.getLayout(),
                           Attribute());
  });
  replacer.recursivelyReplaceElementsIn(top, /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

struct GPUToEmulator
    : public sympow::impl::SympowGPUToEmulatorBase<GPUToEmulator> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    RuntimeCalls calls(top);
    SmallVector<gpu::GPUModuleOp> modules(top.getOps<gpu::GPUModuleOp>());

    WalkResult launches = top.walk([&](gpu::LaunchFuncOp op) {
      op.emitError("the emulator runs gpu.module kernels itself; host code "
                   "with gpu.launch_func is not lowered");
      return WalkResult::interrupt();
    });
    if (launches.wasInterrupted())
      return signalPassFailure();

    SmallVector<Attribute> kernels;
    for (gpu::GPUModuleOp gm : modules) {
      // In-bounds 1-D transfers become vector.load/store, which we check.
      // Only the transfers are rewritten: a greedy run over everything would
      // also fold and erase the kernel's dead code.
      SmallVector<Operation *> transfers;
      gm.walk([&](Operation *op) {
        if (isa<vector::TransferReadOp, vector::TransferWriteOp>(op))
          transfers.push_back(op);
      });
      if (!transfers.empty()) {
        // Transfers that may run out of bounds get a mask first and become
        // vector.maskedload/maskedstore, checked lane by lane.
        RewritePatternSet patterns(ctx);
        vector::populateVectorTransferLoweringPatterns(patterns,
                                                       /*maxTransferRank=*/1);
        vector::populateVectorMaskMaterializationPatterns(
            patterns, /*force32BitVectorIndices=*/false);
        GreedyRewriteConfig config;
        config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
        (void)applyOpPatternsGreedily(transfers, std::move(patterns), config);
      }
      // Reductions become shuffles (and, for all_reduce, workgroup memory
      // and barriers) with upstream's patterns, as the NVVM path does.
      // (The all_reduce pattern rewrites the gpu.func that holds the op.)
      SmallVector<Operation *> reductions;
      gm.walk([&](Operation *op) {
        if (isa<gpu::SubgroupReduceOp>(op))
          reductions.push_back(op);
        if (isa<gpu::AllReduceOp>(op))
          if (auto fn = op->getParentOfType<gpu::GPUFuncOp>();
              fn && !llvm::is_contained(reductions, fn.getOperation()))
            reductions.push_back(fn);
      });
      if (!reductions.empty()) {
        RewritePatternSet patterns(ctx);
        populateGpuAllReducePatterns(patterns);
        populateGpuBreakDownSubgroupReducePatterns(patterns,
                                                   /*maxShuffleBitwidth=*/32);
        populateGpuLowerSubgroupReduceToShufflePatterns(
            patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
        populateGpuLowerClusteredSubgroupReduceToShufflePatterns(
            patterns, /*subgroupSize=*/32, /*shuffleBitwidth=*/32);
        GreedyRewriteConfig config;
        config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
        (void)applyOpPatternsGreedily(reductions, std::move(patterns), config);
      }
      if (failed(checkSupported(gm)))
        return signalPassFailure();
      FailureOr<WorkgroupLayout> layout = layoutGlobals(gm);
      if (failed(layout))
        return signalPassFailure();

      SmallVector<Operation *> functions;
      for (Operation &op : gm.getBody()->getOperations())
        if (isa<gpu::GPUFuncOp, func::FuncOp>(op))
          functions.push_back(&op);
      for (Operation *fn : functions) {
        if (cast<FunctionOpInterface>(fn).isExternal())
          continue;
        // First, so that only the kernel's own ops are counted, not those
        // the instrumentation and the lowering of gpu ops add (one
        // thread's regions as scf.if on thread 0, which the counts know).
        expandRepeatedBulkCopies(fn);
        lowerElected(fn);
        insertOperationCounts(fn, calls);
        lowerFlushMath(fn);
        if (checkAccesses && failed(instrumentAccesses(fn, calls)))
          return signalPassFailure();
        if (failed(lowerWarpgroupOps(fn, calls)) ||
            failed(lowerBulkCopyOps(fn, calls)) ||
            failed(lowerGpuOps(fn, calls)))
          return signalPassFailure();
      }
      // Per kernel: static workgroup bytes and the block size it was built
      // for (known_block_size; 0 0 0 when it has none).
      llvm::StringMap<std::pair<int64_t, std::array<int32_t, 3>>> kernelInfo;
      for (auto f : llvm::to_vector(gm.getOps<gpu::GPUFuncOp>())) {
        bool kernel = f.isKernel();
        std::string name = f.getName().str();
        std::array<int32_t, 3> block = {0, 0, 0};
        if (auto known = f.getKnownBlockSize(); known && known->size() == 3)
          block = {(*known)[0], (*known)[1], (*known)[2]};
        FailureOr<int64_t> bytes = convertFunc(f, *layout, calls);
        if (failed(bytes))
          return signalPassFailure();
        if (kernel)
          kernelInfo[name] = {*bytes, block};
      }
      // Move everything but workgroup globals out, renamed.
      for (Operation &op :
           llvm::make_early_inc_range(gm.getBody()->getOperations())) {
        if (auto g = dyn_cast<memref::GlobalOp>(op);
            g && isWorkgroup(g.getType())) {
          op.erase();
          continue;
        }
        auto symbol = dyn_cast<SymbolOpInterface>(op);
        if (!symbol)
          continue;
        std::string oldName = symbol.getName().str();
        std::string newName = (gm.getName() + "__" + oldName).str();
        if (failed(SymbolTable::replaceAllSymbolUses(
                &op, StringAttr::get(ctx, newName), gm)))
          return signalPassFailure();
        symbol.setName(StringAttr::get(ctx, newName));
        auto it = kernelInfo.find(oldName);
        if (it != kernelInfo.end()) {
          auto [bytes, block] = it->second;
          kernels.push_back(ArrayAttr::get(
              ctx, {StringAttr::get(ctx, newName),
                    StringAttr::get(ctx, (gm.getName() + "::" + oldName).str()),
                    IntegerAttr::get(IntegerType::get(ctx, 64), bytes),
                    DenseI32ArrayAttr::get(ctx, block),
                    BoolAttr::get(ctx, checkAccesses)}));
        }
      }
      for (Operation &op :
           llvm::make_early_inc_range(gm.getBody()->getOperations()))
        if (!op.hasTrait<OpTrait::IsTerminator>())
          op.moveBefore(top.getBody(), top.getBody()->end());
      gm.erase();
    }
    top->removeAttr("gpu.container_module");
    stripMemorySpaces(top);
    top->setAttr("sympow_emu.kernels", ArrayAttr::get(ctx, kernels));
  }
};

} // namespace
