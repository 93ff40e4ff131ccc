//===- Options.cpp - sympow-run's command line ----------------------------===//

#include "Options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <set>

namespace sympow::run {

using reference::Result;
using reference::Status;

const char *helpText() {
  return R"(usage: sympow-run --backend reference|emulator|cuda --power P
                  --q Q.npy --k K.npy --v V.npy [options] --out Y.npy

Runs one sympow (symmetric power) attention layer, as defined in SPEC.md, on
.npy inputs (float32 or float64, C order) and writes y as float32 .npy.

Required:
  --backend B            reference: the f64 oracle (SPEC made executable).
                         emulator: the generated GPU kernels run on the CPU
                         with CUDA semantics. cuda: the same kernels on a GPU
                         through the CUDA driver. Kernels are compiled on
                         first use and cached ($SYMPOW_CACHE_DIR, default
                         ~/.cache/sympow).
  --power P              even integer >= 2
  --q Q.npy              queries [B, T, Hq, d]
  --k K.npy              keys    [B, T, H, d]   (Hq must be a multiple of H)
  --v V.npy              values  [B, T, H, e]
  --out Y.npy            output y [B, T, Hq, e], float32

Gates (optional):
  --log-g G.npy          data-dependent log gate [B, T, H], values <= 0
  --log-gamma LG.npy     per-head constant log gate [H], values <= 0
                         (ALiBi-equivalent: log gamma = -m_h)

Rotary positions:
  --schedule S           none | uniform | learned | warped | blend.
                         Default: learned if --beta is given, else uniform if
                         any --rope-* flag is given, else none.
  --beta BETA.npy        rotation-rate multiplier [B, T, H] in [0, 2];
                         required by, and only allowed with, learned
  --warp-length L        typical length L > 0; required by, and only
                         allowed with, warped and blend
  --rope-base F          base of the rates theta_j (default 10000)
  --rope-scale F         rate_scale multiplying the rates (default 1)
  --rope-dims R          rotated dims r, even, 2 <= r <= d (default d)
  --rope-layout L        interleaved (pairs 2j, 2j+1; default) or half
                         (pairs j, j + r/2)

Computation:
  --scale F              multiplies q (default 1/sqrt(d))
  --dtype T              f32 (default) | bf16 | f16: q, k and v are rounded
                         to T (nearest-even) before computing in f64
  --formulation F        auto (default) | attention | chunked | recurrent.
                         auto is chunked if a state is given or requested
                         or --chunk-size is given, else attention.
                         warped and blend only have the attention form.
  --chunk-size C         chunk size of the chunked formulation (default 64)

State (not with warped or blend):
  --initial-state S.npy Z.npy C.npy
                         start from S [B, H, D, e], Z [B, H, D], c [B, H],
                         D = C(d+p-1, p), in the SPEC's phi order
  --final-state S.npy Z.npy C.npy
                         also write the state after the last token
                         (float32)

  --help                 show this text

Exit status: 0 on success; 2 on any error, with one message on stderr and no
output file written.
)";
}

namespace {

enum class Kind { Flag, Value, ThreeValues };

struct FlagSpec {
  const char *name;
  Kind kind;
};

const FlagSpec kFlags[] = {
    {"--help", Kind::Flag},
    {"--backend", Kind::Value},
    {"--power", Kind::Value},
    {"--q", Kind::Value},
    {"--k", Kind::Value},
    {"--v", Kind::Value},
    {"--log-g", Kind::Value},
    {"--log-gamma", Kind::Value},
    {"--beta", Kind::Value},
    {"--rope-base", Kind::Value},
    {"--rope-scale", Kind::Value},
    {"--rope-dims", Kind::Value},
    {"--rope-layout", Kind::Value},
    {"--schedule", Kind::Value},
    {"--warp-length", Kind::Value},
    {"--scale", Kind::Value},
    {"--dtype", Kind::Value},
    {"--formulation", Kind::Value},
    {"--chunk-size", Kind::Value},
    {"--initial-state", Kind::ThreeValues},
    {"--final-state", Kind::ThreeValues},
    {"--out", Kind::Value},
};

const FlagSpec *findFlag(const std::string &name) {
  for (const FlagSpec &f : kFlags)
    if (name == f.name)
      return &f;
  return nullptr;
}

Result<double> parseDouble(const std::string &flag, const std::string &s) {
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v))
    return Status::error(flag + " expects a finite number, got '" + s + "'");
  return v;
}

Result<int64_t> parseInt(const std::string &flag, const std::string &s) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE)
    return Status::error(flag + " expects an integer, got '" + s + "'");
  return static_cast<int64_t>(v);
}

