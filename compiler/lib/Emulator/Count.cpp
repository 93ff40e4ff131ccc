//===- Count.cpp - Static arithmetic counts, one runtime call per block ---===//
//
// The emulator counts a kernel's arithmetic without a runtime call per op:
// for every MLIR block of a kernel (or device function) the ops directly in
// it are counted here by unit, vector ops by their elements, and one call
// __sympow_emu_count(fma, alu, fp64, sfu, int, site) is inserted at the
// start of the block when it has any (`site` names the block for a
// profile: blockSite). This runs before scf-to-cf: an scf.for body
// runs once per iteration, an scf.if branch once when taken, so the sum of
// the calls a thread makes is exactly the ops it executed.
//
// Units (docs/Emulator.md, "Counters"):
//   fp32Fma  math.fma, vector.fma, llvm.intr.fma/fmuladd on f16/bf16/f32
//            (a mulf feeding an addf is two fp32Alu: no contraction)
//   16-bit   addf, subf, mulf, negf and fma whose operands and result are
//            all vectors of f16 or of bf16 count a pair of elements as one
//            operation: the GPU's packed HADD2/HMUL2/HFMA2 (sm_80 on)
//   fp32Alu  every other arith op on f16/bf16/f32 (add, sub, mul, neg,
//            min/max, cmpf, extf/truncf, int<->float conversions) and the
//            cheap math ops (absf, copysign, floor, ceil, round, trunc,
//            isnan, ...); vector.reduction counts n - 1 (+1 with an
//            accumulator) ops
//   fp64     any float op of those or of sfu involving f64
//   sfu      arith.divf/remf and the other math ops on floats (exp2,
//            log2, log1p, sin, cos, tanh, sqrt, rsqrt, powf, erf, ...)
//   exp and log on f32 count as the instructions they become: libdevice's
//            (exp: 1 sfu, 6 fp32Alu, 1 intAlu; log: 15 fp32Alu, 4 intAlu)
//            or, with afn, the approximations' (exp2 and log2 1 sfu; exp
//            and log 1 sfu and 1 fp32Alu, the change of base; the fixups
//            for the denormal range are not counted); sympow_tile.exp2_ftz
//            and log2_ftz 1 sfu (they have no fixup)
//   intAlu   integer and index arith (including index_cast, ext/trunc,
//            cmpi), math integer ops, and every arith.select
// Not counted: arith.constant, arith.bitcast, vector data movement
// (extract, insert, broadcast, shape_cast, from_elements, ...).
//
// Ops in regions that cannot hold a call (memref.generic_atomic_rmw,
// vector.mask, scf.reduce bodies) are added to the enclosing block.
//
//===----------------------------------------------------------------------===//

#include "Lowering.h"

#include "sympow/Compiler/Tile/TileDialect.h"
#include "sympow/Emulator/ABI.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/MapVector.h"

#include <array>
#include <optional>

using namespace mlir;
using namespace sympow::emulator;
namespace abi = sympow::emu::abi;

