//===- RuntimeCalls.cpp - Calls into the emulator runtime -----------------===//

#include "Lowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Location.h"

using namespace mlir;
using namespace sympow::emulator;

func::CallOp RuntimeCalls::call(OpBuilder &b, Location loc, StringRef name,
                                TypeRange results, ValueRange args) {
  if (!top.lookupSymbol<func::FuncOp>(name)) {
    OpBuilder decl(top.getBodyRegion());
    decl.setInsertionPointToStart(top.getBody());
    auto fn = func::FuncOp::create(
        decl, loc, name,
        FunctionType::get(top.getContext(), args.getTypes(), results));
    fn.setPrivate();
  }
  return func::CallOp::create(b, loc, name, results, args);
}

namespace {

/// "file:line:col" of the first file location in `loc`, else its text.
std::string locationText(Location loc) {
  std::string text;
  loc->walk([&](Location l) {
    if (auto f = dyn_cast<FileLineColLoc>(l)) {
      text = (f.getFilename().getValue() + ":" + Twine(f.getLine()) + ":" +
              Twine(f.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty()) {
    llvm::raw_string_ostream os(text);
    loc.print(os);
  }
  return text;
}

} // namespace

Value RuntimeCalls::site(OpBuilder &b, Operation *op) {
  return text(
      b, op->getLoc(),
      (op->getName().getStringRef() + " at " + locationText(op->getLoc()))
          .str());
}

Value RuntimeCalls::text(OpBuilder &b, Location loc, StringRef text) {
  auto ptrType = LLVM::LLVMPointerType::get(top.getContext());
  auto it = siteGlobals.find(text);
  if (it == siteGlobals.end()) {
    std::string name =
        "__sympow_emu_site_" + std::to_string(siteGlobals.size());
    OpBuilder decl(top.getBodyRegion());
    decl.setInsertionPointToStart(top.getBody());
    std::string value = text.str() + '\0';
    auto type = LLVM::LLVMArrayType::get(IntegerType::get(top.getContext(), 8),
                                         value.size());
    LLVM::GlobalOp::create(decl, loc, type, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           decl.getStringAttr(value));
    it = siteGlobals.insert({text, name}).first;
  }
  return LLVM::AddressOfOp::create(b, loc, ptrType, it->second);
}

Value RuntimeCalls::i32(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIntOp::create(b, loc, b.getI32Type(), v);
}

Value RuntimeCalls::index(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}