/// Applies one flag's value(s) to the options.
Status apply(Options &o, const std::string &flag,
             const std::vector<std::string> &vals) {
  using reference::InputType;
  using reference::RotaryLayout;
  using reference::Schedule;
  const std::string &v = vals.empty() ? std::string() : vals[0];
  auto bad = [&](const char *allowed) {
    return Status::error(flag + " must be one of " + allowed + ", got '" + v +
                         "'");
  };
  if (flag == "--help") {
    o.help = true;
  } else if (flag == "--backend") {
    o.backend = v;
  } else if (flag == "--power") {
    Result<int64_t> p = parseInt(flag, v);
    if (p.isError())
      return p.status();
    if (p.value() < -1000000 || p.value() > 1000000)
      return Status::error("--power " + v + " is out of range");
    o.power = static_cast<int>(p.value());
  } else if (flag == "--q") {
    o.q = v;
  } else if (flag == "--k") {
    o.k = v;
  } else if (flag == "--v") {
    o.v = v;
  } else if (flag == "--out") {
    o.out = v;
  } else if (flag == "--log-g") {
    o.logG = v;
  } else if (flag == "--log-gamma") {
    o.logGamma = v;
  } else if (flag == "--beta") {
    o.beta = v;
  } else if (flag == "--rope-base" || flag == "--rope-scale" ||
             flag == "--warp-length" || flag == "--scale") {
    Result<double> d = parseDouble(flag, v);
    if (d.isError())
      return d.status();
    (flag == "--rope-base"    ? o.ropeBase
     : flag == "--rope-scale" ? o.ropeScale
     : flag == "--scale"      ? o.scale
                              : o.warpLength) = d.value();
  } else if (flag == "--rope-dims" || flag == "--chunk-size") {
    Result<int64_t> n = parseInt(flag, v);
    if (n.isError())
      return n.status();
    (flag == "--rope-dims" ? o.ropeDims : o.chunkSize) = n.value();
  } else if (flag == "--rope-layout") {
    if (v == "interleaved")
      o.ropeLayout = RotaryLayout::Interleaved;
    else if (v == "half")
      o.ropeLayout = RotaryLayout::Half;
    else
      return bad("interleaved|half");
  } else if (flag == "--schedule") {
    const Schedule all[] = {Schedule::None, Schedule::Uniform,
                            Schedule::Learned, Schedule::Warped,
                            Schedule::Blend};
    for (Schedule s : all)
      if (v == reference::toString(s))
        o.schedule = s;
    if (!o.schedule)
      return bad("none|uniform|learned|warped|blend");
  } else if (flag == "--dtype") {
    if (v == "f32")
      o.dtype = InputType::F32;
    else if (v == "bf16")
      o.dtype = InputType::BF16;
    else if (v == "f16")
      o.dtype = InputType::F16;
    else
      return bad("f32|bf16|f16");
  } else if (flag == "--formulation") {
    if (v == "auto")
      o.formulation = FormulationChoice::Auto;
    else if (v == "attention")
      o.formulation = FormulationChoice::Attention;
    else if (v == "chunked")
      o.formulation = FormulationChoice::Chunked;
    else if (v == "recurrent")
      o.formulation = FormulationChoice::Recurrent;
    else
      return bad("auto|attention|chunked|recurrent");
  } else if (flag == "--initial-state" || flag == "--final-state") {
    (flag == "--initial-state" ? o.initialState : o.finalState) =
        StateFiles{vals[0], vals[1], vals[2]};
  }
  return Status::success();
}

} // namespace

Result<Options> parseOptions(int argc, const char *const *argv) {
  Options o;
  // --help wins over anything else on the line, even errors.
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--help") == 0 ||
        std::strcmp(argv[i], "-h") == 0) {
      o.help = true;
      return o;
    }
  std::set<std::string> seen;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string name = arg, inlineValue;
    bool hasInline = false;
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inlineValue = arg.substr(eq + 1);
      hasInline = true;
    }
    if (arg.rfind("--", 0) != 0)
      return Status::error("unexpected argument '" + arg +
                           "' (flags start with --; see --help)");
    const FlagSpec *spec = findFlag(name);
    if (!spec)
      return Status::error("unknown flag '" + name + "' (see --help)");
    if (!seen.insert(name).second)
      return Status::error(name + " is given more than once");

    std::vector<std::string> vals;
    if (spec->kind == Kind::Flag) {
      if (hasInline)
        return Status::error(name + " takes no value");
    } else if (spec->kind == Kind::Value) {
      if (hasInline) {
        vals.push_back(inlineValue);
      } else {
        if (i + 1 >= argc || std::strncmp(argv[i + 1], "--", 2) == 0)
          return Status::error(name + " needs a value");
        vals.push_back(argv[++i]);
      }
      if (vals[0].empty())
        return Status::error(name + " needs a non-empty value");
    } else {
      if (hasInline)
        return Status::error(name + " takes three file names: " + name +
                             " S.npy Z.npy C.npy");
      for (int n = 0; n < 3; ++n) {
        if (i + 1 >= argc || std::strncmp(argv[i + 1], "--", 2) == 0 ||
            argv[i + 1][0] == '\0')
          return Status::error(name + " takes three file names: " + name +
                               " S.npy Z.npy C.npy");
        vals.push_back(argv[++i]);
      }
    }
    if (Status st = apply(o, name, vals); st.isError())
      return st;
  }
  if (o.backend.empty())
    return Status::error("missing required flag --backend "
                         "(reference|emulator|cuda)");
  if (o.backend != "reference" && o.backend != "emulator" &&
      o.backend != "cuda")
    return Status::error("--backend must be one of reference|emulator|cuda, "
                         "got '" +
                         o.backend + "'");
  if (!o.power)
    return Status::error("missing required flag --power P");
  if (o.q.empty())
    return Status::error("missing required flag --q Q.npy");
  if (o.k.empty())
    return Status::error("missing required flag --k K.npy");
  if (o.v.empty())
    return Status::error("missing required flag --v V.npy");
  if (o.out.empty())
    return Status::error("missing required flag --out Y.npy");
  return o;
}

} // namespace sympow::run