namespace {

enum Unit { Fma = 0, Alu, Fp64, Sfu, Int, NumUnits, NoUnit = -1 };
using Counts = std::array<int64_t, NumUnits>;

bool anyType(Operation *op, llvm::function_ref<bool(Type)> pred) {
  for (Type t : op->getOperandTypes())
    if (pred(getElementTypeOrSelf(t)))
      return true;
  for (Type t : op->getResultTypes())
    if (pred(getElementTypeOrSelf(t)))
      return true;
  return false;
}

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isF64(Type t) { return t.isF64(); }

/// Elements an op works on: its vector result's, else its first vector
/// operand's (a vector compare yields i1 lanes), else 1.
int64_t lanes(Operation *op) {
  for (Type t : op->getResultTypes())
    if (auto v = dyn_cast<VectorType>(t))
      return v.getNumElements();
  for (Type t : op->getOperandTypes())
    if (auto v = dyn_cast<VectorType>(t))
      return v.getNumElements();
  return 1;
}

/// Operations of a packed 16-bit op (addf, subf, mulf, negf, fma on
/// vectors of f16 or of bf16 only: one instruction a pair), else lanes(op).
int64_t packedLanes(Operation *op) {
  auto packed = [&](Type t) {
    auto v = dyn_cast<VectorType>(t);
    return v && (v.getElementType().isF16() || v.getElementType().isBF16());
  };
  bool arithmetic = isa<arith::AddFOp, arith::SubFOp, arith::MulFOp,
                        arith::NegFOp, math::FmaOp, vector::FMAOp>(op) ||
                    op->getName().getStringRef() == "llvm.intr.fma";
  if (!arithmetic || !llvm::all_of(op->getOperandTypes(), packed) ||
      !llvm::all_of(op->getResultTypes(), packed))
    return lanes(op);
  return (lanes(op) + 1) / 2;
}

/// A float op's unit: `unit` for f16/bf16/f32, fp64 when f64 is involved.
Unit floatUnit(Operation *op, Unit unit) {
  return anyType(op, isF64) ? Fp64 : unit;
}

/// The unit of `op` and how many operations of it one thread executes.
std::pair<Unit, int64_t> classify(Operation *op) {
  StringRef dialect = op->getName().getDialectNamespace();
  StringRef name = op->getName().stripDialect();
  if (dialect == "arith") {
    if (isa<arith::ConstantOp, arith::BitcastOp>(op))
      return {NoUnit, 0};
    if (isa<arith::SelectOp>(op))
      return {Int, lanes(op)};
    if (anyType(op, isFloat))
      return {floatUnit(op, isa<arith::DivFOp, arith::RemFOp>(op) ? Sfu : Alu),
              packedLanes(op)};
    return {Int, lanes(op)};
  }
  if (dialect == "math") {
    if (name == "fma")
      return {floatUnit(op, Fma), packedLanes(op)};
    if (!anyType(op, isFloat))
      return {Int, lanes(op)};
    bool cheap = llvm::is_contained({"absf", "copysign", "floor", "ceil",
                                     "round", "roundeven", "trunc", "isnan",
                                     "isinf", "isfinite", "isnormal"},
                                    name);
    return {floatUnit(op, cheap ? Alu : Sfu), lanes(op)};
  }
  // The flushing exp2 and log2: one MUFU each, no fixup.
  if (sympow::tile::isFlushMath(op))
    return {Sfu, lanes(op)};
  if (isa<vector::FMAOp>(op) ||
      op->getName().getStringRef() == "llvm.intr.fma" ||
      op->getName().getStringRef() == "llvm.intr.fmuladd")
    return {floatUnit(op, Fma), packedLanes(op)};
  if (auto r = dyn_cast<vector::ReductionOp>(op)) {
    int64_t n =
        r.getSourceVectorType().getNumElements() - 1 + (r.getAcc() ? 1 : 0);
    return {isFloat(r.getType()) ? floatUnit(op, Alu) : Int, n};
  }
  return {NoUnit, 0};
}

/// math.exp and math.log on 16/32-bit floats as the instructions they
/// become (SASS, sm_90a): libdevice's expf reduces its argument around one
/// MUFU.EX2 (6 fp32, 1 int, 1 sfu) and its logf is a polynomial without
/// the SFU (15 fp32, 4 int). With afn, math.exp2 and math.log2 are one
/// MUFU each and math.exp and math.log (__nv_fast_expf, __nv_fast_logf)
/// add the FMUL that changes the base. ptxas adds a fixup for the denormal
/// range around each MUFU (3 fp32 for ex2, 4 for lg2 on sm_90a), which is
/// not counted: the calibration fixture (perf/h100-calibration.json) was
/// counted without it, and the model's calibration absorbs it. None for
/// other ops (math.exp2 and math.log2 without afn count as one sfu op).
std::optional<Counts> libdeviceExpansion(Operation *op) {
  if (!isa<math::ExpOp, math::LogOp, math::Exp2Op, math::Log2Op>(op) ||
      anyType(op, isF64))
    return std::nullopt;
  auto flags = cast<arith::ArithFastMathInterface>(op).getFastMathFlagsAttr();
  bool approx = flags && arith::bitEnumContainsAll(flags.getValue(),
                                                   arith::FastMathFlags::afn);
  bool base2 = isa<math::Exp2Op, math::Log2Op>(op);
  if (base2 && !approx)
    return std::nullopt;
  Counts c{};
  if (approx) {
    c[Sfu] = 1;
    c[Alu] = base2 ? 0 : 1;
  } else if (isa<math::ExpOp>(op)) {
    c[Sfu] = 1;
    c[Alu] = 6;
    c[Int] = 1;
  } else {
    c[Alu] = 15;
    c[Int] = 4;
  }
  for (int64_t &n : c)
    n *= lanes(op);
  return c;
}

/// Whether a block whose parent is `op` may hold the count call: function
/// bodies and the control flow of scf/affine, not the bodies of ops that
/// must stay free of side effects.
bool canHoldCall(Operation *op) {
  if (isa<FunctionOpInterface, memref::AllocaScopeOp>(op))
    return true;
  if (isa<scf::ReduceOp, scf::InParallelOp>(op))
    return false;
  StringRef dialect = op->getName().getDialectNamespace();
  return dialect == "scf" || dialect == "affine";
}

/// What a profile (LaunchOptions::profileBlocks) calls a counted block:
/// its function, its ordinal among the function's counted blocks, the ops
/// it is nested in (innermost first) and its first ops, so that it can be
/// found in the kernel's IR (`sympow-aot --dump-stages`).
std::string blockSite(Operation *fn, Block *block, int64_t ordinal) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringRef name = "kernel";
  if (auto symbol = fn->getAttrOfType<StringAttr>("sym_name"))
    name = symbol.getValue();
  os << name << " block " << ordinal << " in";
  for (Operation *op = block->getParentOp(); op && op != fn;
       op = op->getParentOp())
    os << " " << op->getName().getStringRef() << " <";
  os << " " << name << ":";
  int shown = 0;
  for (Operation &op : *block) {
    if (isa<arith::ConstantOp>(op))
      continue;
    if (shown++ == 4) {
      os << " ...";
      break;
    }
    os << " " << op.getName().getStringRef();
  }
  return text;
}

} // namespace

