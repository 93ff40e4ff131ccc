//===- Emulator.h - Run gpu.func kernels on the CPU -------------*- C++ -*-===//
//
// The emulator runtime: executes kernels lowered by `sympow-gpu-to-emulator`
// with CUDA semantics. Every thread of a block is a fiber, gpu.barrier is a
// real barrier, workgroup memory is per block, warp collectives exchange data
// between the lanes of a warp; blocks spread over worker threads. While it
// runs it checks global and workgroup accesses against their allocations,
// races on workgroup memory between barriers, and barriers or warp
// collectives that not all threads reach. docs/Emulator.md has the details.
//
// The API is what a runtime backend wraps: load a module, look a kernel up
// by name, launch it with grid, block, dynamic shared bytes and the packed
// arguments (one pointer per kernel parameter, memref descriptors expanded
// into their five fields, as cuLaunchKernel takes them).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_EMULATOR_H
#define SYMPOW_EMULATOR_EMULATOR_H

#include "sympow/Support/BlockProfile.h"
#include "sympow/Support/KernelCounts.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace sympow::emu {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t count() const { return uint64_t(x) * y * z; }
  std::string str() const;
  bool operator==(const Dim3 &o) const {
    return x == o.x && y == o.y && z == o.z;
  }
};

enum class ReportKind {
  OutOfBounds,       // an access outside its allocation
  Race,              // two threads, one address, one barrier interval, a write
  DivergentBarrier,  // a barrier not reached by all threads of a block, or
                     // an mbarrier wait that cannot return (a hang)
  DivergentWarpOp,   // a warp collective not reached by all lanes of a warp
  UninitializedRead, // a workgroup byte read before any thread wrote it
  Misaligned,        // an ldmatrix row, cp.async or bulk copy off alignment
  InvalidLaunch,     // bad grid, block or arguments
  Unsupported,       // an operation the emulator cannot run (e.g. mma shape)
  Timeout,           // the launch ran past LaunchOptions::timeoutSeconds
  AsyncOrder,        // a wgmma without wgmma.fence, its result read early;
                     // an mbarrier used before its init
};
const char *toString(ReportKind kind);

/// One problem found while running a kernel.
struct Report {
  ReportKind kind;
  std::string kernel;
  Dim3 block;
  Dim3 thread;      // the thread that found it
  Dim3 otherThread; // races: the thread of the earlier access
  std::string site; // the op and its source location
  std::string otherSite;
  int space = -1;         // abi::Space of the access, -1 if none
  int64_t offset = 0;     // byte offset of the access in its allocation
  int64_t bytes = 0;      // bytes accessed
  int64_t allocBytes = 0; // size of the allocation
  std::string message;    // the whole report as one readable line
};

using sympow::BlockProfile;

struct LaunchResult {
  std::vector<Report> reports;
  /// Reports beyond LaunchOptions::maxReports, counted but not kept.
  uint64_t droppedReports = 0;
  /// What the launch did (LaunchOptions::countOperations; zeros but the
  /// launch's shape when off): the whole grid, its heaviest block, the
  /// distinct global bytes. docs/Emulator.md, "Counters", says how.
  LaunchCounts counts;
  /// The counted blocks, most operations first (profileBlocks).
  std::vector<BlockProfile> profile;
  bool ok() const { return reports.empty(); }
  /// Every report on its own line; empty when ok().
  std::string message() const;
};

struct LaunchOptions {
  unsigned workers = 0;            // 0: one per hardware thread
  uint64_t stackBytes = 256 << 10; // per emulated thread
  unsigned maxReports = 32;
  bool detectRaces = true;
  /// Report reads of workgroup bytes no thread of the block wrote (needs
  /// detectRaces, which keeps the shadow memory).
  bool detectUninitialized = true;
  /// Byte every workgroup-memory byte starts as (0xff: NaN for floats, so a
  /// read of memory no thread wrote shows up in the results).
  int fillByte = 0xff;
  /// Stop and report a launch running longer than this (0: no limit). A
  /// spinning thread notices at its next memory access or barrier.
  double timeoutSeconds = 0;
  /// Count what the launch does into LaunchResult::counts: memory accesses
  /// and bytes per space, arithmetic (counted statically per MLIR block by
  /// the lowering, added once per executed block), warp collectives,
  /// barriers, distinct global bytes. Off: every counter stays 0.
  bool countOperations = true;
  /// With countOperations: also per counted MLIR block (its site names
  /// it, docs/Emulator.md "Profiles") how often threads ran it and the
  /// arithmetic that took, into LaunchResult::profile.
  bool profileBlocks = false;
};

/// A compiled kernel: the packed entry the lowered code provides.
struct Kernel {
  std::string name;
  void (*entry)(void **args) = nullptr;
  uint64_t staticSharedBytes = 0;
  unsigned numArgs = 0; // packed arguments, without the appended workgroup ones
  /// The block size the kernel was built for (gpu.func known_block_size);
  /// x == 0 when it takes any. A launch with another block is refused.
  Dim3 requiredBlock{0, 0, 0};
  /// Whether the kernel's memory accesses were instrumented. Without, race
  /// and uninitialized-read detection would see only the collectives' part
  /// and are off.
  bool checkedAccesses = true;
};

/// The kernels of one compiled module (JIT or shared object).
class Module {
public:
  /// Reads the manifest through `lookup`, which maps a symbol name to its
  /// address (nullptr if absent). Returns nullptr and sets `error` on failure.
  static std::unique_ptr<Module>
  fromSymbols(const std::function<void *(const std::string &)> &lookup,
              std::string &error);
  /// Loads a shared object built from lowered kernels (dlopen).
  static std::unique_ptr<Module> loadSharedObject(const std::string &path,
                                                  std::string &error);
  /// The same from the bytes of such a shared object (what a backend's
  /// loadModule(image, size) receives), through an anonymous file.
  static std::unique_ptr<Module>
  loadSharedObjectImage(const void *image, size_t size, std::string &error);
  ~Module();

  /// The kernel named `name` (the gpu.func name, or "module::kernel").
  const Kernel *getKernel(const std::string &name) const;
  const std::vector<Kernel> &kernels() const { return kernelList; }

private:
  std::vector<Kernel> kernelList;
  std::vector<std::string> qualifiedNames;
  void *handle = nullptr; // dlopen handle, if any
  int imageFd = -1;       // the memfd an image was loaded from, if any
};

/// Runs `kernel` on a grid of blocks; returns when every block has finished
/// or the launch stopped on an error (out-of-bounds access, divergent
/// barrier). Races are reported and the launch goes on.
LaunchResult launch(const Kernel &kernel, Dim3 grid, Dim3 block,
                    uint64_t dynamicSharedBytes, void **args,
                    const LaunchOptions &options = {});

/// Names and addresses of the functions lowered kernels call, for a JIT to
/// resolve them (the runtime's entry points, plus bf16 conversion helpers
/// the host's libgcc may lack).
std::vector<std::pair<const char *, void *>> runtimeSymbols();

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_EMULATOR_H
