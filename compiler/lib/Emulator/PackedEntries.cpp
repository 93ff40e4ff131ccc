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

/// Calls to the runtime's functions go through the table the runtime fills
/// at load time (abi::kRuntimeTable): a loaded shared object then needs no
/// symbol of the program that loads it.
LogicalResult bindRuntimeTable(ModuleOp top) {
  MLIRContext *ctx = top.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto tableType = LLVM::LLVMArrayType::get(ptr, abi::kNumRuntimeFunctions);
  OpBuilder b(ctx);
  b.setInsertionPointToStart(top.getBody());
  auto table =
      LLVM::GlobalOp::create(b, top.getLoc(), tableType,
                             /*isConstant=*/false, LLVM::Linkage::External,
                             abi::kRuntimeTable, Attribute());
  Block *init = b.createBlock(&table.getInitializerRegion());
  b.setInsertionPointToStart(init);
  LLVM::ReturnOp::create(
      b, top.getLoc(),
      LLVM::ZeroOp::create(b, top.getLoc(), tableType).getResult());

  for (int i = 0; i < abi::kNumRuntimeFunctions; ++i) {
    auto decl = top.lookupSymbol<LLVM::LLVMFuncOp>(abi::kRuntimeFunctions[i]);
    if (!decl)
      continue;
    SmallVector<LLVM::CallOp> calls;
    top.walk([&](LLVM::CallOp call) {
      if (call.getCallee() == decl.getName())
        calls.push_back(call);
    });
    for (LLVM::CallOp call : calls) {
      b.setInsertionPoint(call);
      Location loc = call.getLoc();
      Value base = LLVM::AddressOfOp::create(b, loc, ptr, abi::kRuntimeTable);
      Value slot = LLVM::GEPOp::create(b, loc, ptr, tableType, base,
                                       ArrayRef<LLVM::GEPArg>{0, i});
      Value fn = LLVM::LoadOp::create(b, loc, ptr, slot);
      SmallVector<Value> operands{fn};
      llvm::append_range(operands, call.getArgOperands());
      auto indirect =
          LLVM::CallOp::create(b, loc, decl.getFunctionType(), operands);
      call.replaceAllUsesWith(indirect.getResults());
      call.erase();
    }
    decl.erase();
  }
  return success();
}

/// `bfloat __truncsfbf2(float)`, which LLVM calls to round f32 to bf16 on
/// hosts without bf16 instructions and which libgcc before GCC 13 lacks:
/// defined (weak) in the module itself so a shared object loads anywhere.
void addTruncSFtoBF(ModuleOp top) {
  if (top.lookupSymbol("__truncsfbf2"))
    return;
  MLIRContext *ctx = top.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(top.getBody());
  Location loc = top.getLoc();
  auto f32 = Float32Type::get(ctx);
  auto bf16 = BFloat16Type::get(ctx);
  auto i32 = IntegerType::get(ctx, 32);
  auto i16 = IntegerType::get(ctx, 16);
  auto fn = LLVM::LLVMFuncOp::create(b, loc, "__truncsfbf2",
                                     LLVM::LLVMFunctionType::get(bf16, {f32}),
                                     LLVM::Linkage::Weak);
  Block *body = fn.addEntryBlock(b);
  b.setInsertionPointToStart(body);
  auto c = [&](int64_t v) {
    return LLVM::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v))
        .getResult();
  };
  Value x = LLVM::BitcastOp::create(b, loc, i32, body->getArgument(0));
  // Round to nearest even: x + 0x7fff + ((x >> 16) & 1), then the top half;
  // a NaN keeps its top half with the quiet bit set.
  Value lsb =
      LLVM::AndOp::create(b, loc, LLVM::LShrOp::create(b, loc, x, c(16)), c(1));
  Value rounded = LLVM::AddOp::create(
      b, loc, x, LLVM::AddOp::create(b, loc, lsb, c(0x7fff)));
  Value quiet = LLVM::OrOp::create(b, loc, x, c(0x400000));
  Value magnitude = LLVM::AndOp::create(b, loc, x, c(0x7fffffff));
  Value isNan = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ugt,
                                     magnitude, c(0x7f800000));
  Value bits = LLVM::SelectOp::create(b, loc, isNan, quiet, rounded);
  Value top16 = LLVM::TruncOp::create(
      b, loc, i16, LLVM::LShrOp::create(b, loc, bits, c(16)));
  LLVM::ReturnOp::create(
      b, loc, LLVM::BitcastOp::create(b, loc, bf16, top16).getResult());
}

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
      ArrayRef<int32_t> block = cast<DenseI32ArrayAttr>(fields[3]).asArrayRef();
      bool checked = cast<BoolAttr>(fields[4]).getValue();
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
                   Twine(params.size() - extra) + " " + Twine(block[0]) + " " +
                   Twine(block[1]) + " " + Twine(block[2]) + " " +
                   Twine(checked ? 1 : 0) + "\n")
                      .str();
    }
    if (failed(bindRuntimeTable(top)))
      return signalPassFailure();
    addTruncSFtoBF(top);
    b.setInsertionPointToStart(top.getBody());
    std::string value = manifest + '\0';
    auto type =
        LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), value.size());
    LLVM::GlobalOp::create(b, top.getLoc(), type, /*isConstant=*/true,
                           LLVM::Linkage::External, abi::kManifest,
                           b.getStringAttr(value));
  }
};

} // namespace
