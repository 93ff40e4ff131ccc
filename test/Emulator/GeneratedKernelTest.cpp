//===- GeneratedKernelTest.cpp - Generated kernels vs the f64 reference ---===//
//
// The attention kernels of compiler/lib/GPU, JIT-compiled for the emulator
// and run with every check on, against the f64 reference evaluated on the
// same (rounded) inputs, to the accuracy docs/SPEC.md asks: 1e-4 of max |y|
// for f32 inputs, 1e-2 for bf16/f16. This checks the emulator's collectives
// on real tensor-core code as much as it checks the generator.
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Compiler/GPU/Pipeline.h"
#include "sympow/Emulator/Half.h"
#include "sympow/Reference/Forward.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <random>

using namespace sympow;

namespace {

/// A kernel buffer of one element type, and the values the kernel sees.
struct Buffer {
  std::vector<uint8_t> bytes;
  std::vector<double> values;
  void *allocated = nullptr, *aligned = nullptr;
  int64_t offset = 0, size = 0, stride = 1;
};

enum class Dtype { F32, BF16, F16 };

Buffer makeBuffer(Dtype type, const std::vector<double> &wanted) {
  Buffer b;
  size_t eb = type == Dtype::F32 ? 4 : 2;
  b.bytes.resize(wanted.size() * eb + eb);
  b.values.resize(wanted.size());
  for (size_t i = 0; i < wanted.size(); ++i) {
    float f = static_cast<float>(wanted[i]);
    if (type == Dtype::F32) {
      std::memcpy(&b.bytes[4 * i], &f, 4);
      b.values[i] = f;
    } else {
      uint16_t h =
          type == Dtype::BF16 ? emu::floatToBf16(f) : emu::floatToHalf(f);
      std::memcpy(&b.bytes[2 * i], &h, 2);
      b.values[i] =
          type == Dtype::BF16 ? emu::bf16ToFloat(h) : emu::halfToFloat(h);
    }
  }
  b.allocated = b.aligned = b.bytes.data();
  b.size = static_cast<int64_t>(wanted.size());
  return b;
}

double element(const Buffer &b, Dtype type, size_t i) {
  if (type == Dtype::F32) {
    float f;
    std::memcpy(&f, &b.bytes[4 * i], 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, &b.bytes[2 * i], 2);
  return type == Dtype::BF16 ? emu::bf16ToFloat(h) : emu::halfToFloat(h);
}

struct Case {
  const char *variant; // parseAttentionVariant syntax
  Dtype dtype;
  int64_t B, T;
};

void runCase(const Case &c) {
  SCOPED_TRACE(c.variant);
  auto spec = parseAttentionVariant(c.variant);
  ASSERT_TRUE(static_cast<bool>(spec)) << llvm::toString(spec.takeError());
  ASSERT_FALSE(static_cast<bool>(verifyAttentionKernelSpec(*spec)));

  mlir::MLIRContext context;
  mlir::DialectRegistry registry;
  registerGPUDialects(registry);
  EmulatorJIT::registerDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  mlir::OpBuilder b(&context);
  auto module = mlir::ModuleOp::create(b.getUnknownLoc());
  b.setInsertionPointToStart(module.getBody());
  auto gm = mlir::gpu::GPUModuleOp::create(b, b.getUnknownLoc(), "variant");
  b.setInsertionPointToStart(gm.getBody());
  buildAttentionKernel(b, gm, *spec, "attention");
  auto jit = EmulatorJIT::compile(module);
  module->erase();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());
  const emu::Kernel *kernel = (*jit)->kernel("attention");
  ASSERT_TRUE(kernel);

  int64_t B = c.B, T = c.T, Hq = spec->hq, H = spec->h, d = spec->d,
          e = spec->e;
  std::mt19937 rng(1234);
  std::normal_distribution<double> normal;
  std::uniform_real_distribution<double> unit(0, 1);
  auto random = [&](int64_t n, auto draw) {
    std::vector<double> v(n);
    for (double &x : v)
      x = draw();
    return v;
  };
  std::deque<Buffer> buffers;
  Buffer &q = buffers.emplace_back(
      makeBuffer(c.dtype, random(B * T * Hq * d, [&] { return normal(rng); })));
  Buffer &k = buffers.emplace_back(
      makeBuffer(c.dtype, random(B * T * H * d, [&] { return normal(rng); })));
  Buffer &v = buffers.emplace_back(
      makeBuffer(c.dtype, random(B * T * H * e, [&] { return normal(rng); })));
  Buffer *logG = nullptr, *logGamma = nullptr, *beta = nullptr;
  if (spec->hasLogG())
    logG = &buffers.emplace_back(makeBuffer(
        Dtype::F32, random(B * T * H, [&] {
          return std::log(0.9 + 0.1 * unit(rng)); // gates in (0.9, 1)
        })));
  if (spec->hasLogGamma())
    logGamma = &buffers.emplace_back(
        makeBuffer(Dtype::F32, random(H, [&] { return -0.05 * unit(rng); })));
  if (spec->hasBeta())
    beta = &buffers.emplace_back(makeBuffer(
        Dtype::F32, random(B * T * H, [&] { return 0.5 + unit(rng); })));
  Buffer &y = buffers.emplace_back(
      makeBuffer(c.dtype, std::vector<double>(B * T * Hq * e, 0.0)));

  std::vector<void *> args;
  for (Buffer *buf : {&q, &k, &v, logG, logGamma, beta, &y}) {
    if (!buf)
      continue;
    for (void *field :
         {static_cast<void *>(&buf->allocated),
          static_cast<void *>(&buf->aligned), static_cast<void *>(&buf->offset),
          static_cast<void *>(&buf->size), static_cast<void *>(&buf->stride)})
      args.push_back(field);
  }
  args.push_back(&B);
  args.push_back(&T);
  ASSERT_EQ(kernel->numArgs, args.size());

  int64_t tokens = spec->resolvedBlockTokens();
  emu::Dim3 grid{static_cast<uint32_t>((T + tokens - 1) / tokens),
                 static_cast<uint32_t>(Hq), static_cast<uint32_t>(B)};
  emu::Dim3 block{static_cast<uint32_t>(spec->threadsPerBlock()), 1, 1};
  emu::LaunchResult result = emu::launch(*kernel, grid, block, 0, args.data());
  ASSERT_TRUE(result.ok()) << result.message();

  // The reference on exactly the values the kernel saw.
  reference::LayerDesc desc;
  desc.power = static_cast<int>(spec->p);
  desc.scale = spec->effectiveScale();
  desc.shape = {B, T, Hq, H, d, e};
  desc.hasLogG = spec->hasLogG();
  desc.hasLogGamma = spec->hasLogGamma();
  desc.inputType = c.dtype == Dtype::F32    ? reference::InputType::F32
                   : c.dtype == Dtype::BF16 ? reference::InputType::BF16
                                            : reference::InputType::F16;
  if (spec->rotates()) {
    desc.schedule = spec->hasBeta() ? reference::Schedule::Learned
                                    : reference::Schedule::Uniform;
    desc.rotary.base = spec->rotaryBase;
    desc.rotary.rateScale = spec->rateScale;
    desc.rotary.dims = spec->effectiveRotaryDims();
  }
  reference::LayerInputs in;
  in.q = reference::Tensor({B, T, Hq, d}, q.values);
  in.k = reference::Tensor({B, T, H, d}, k.values);
  in.v = reference::Tensor({B, T, H, e}, v.values);
  if (logG)
    in.logG = reference::Tensor({B, T, H}, logG->values);
  if (logGamma)
    in.logGamma = reference::Tensor({H}, logGamma->values);
  if (beta)
    in.beta = reference::Tensor({B, T, H}, beta->values);
  auto out = reference::forward(desc, in);
  ASSERT_TRUE(out.isOk()) << out.message();
  const std::vector<double> &ref = out.value().y.data;

  double maxRef = 0, maxErr = 0;
  for (double x : ref)
    maxRef = std::max(maxRef, std::fabs(x));
  for (size_t i = 0; i < ref.size(); ++i)
    maxErr = std::max(maxErr, std::fabs(element(y, c.dtype, i) - ref[i]));
  double bound = (c.dtype == Dtype::F32 ? 1e-4 : 1e-2) * maxRef;
  EXPECT_LE(maxErr, bound) << "max |y| " << maxRef;
}

TEST(GeneratedKernel, ScalarF32DataGateGQA) {
  runCase({"p=2,d=16,hq=2,h=1,dtype=f32,gate=data,path=scalar", Dtype::F32, 2,
           100});
}

TEST(GeneratedKernel, ScalarF32LearnedRotation) {
  runCase({"p=2,d=16,dtype=f32,gate=both,rope=learned,path=scalar", Dtype::F32,
           1, 70});
}

TEST(GeneratedKernel, MmaBF16DataGate) {
  runCase({"p=2,d=64,dtype=bf16,gate=data,path=mma", Dtype::BF16, 1, 130});
}

// The FMA kernel's own rotation on 16-bit inputs (blocks of 32 queries; the
// tensor-core kernel reads q and k as rotate_qk left them, which the
// numerics sweep runs through the layer).
TEST(GeneratedKernel, ScalarF16LearnedRotationP4) {
  runCase({"p=4,d=32,dtype=f16,gate=data,rope=learned,path=scalar,block=32",
           Dtype::F16, 1, 96});
}

} // namespace
