//===- KernelLaunch.cpp - A kernel's launch metadata ----------------------===//

#include "sympow/Compiler/Tile/KernelLaunch.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

using namespace mlir;

namespace sympow::tile {

namespace {
constexpr llvm::StringLiteral kLaunch = "sympow.launch";
constexpr llvm::StringLiteral kMinBlocks = "nvvm.minctasm";
} // namespace

void setKernelLaunch(gpu::GPUFuncOp fn, const runtime::KernelLaunch &launch,
                     int32_t minBlocksPerSM) {
  Builder b(fn.getContext());
  fn->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), b.getUnitAttr());
  for (unsigned i = 0, e = fn.getNumWorkgroupAttributions(); i < e; ++i)
    fn.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                   b.getI64IntegerAttr(16));
  auto block =
      b.getDenseI32ArrayAttr({int32_t(launch.block.x), int32_t(launch.block.y),
                              int32_t(launch.block.z)});
  fn.setKnownBlockSizeAttr(block);
  setMinBlocksPerSM(fn, minBlocksPerSM);
  SmallVector<NamedAttribute> entries = {
      b.getNamedAttr("block", block),
      b.getNamedAttr("tokens_per_block",
                     b.getI64IntegerAttr(launch.tokensPerBlock)),
      b.getNamedAttr("grid_y", b.getI64IntegerAttr(launch.gridY)),
      b.getNamedAttr("dynamic_shared_bytes",
                     b.getI64IntegerAttr(launch.dynamicSharedBytes))};
  // Only kernels with a fixed grid x carry it.
  if (launch.blocksX)
    entries.push_back(
        b.getNamedAttr("blocks_x", b.getI64IntegerAttr(launch.blocksX)));
  fn->setAttr(kLaunch, b.getDictionaryAttr(entries));
}

void setMinBlocksPerSM(gpu::GPUFuncOp fn, int32_t blocks) {
  fn->setAttr(kMinBlocks, Builder(fn.getContext()).getI32IntegerAttr(blocks));
}

int32_t getMinBlocksPerSM(gpu::GPUFuncOp fn) {
  if (auto floor = fn->getAttrOfType<IntegerAttr>(kMinBlocks))
    return static_cast<int32_t>(floor.getInt());
  return 1;
}

std::optional<runtime::KernelLaunch> getKernelLaunch(gpu::GPUFuncOp fn) {
  auto meta = fn->getAttrOfType<DictionaryAttr>(kLaunch);
  if (!meta)
    return std::nullopt;
  auto block = meta.getAs<DenseI32ArrayAttr>("block");
  auto integer = [&](StringRef key) -> std::optional<int64_t> {
    if (auto attr = meta.getAs<IntegerAttr>(key))
      return attr.getInt();
    return std::nullopt;
  };
  std::optional<int64_t> tokens = integer("tokens_per_block"),
                         gridY = integer("grid_y"),
                         shared = integer("dynamic_shared_bytes");
  if (!block || block.size() != 3 || !tokens || !gridY || !shared)
    return std::nullopt;
  runtime::KernelLaunch launch;
  launch.block = {uint32_t(block[0]), uint32_t(block[1]), uint32_t(block[2])};
  launch.tokensPerBlock = *tokens;
  launch.blocksX = integer("blocks_x").value_or(0);
  launch.gridY = *gridY;
  launch.dynamicSharedBytes = static_cast<uint32_t>(*shared);
  return launch;
}

} // namespace sympow::tile
