//===- EmulatorTestSupport.h - Kernel files and arguments for the tests ---===//
//
// What the emulator's GoogleTests share: compiling a .mlir file of this
// folder on the emulator, and packing a launch's arguments the way the
// emulator's kernels take them (each buffer a 1-D memref descriptor, then
// the scalars).
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_TEST_EMULATOR_EMULATORTESTSUPPORT_H
#define SYMPOW_TEST_EMULATOR_EMULATORTESTSUPPORT_H

#include "sympow/Compiler/Emulator/JIT.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <new>
#include <string>
#include <vector>

namespace sympow::test {

/// The kernels of test/Emulator/<name>, compiled for one test; a test
/// failure (and null) when the file is missing or does not compile.
inline std::unique_ptr<EmulatorJIT> compileFile(mlir::MLIRContext &context,
                                                const std::string &name) {
  std::string path = std::string(SYMPOW_EMULATOR_TEST_DIR) + "/" + name;
  auto file = llvm::MemoryBuffer::getFile(path);
  if (!file) {
    ADD_FAILURE() << "cannot read " << path;
    return nullptr;
  }
  auto jit =
      EmulatorJIT::compileSource((*file)->getBuffer(), context, {}, name);
  if (!jit) {
    ADD_FAILURE() << llvm::toString(jit.takeError());
    return nullptr;
  }
  return std::move(*jit);
}

/// Allocates at 256-byte boundaries, as cudaMalloc does: what the sector
/// counts of a test's buffers assume.
template <typename T> struct DeviceAllocator {
  using value_type = T;
  DeviceAllocator() = default;
  template <typename U> DeviceAllocator(const DeviceAllocator<U> &) {}
  T *allocate(size_t n) {
    return static_cast<T *>(
        ::operator new(n * sizeof(T), std::align_val_t(256)));
  }
  void deallocate(T *p, size_t) { ::operator delete(p, std::align_val_t(256)); }
  bool operator==(const DeviceAllocator &) const { return true; }
  bool operator!=(const DeviceAllocator &) const { return false; }
};
template <typename T> using DeviceVector = std::vector<T, DeviceAllocator<T>>;

/// Packed kernel arguments: buffers as memref descriptors, then scalars.
class KernelArgs {
public:
  template <typename T, typename A> void buffer(std::vector<T, A> &data) {
    Descriptor &d = descriptors.emplace_back();
    d.allocated = d.aligned = data.data();
    d.size = static_cast<int64_t>(data.size());
    for (void *field :
         {static_cast<void *>(&d.allocated), static_cast<void *>(&d.aligned),
          static_cast<void *>(&d.offset), static_cast<void *>(&d.size),
          static_cast<void *>(&d.stride)})
      packed.push_back(field);
  }
  void scalar(int64_t v) {
    scalars.push_back(v);
    packed.push_back(&scalars.back());
  }
  void **data() { return packed.data(); }

private:
  struct Descriptor {
    void *allocated, *aligned;
    int64_t offset = 0, size = 0, stride = 1;
  };
  std::deque<Descriptor> descriptors; // stable addresses
  std::deque<int64_t> scalars;
  std::vector<void *> packed;
};

} // namespace sympow::test

#endif // SYMPOW_TEST_EMULATOR_EMULATORTESTSUPPORT_H
