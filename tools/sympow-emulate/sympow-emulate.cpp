//===- sympow-emulate.cpp - Run a gpu.func kernel on the CPU emulator -----===//
//
// Compiles the gpu.module kernels of an .mlir file for the emulator (JIT),
// runs one kernel on buffers described on the command line, prints the
// emulator's reports and, on request, the buffers afterwards:
//
//   sympow-emulate k.mlir --kernel reduce --grid 4 --block 64 \
//       --arg f32:256=iota --arg f32:4 --print
//
// Ahead of time: --emit-shared-object k.so compiles the kernels into a
// shared object, --shared-object k.so runs one of them without compiling.
//
// Buffers: TYPE:COUNT[=INIT], TYPE in f16 bf16 f32 f64 i32 i64, INIT iota
// (0, 1, 2, ...), a number (every element), or nothing (zeros). Scalars:
// i64=VALUE. Arguments go to the kernel in the order given, buffers as
// memref descriptors (docs/KernelABI.md). Exit status: 0 when the launch
// found nothing, 1 when it reported a problem, 2 for usage or compile
// errors. --counts prints what the launch did (docs/Emulator.md,
// "Counters"), --counts-json FILE writes it as JSON, --profile N the N
// counted blocks with the most arithmetic ("Profiles").
//
//===----------------------------------------------------------------------===//

#include "sympow/Compiler/Emulator/JIT.h"
#include "sympow/Emulator/Half.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <deque>

using namespace llvm;
namespace emu = sympow::emu;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                      cl::init("-"));
static cl::opt<std::string> kernelName("kernel", cl::desc("Kernel to run"));
static cl::opt<std::string>
    emitSharedObject("emit-shared-object",
                     cl::desc("Compile the kernels into this shared object "
                              "and exit (no launch)"));
static cl::opt<std::string>
    sharedObject("shared-object",
                 cl::desc("Run a kernel of this shared object (from "
                          "--emit-shared-object) instead of compiling"));
static cl::opt<std::string> gridOpt("grid", cl::desc("Blocks: X[,Y[,Z]]"),
                                    cl::init("1"));
static cl::opt<std::string> blockOpt("block", cl::desc("Threads: X[,Y[,Z]]"),
                                     cl::init("1"));
static cl::opt<uint64_t> dynamicShared("dynamic-shared",
                                       cl::desc("Dynamic workgroup bytes"),
                                       cl::init(0));
static cl::list<std::string> argSpecs("arg", cl::desc("A kernel argument"));
static cl::opt<bool> printArgs("print", cl::desc("Print buffers afterwards"));
static cl::opt<unsigned> workers("workers", cl::desc("Worker threads (0: all)"),
                                 cl::init(0));
static cl::opt<double>
    timeout("timeout",
            cl::desc("Stop and report a launch running longer (seconds; 0: "
                     "no limit)"),
            cl::init(0));
static cl::opt<bool>
    dumpLowered("dump-lowered",
                cl::desc("Print the kernels lowered to the LLVM dialect"));
static cl::opt<bool> noChecks("no-checks",
                              cl::desc("Do not instrument memory accesses"));
static cl::opt<bool>
    printCounts("counts",
                cl::desc("Print what the launch did: operations, bytes and "
                         "collectives of the grid and of its heaviest block, "
                         "distinct global bytes"));
static cl::opt<bool>
    noCount("no-count",
            cl::desc("Launch with LaunchOptions::countOperations off (to "
                     "measure what counting costs)"));
static cl::opt<unsigned> profileTop(
    "profile",
    cl::desc("Print the N counted MLIR blocks with the most arithmetic: how "
             "often threads ran each and its operations by unit, each named "
             "by its nesting and first ops (docs/Emulator.md, \"Profiles\")"),
    cl::value_desc("N"), cl::init(0));
static cl::opt<std::string>
    countsJson("counts-json",
               cl::desc("Write the launch's counts to this file as JSON"));

