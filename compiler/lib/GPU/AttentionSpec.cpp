//===- AttentionSpec.cpp - Checks and derived sizes of a kernel variant ---===//

#include "sympow/Compiler/GPU/AttentionKernel.h"
#include "sympow/Support/GpuLimits.h"
#include "sympow/Support/LayerRules.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdio>

using namespace llvm;

namespace sympow {

double AttentionKernelSpec::effectiveScale() const {
  return scale > 0.0 ? scale : 1.0 / std::sqrt(static_cast<double>(d));
}

AttentionPath AttentionKernelSpec::resolvedPath() const {
  if (path != AttentionPath::Auto)
    return path;
  // The tensor-core tile kernel where it applies; f32 (full f32 accuracy,
  // no split products) and the relative schedules (each (query, key) pair
  // turned by its own angle) take the FMA kernel.
  return attentionTileOf(*this) ? AttentionPath::Mma : AttentionPath::Scalar;
}

/// Threads sharing one query row on the scalar path: enough that each holds
/// at most 16 q and 16 output values, and a divisor of the pair and output
/// counts so that every thread owns whole rotary pairs.
static int64_t scalarThreadsPerRow(const AttentionKernelSpec &s) {
  int64_t tpr = std::clamp<int64_t>(std::max(s.d, s.e) / 16, 1, 8);
  int64_t halfR = s.effectiveRotaryDims() / 2;
  while (tpr > 1 && ((s.d / 2) % tpr || s.e % tpr || halfR % tpr))
    tpr /= 2;
  return tpr;
}

static int64_t sharedBytes(const AttentionKernelSpec &s, int64_t bt);

int64_t AttentionKernelSpec::resolvedBlockTokens() const {
  if (blockTokens)
    return blockTokens;
  if (resolvedPath() == AttentionPath::Mma)
    return AttentionTile::kRows;
  if (relativeSchedule()) // the largest tile whose age tables fit
    for (int64_t bt : {64, 32})
      if (sharedBytes(*this, bt) <= 40 * 1024)
        return bt;
  if (relativeSchedule())
    return 16;
  return d + e <= 160 ? 64 : 32;
}

int64_t AttentionKernelSpec::threadsPerBlock() const {
  if (resolvedPath() == AttentionPath::Mma)
    return AttentionTile::kThreads;
  return resolvedBlockTokens() * scalarThreadsPerRow(*this);
}

int64_t attentionThreadsPerRow(const AttentionKernelSpec &spec) {
  return scalarThreadsPerRow(spec);
}

int64_t attentionSharedBytes(const AttentionKernelSpec &s) {
  if (std::optional<AttentionTile> tile = attentionTileOf(s))
    return tile->sharedBytes(s.d, s.e);
  return sharedBytes(s, s.resolvedBlockTokens());
}

/// Workgroup memory of the FMA kernel (AttentionFma.cpp): the K (Q first)
/// and V tiles in f32, the gate prefixes and their staging, the beta
/// prefixes and theirs (f64), the rotary rates (f64), and the relative
/// schedules' cos and sin per age and pair.
static int64_t sharedBytes(const AttentionKernelSpec &s, int64_t bt) {
  int64_t bytes = bt * (s.d + s.e) * 4;
  if (s.gate != GateKind::None)
    bytes += 2 * bt * 4;
  if (s.hasBeta())
    bytes += 2 * bt * 8;
  int64_t half = s.effectiveRotaryDims() / 2;
  bytes += half * 8;
  if (s.relativeSchedule())
    bytes += 2 * (2 * bt - 1) * (half + 1) * 4;
  return bytes;
}

std::string AttentionKernelSpec::variantName() const {
  std::string name =
      formatv("p{0}_d{1}_e{2}_hq{3}_h{4}_{5}_g{6}_{7}", p, d, e, hq, h,
              stringifyElementKind(dtype), stringifyGateKind(gate),
              stringifyScheduleKind(schedule))
          .str();
  if (rotates())
    name += formatv("_r{0}{1}", effectiveRotaryDims(),
                    layout == RotaryLayout::Half ? "h" : "i")
                .str();
  if (relativeSchedule())
    name += formatv("_L{0}", length).str();
  name += resolvedPath() == AttentionPath::Mma ? "_mma" : "_fma";
  return name;
}

static Error fail(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

/// A double as it reads back ("1", "-0.5", "inf").
static std::string shortest(double x) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.17g", x);
  return text;
}

Error verifyKernelVariant(const AttentionKernelSpec &s) {
  if (rules::Problem why = rules::checkPower(s.p))
    return fail(formatv("p = {0} {1}", s.p, *why));
  for (auto [name, v] : {std::pair{"d", s.d}, std::pair{"e", s.e}})
    if (v < 16 || v > 256 || v % 16)
      return fail(formatv("{0} = {1} is not supported: head dims must be "
                          "multiples of 16 from 16 to 256",
                          name, v));
  if (s.hq < 1 || s.h < 1 || s.hq % s.h)
    return fail(formatv("hq = {0}, h = {1}: the query heads must be a "
                        "positive multiple of the key/value heads (GQA)",
                        s.hq, s.h));
  if (s.rotates()) {
    int64_t r = s.effectiveRotaryDims();
    if (r < 2 || r > s.d || r % 2)
      return fail(formatv("rotary dims = {0} is not supported: it must be "
                          "even and in [2, d = {1}]",
                          r, s.d));
    if (rules::Problem why = rules::checkRopeBase(s.rotaryBase))
      return fail(
          formatv("rotary base = {0} {1}", shortest(s.rotaryBase), *why));
    if (rules::Problem why = rules::checkRopeScale(s.rateScale))
      return fail(
          formatv("rotary rate_scale = {0} {1}", shortest(s.rateScale), *why));
  }
  if (s.relativeSchedule() && s.length < 1)
    return fail(formatv("schedule '{0}' needs its typical length L >= 1",
                        stringifyScheduleKind(s.schedule)));
  // 0 is the default 1/sqrt(d).
  if (s.scale != 0.0)
    if (rules::Problem why = rules::checkScale(s.scale))
      return fail(formatv("scale = {0} {1} (or 0 for the default 1/sqrt(d))",
                          shortest(s.scale), *why));
  return Error::success();
}

Error verifyAttentionKernelSpec(const AttentionKernelSpec &s) {
  if (Error error = verifyKernelVariant(s))
    return error;
  AttentionPath path = s.resolvedPath();
  if (path == AttentionPath::Mma) {
    // The tensor-core kernel is the tile kernel (AttentionTile.cpp).
    if (s.dtype == ElementKind::F32)
      return fail("the tensor-core path needs bf16 or f16 inputs; f32 inputs "
                  "use the scalar FMA path to keep full f32 accuracy");
    if (s.relativeSchedule())
      return fail(formatv("schedule '{0}' rotates each (query, key) pair by "
                          "its own angle; only the scalar path computes it",
                          stringifyScheduleKind(s.schedule)));
    if (s.blockTokens && s.blockTokens != AttentionTile::kRows)
      return fail(formatv("block tokens = {0}: the tensor-core path takes "
                          "blocks of {1} queries",
                          s.blockTokens, AttentionTile::kRows));
    if (!attentionTileOf(s))
      return fail(formatv("the tensor-core path holds [V | 1] in one MMA of "
                          "at most 256 columns or in blocks of {0} value "
                          "columns (e = {1}), within its workgroup memory "
                          "(d = {2}); use the scalar path",
                          kValueBlockColumns, s.e, s.d));
    return Error::success();
  }
  int64_t bt = s.resolvedBlockTokens();
  if (bt < 1 || s.threadsPerBlock() > 1024 || s.threadsPerBlock() % 32)
    return fail(formatv("block tokens = {0} gives {1} threads per block; "
                        "the scalar path needs whole warps (a multiple of 32 "
                        "threads, for its shuffles), at most 1024",
                        bt, s.threadsPerBlock()));
  int64_t shared = attentionSharedBytes(s);
  if (shared > kStaticSharedBytes)
    return fail(formatv("the variant needs {0} bytes of workgroup memory per "
                        "block, more than the 48 KiB of static shared memory; "
                        "use fewer block tokens",
                        shared));
  return Error::success();
}

Expected<AttentionKernelSpec> parseAttentionVariant(StringRef text) {
  AttentionKernelSpec s;
  bool eSet = false, hSet = false;
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  llvm::StringSet<> seen;
  for (StringRef item : items) {
    auto [key, value] = item.split('=');
    key = key.trim();
    value = value.trim();
    if (!seen.insert(key).second)
      return fail(formatv("variant key '{0}' is given twice", key));
    auto integer = [&](int64_t &out) -> Error {
      if (value.getAsInteger(10, out))
        return fail(formatv("variant key '{0}' needs an integer, got '{1}'",
                            key, value));
      return Error::success();
    };
    auto real = [&](double &out) -> Error {
      if (value.getAsDouble(out))
        return fail(
            formatv("variant key '{0}' needs a number, got '{1}'", key, value));
      return Error::success();
    };
    auto enumeration = [&](auto symbolize, auto &out,
                           StringRef allowed) -> Error {
      if (auto v = symbolize(value)) {
        out = *v;
        return Error::success();
      }
      return fail(formatv("variant key '{0}': unknown value '{1}', expected "
                          "one of {2}",
                          key, value, allowed));
    };
    Error err = Error::success();
    if (key == "p")
      err = integer(s.p);
    else if (key == "d")
      err = integer(s.d);
    else if (key == "e")
      eSet = true, err = integer(s.e);
    else if (key == "hq")
      err = integer(s.hq);
    else if (key == "h")
      hSet = true, err = integer(s.h);
    else if (key == "r")
      err = integer(s.rotaryDims);
    else if (key == "L")
      err = integer(s.length);
    else if (key == "block")
      err = integer(s.blockTokens);
    else if (key == "base")
      err = real(s.rotaryBase);
    else if (key == "rate_scale")
      err = real(s.rateScale);
    else if (key == "scale")
      err = real(s.scale);
    else if (key == "dtype")
      err = enumeration([](StringRef v) { return symbolizeElementKind(v); },
                        s.dtype, "bf16, f16, f32");
    else if (key == "gate")
      err = enumeration([](StringRef v) { return symbolizeGateKind(v); },
                        s.gate, "none, head, data, both");
    else if (key == "rope")
      err = enumeration([](StringRef v) { return symbolizeScheduleKind(v); },
                        s.schedule, "none, uniform, learned, warped, blend");
    else if (key == "layout")
      err = enumeration([](StringRef v) { return symbolizeRotaryLayout(v); },
                        s.layout, "interleaved, half");
    else if (key == "path") {
      std::optional<AttentionPath> p =
          StringSwitch<std::optional<AttentionPath>>(value)
              .Case("auto", AttentionPath::Auto)
              .Case("scalar", AttentionPath::Scalar)
              .Case("mma", AttentionPath::Mma)
              .Default(std::nullopt);
      if (!p)
        err = fail(formatv("variant key 'path': unknown value '{0}', "
                           "expected one of auto, scalar, mma",
                           value));
      else
        s.path = *p;
    } else {
      err = fail(formatv("unknown variant key '{0}' (known: p, d, e, hq, h, "
                         "dtype, gate, rope, layout, r, base, rate_scale, L, "
                         "scale, path, block; sympow-aot adds formulation "
                         "and chunk)",
                         key));
    }
    if (err)
      return std::move(err);
  }
  if (!eSet)
    s.e = s.d;
  if (!hSet)
    s.h = s.hq;
  return s;
}

} // namespace sympow