void sympow::emulator::insertOperationCounts(Operation *fn,
                                             RuntimeCalls &calls) {
  int64_t ordinal = 0;
  llvm::MapVector<Block *, Counts> perBlock;
  fn->walk([&](Block *block) {
    Block *target = block;
    while (target->getParentOp() && target->getParentOp() != fn &&
           !canHoldCall(target->getParentOp()) &&
           target->getParentOp()->getBlock())
      target = target->getParentOp()->getBlock();
    Counts &c = perBlock[target];
    for (Operation &op : *block) {
      if (std::optional<Counts> expansion = libdeviceExpansion(&op)) {
        for (int unit = 0; unit < NumUnits; ++unit)
          c[unit] += (*expansion)[unit];
        continue;
      }
      auto [unit, n] = classify(&op);
      if (unit != NoUnit)
        c[unit] += n;
    }
  });
  for (auto &[block, c] : perBlock) {
    if (llvm::all_of(c, [](int64_t n) { return n == 0; }))
      continue;
    // One thread's region (sympow_tile.elected): warp 0 runs each of its
    // ops as one warp instruction, 32 thread operations.
    for (Operation *op = block->getParentOp(); op && op != fn;
         op = op->getParentOp())
      if (op->hasAttr(tile::ElectedOp::getLoweredAttrName())) {
        for (int64_t &n : c)
          n *= 32;
        break;
      }
    OpBuilder b = OpBuilder::atBlockBegin(block);
    Location loc = block->getParentOp()->getLoc();
    SmallVector<Value, NumUnits + 1> args;
    for (int64_t n : c)
      args.push_back(arith::ConstantIntOp::create(b, loc, b.getI64Type(), n));
    args.push_back(calls.text(b, loc, blockSite(fn, block, ordinal++)));
    calls.call(b, loc, abi::kCount, {}, args);
  }
}
