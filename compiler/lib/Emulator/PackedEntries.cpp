//===- PackedEntries.cpp - Packed entry points and the kernel manifest ----===//
//
// The pass `sympow-emulator-packed-entries`: on the LLVM dialect, one
// `void <kernel>.packed(void **args)` per kernel (what cuLaunchKernel's
// kernelParams are: one pointer per parameter) and the manifest string the
// runtime reads (ABI.h). Doing this here, not through the JIT's own
// wrappers, lets a JIT-compiled and an AOT-compiled module look the same.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Passes.h"

#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace sympow {
#define GEN_PASS_DEF_SYMPOWEMULATORPACKEDENTRIES
#include "sympow/Compiler/Passes.h.inc"
} // namespace sympow

using namespace mlir;
namespace abi = sympow::emu::abi;

namespace {

struct PackedEntries
    : public sympow::impl::SympowEmulatorPackedEntriesBase<PackedEntries> {
  void runOnOperation() override {
    ModuleOp top = getOperation();
    MLIRContext *ctx = &getContext();
    auto kernels = top->getAttrOfType<ArrayAttr>("sympow_emu.kernels");
    if (!kernels) {
      top.emitError("no 'sympow_emu.kernels' attribute: run "
                    "sympow-gpu-to-emulator first");
      return signalPassFailure();
    }
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    OpBuilder b(ctx);
    std::string manifest;
    for (Attribute entry : kernels) {
      auto fields = cast<ArrayAttr>(entry);
      StringRef symbol = cast<StringAttr>(fields[0]).getValue();
      StringRef qualified = cast<StringAttr>(fields[1]).getValue();
      int64_t staticBytes = cast<IntegerAttr>(fields[2]).getInt();
      auto fn = top.lookupSymbol<LLVM::LLVMFuncOp>(symbol);
      if (!fn) {
        top.emitError("kernel '") << symbol << "' is not an llvm.func yet: "
                                  << "run the CPU lowering first";
        return signalPassFailure();
      }
      ArrayRef<Type> params = fn.getFunctionType().getParams();
      int64_t extra = abi::kWorkgroupArgs * abi::kDescriptorFields;
      if (static_cast<int64_t>(params.size()) < extra) {
        fn.emitError("kernel lacks the workgroup-memory arguments");
        return signalPassFailure();
      }
      Location loc = fn.getLoc();
      b.setInsertionPointAfter(fn);
      std::string name = (symbol + ".packed").str();
      auto packed = LLVM::LLVMFuncOp::create(
          b, loc, name,
          LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr}));
      Block *body = packed.addEntryBlock(b);
      b.setInsertionPointToStart(body);
      SmallVector<Value> args;
      for (auto [i, type] : llvm::enumerate(params)) {
        Value slot = LLVM::GEPOp::create(
            b, loc, ptr, ptr, body->getArgument(0),
            ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
        Value p = LLVM::LoadOp::create(b, loc, ptr, slot);
        args.push_back(LLVM::LoadOp::create(b, loc, type, p));
      }
      LLVM::CallOp::create(b, loc, fn, args);
      LLVM::ReturnOp::create(b, loc, ValueRange{});
      manifest += (qualified + " " + name + " " + Twine(staticBytes) + " " +
                   Twine(params.size() - extra) + "\n")
                      .str();
    }
    b.setInsertionPointToStart(top.getBody());
    std::string value = manifest + '\0';
    auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), value.size());
    LLVM::GlobalOp::create(b, top.getLoc(), type, /*isConstant=*/true,
                           LLVM::Linkage::External, abi::kManifest,
                           b.getStringAttr(value));
  }
};

} // namespace