namespace {

struct Argument {
  std::string type;
  bool isBuffer = false;
  std::vector<uint8_t> bytes;
  // Descriptor fields (buffers) or the scalar.
  void *allocated = nullptr, *aligned = nullptr;
  int64_t offset = 0, size = 0, stride = 1, scalar = 0;
};

size_t typeBytes(StringRef t) {
  if (t == "f16" || t == "bf16")
    return 2;
  if (t == "f32" || t == "i32")
    return 4;
  if (t == "f64" || t == "i64")
    return 8;
  return 0;
}

void setElement(Argument &a, int64_t i, double v) {
  uint8_t *p = a.bytes.data() + i * typeBytes(a.type);
  if (a.type == "f16") {
    uint16_t h = emu::floatToHalf(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  } else if (a.type == "bf16") {
    uint16_t h = emu::floatToBf16(static_cast<float>(v));
    std::memcpy(p, &h, 2);
  } else if (a.type == "f32") {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
  } else if (a.type == "f64") {
    std::memcpy(p, &v, 8);
  } else if (a.type == "i32") {
    int32_t x = static_cast<int32_t>(v);
    std::memcpy(p, &x, 4);
  } else {
    int64_t x = static_cast<int64_t>(v);
    std::memcpy(p, &x, 8);
  }
}

double getElement(const Argument &a, int64_t i) {
  const uint8_t *p = a.bytes.data() + i * typeBytes(a.type);
  if (a.type == "f16" || a.type == "bf16") {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return a.type == "f16" ? emu::halfToFloat(h) : emu::bf16ToFloat(h);
  }
  if (a.type == "f32") {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  if (a.type == "f64") {
    double d;
    std::memcpy(&d, p, 8);
    return d;
  }
  if (a.type == "i32") {
    int32_t x;
    std::memcpy(&x, p, 4);
    return x;
  }
  int64_t x;
  std::memcpy(&x, p, 8);
  return static_cast<double>(x);
}

bool parseArg(StringRef spec, Argument &a, std::string &error) {
  if (spec.starts_with("i64=")) {
    a.type = "i64";
    if (spec.drop_front(4).getAsInteger(0, a.scalar)) {
      error = "bad scalar '" + spec.str() + "'";
      return false;
    }
    return true;
  }
  auto [type, rest] = spec.split(':');
  auto [count, init] = rest.split('=');
  a.type = type.str();
  a.isBuffer = true;
  if (!typeBytes(type) || count.getAsInteger(0, a.size) || a.size < 0) {
    error = "bad buffer '" + spec.str() +
            "' (want TYPE:COUNT[=iota|VALUE], TYPE f16 bf16 f32 f64 i32 i64)";
    return false;
  }
  // One spare element keeps a valid pointer for empty buffers.
  a.bytes.assign((a.size + 1) * typeBytes(type), 0);
  double value = 0;
  bool iota = init == "iota";
  if (!init.empty() && !iota && init.getAsDouble(value)) {
    error = "bad initial value in '" + spec.str() + "'";
    return false;
  }
  for (int64_t i = 0; i < a.size; ++i)
    setElement(a, i, iota ? static_cast<double>(i) : value);
  a.allocated = a.aligned = a.bytes.data();
  return true;
}

bool parseDim(StringRef text, emu::Dim3 &d) {
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  uint32_t *fields[3] = {&d.x, &d.y, &d.z};
  if (parts.empty() || parts.size() > 3)
    return false;
  for (size_t i = 0; i < parts.size(); ++i)
    if (parts[i].trim().getAsInteger(0, *fields[i]))
      return false;
  return true;
}

void printCountsTable(raw_ostream &os, const std::string &kernel,
                      const sympow::LaunchCounts &c) {
  os << "counts: kernel '" << kernel << "' grid (" << c.grid[0] << ", "
     << c.grid[1] << ", " << c.grid[2] << ") block (" << c.block[0] << ", "
     << c.block[1] << ", " << c.block[2] << ") shared " << c.staticSharedBytes
     << " static + " << c.dynamicSharedBytes << " dynamic bytes\n";
  os << format("  %-20s %14s %14s\n", "", "total", "heaviest block");
  std::vector<std::pair<const char *, uint64_t>> heaviest;
  sympow::forEachCount(c.heaviest, [&](const char *name, uint64_t v) {
    heaviest.push_back({name, v});
  });
  size_t i = 0;
  sympow::forEachCount(c.total, [&](const char *name, uint64_t v) {
    os << format("  %-20s %14llu %14llu\n", name, (unsigned long long)v,
                 (unsigned long long)heaviest[i++].second);
  });
  os << format("  %-20s %14llu %14llu\n", "operations",
               (unsigned long long)c.total.operations(),
               (unsigned long long)c.heaviest.operations());
  os << "  heaviest block (" << c.heaviestBlock[0] << ", " << c.heaviestBlock[1]
     << ", " << c.heaviestBlock[2] << ")\n";
  os << "  distinct global bytes: loaded " << c.globalLoadDistinctBytes
     << ", stored " << c.globalStoreDistinctBytes << "\n";
}

void writeCountsJson(raw_ostream &os, const std::string &kernel,
                     const sympow::LaunchCounts &c) {
  auto dim = [&](const std::array<uint32_t, 3> &d) {
    os << "[" << d[0] << ", " << d[1] << ", " << d[2] << "]";
  };
  auto counts = [&](const sympow::OpCounts &o) {
    os << "{";
    bool first = true;
    sympow::forEachCount(o, [&](const char *name, uint64_t v) {
      os << (first ? "" : ", ") << "\"" << name << "\": " << v;
      first = false;
    });
    os << ", \"operations\": " << o.operations() << "}";
  };
  os << "{\"kernel\": \"" << kernel << "\", \"grid\": ";
  dim(c.grid);
  os << ", \"block\": ";
  dim(c.block);
  os << ", \"static_shared_bytes\": " << c.staticSharedBytes
     << ", \"dynamic_shared_bytes\": " << c.dynamicSharedBytes
     << ",\n \"total\": ";
  counts(c.total);
  os << ",\n \"heaviest\": ";
  counts(c.heaviest);
  os << ",\n \"heaviest_block\": ";
  dim(c.heaviestBlock);
  os << ", \"global_load_distinct_bytes\": " << c.globalLoadDistinctBytes
     << ", \"global_store_distinct_bytes\": " << c.globalStoreDistinctBytes
     << "}\n";
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv,
                              "run a gpu.func kernel on the CPU emulator\n");
  emu::Dim3 grid, block;
  if (!parseDim(gridOpt, grid) || !parseDim(blockOpt, block)) {
    errs() << "sympow-emulate: bad --grid or --block (want X[,Y[,Z]])\n";
    return 2;
  }
  std::deque<Argument> args;
  std::vector<void *> packed;
  for (const std::string &spec : argSpecs) {
    Argument &a = args.emplace_back();
    std::string error;
    if (!parseArg(spec, a, error)) {
      errs() << "sympow-emulate: " << error << "\n";
      return 2;
    }
    if (a.isBuffer) {
      for (void *field :
           {static_cast<void *>(&a.allocated), static_cast<void *>(&a.aligned),
            static_cast<void *>(&a.offset), static_cast<void *>(&a.size),
            static_cast<void *>(&a.stride)})
        packed.push_back(field);
    } else {
      packed.push_back(&a.scalar);
    }
  }

  mlir::MLIRContext context;
  sympow::EmulatorPipelineOptions options;
  options.checkAccesses = !noChecks;
  std::unique_ptr<sympow::EmulatorJIT> jit;
  std::unique_ptr<emu::Module> loaded;
  const emu::Module *module = nullptr;
  if (!sharedObject.empty()) {
    std::string error;
    loaded = emu::Module::loadSharedObject(sharedObject, error);
    if (!loaded) {
      errs() << "sympow-emulate: cannot load " << sharedObject << ": " << error
             << "\n";
      return 2;
    }
    module = loaded.get();
  } else {
    auto file = MemoryBuffer::getFileOrSTDIN(inputFile);
    if (!file) {
      errs() << "sympow-emulate: cannot read " << inputFile << "\n";
      return 2;
    }
    if (!emitSharedObject.empty()) {
      mlir::DialectRegistry registry;
      sympow::EmulatorJIT::registerDialects(registry);
      context.appendDialectRegistry(registry);
      mlir::ParserConfig config(&context);
      auto parsed = mlir::parseSourceString<mlir::ModuleOp>(
          (*file)->getBuffer(), config, inputFile);
      if (!parsed)
        return 2;
      if (auto e =
              sympow::emitSharedObject(*parsed, emitSharedObject, options)) {
        errs() << "sympow-emulate: " << toString(std::move(e)) << "\n";
        return 2;
      }
      return 0;
    }
    auto compiled = sympow::EmulatorJIT::compileSource(
        (*file)->getBuffer(), context, options, inputFile,
        dumpLowered ? &outs() : nullptr);
    if (!compiled) {
      errs() << "sympow-emulate: " << toString(compiled.takeError()) << "\n";
      return 2;
    }
    jit = std::move(*compiled);
    module = &jit->module();
  }
  const emu::Kernel *kernel = module->getKernel(kernelName);
  if (!kernel) {
    errs() << "sympow-emulate: no kernel '" << kernelName << "'\n";
    return 2;
  }
  if (kernel->numArgs != packed.size()) {
    errs() << "sympow-emulate: kernel '" << kernelName << "' takes "
           << kernel->numArgs << " packed arguments (a buffer is 5), got "
           << packed.size() << "\n";
    return 2;
  }
  emu::LaunchOptions launchOptions;
  launchOptions.workers = workers;
  launchOptions.timeoutSeconds = timeout;
  launchOptions.countOperations = !noCount;
  launchOptions.profileBlocks = profileTop > 0;
  emu::LaunchResult result = emu::launch(*kernel, grid, block, dynamicShared,
                                         packed.data(), launchOptions);
  outs() << result.message();
  if (result.ok())
    outs() << "emulator: ok\n";
  if (printCounts)
    printCountsTable(outs(), kernel->name, result.counts);
  if (profileTop > 0)
    outs() << sympow::profileTable(kernel->name, result.profile, profileTop);
  if (!countsJson.empty()) {
    std::error_code ec;
    raw_fd_ostream json(countsJson, ec);
    if (ec) {
      errs() << "sympow-emulate: cannot write " << countsJson << ": "
             << ec.message() << "\n";
      return 2;
    }
    writeCountsJson(json, kernel->name, result.counts);
  }
  if (printArgs) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].isBuffer)
        continue;
      outs() << "arg" << i << " = [";
      for (int64_t j = 0; j < args[i].size; ++j) {
        outs() << (j ? ", " : "");
        // Integers exactly (an i64 counter word is beyond %g's digits).
        if (args[i].type == "i64") {
          int64_t x;
          std::memcpy(&x, args[i].bytes.data() + j * 8, 8);
          outs() << x;
        } else {
          outs() << format("%g", getElement(args[i], j));
        }
      }
      outs() << "]\n";
    }
  }
  return result.ok() ? 0 : 1;
}
