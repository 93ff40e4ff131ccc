//===- Fiber.h - Emulated threads as ucontext fibers ------------*- C++ -*-===//
//
// One fiber per emulated GPU thread. Stacks are mmap'd with a guard page
// below them so that a kernel overflowing its stack faults instead of
// corrupting its neighbour. All fibers of a block run on one OS thread.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_FIBER_H
#define SYMPOW_EMULATOR_FIBER_H

#include <cstddef>
#include <ucontext.h>

namespace sympow::emu {

class FiberStack {
public:
  FiberStack() = default;
  FiberStack(const FiberStack &) = delete;
  FiberStack &operator=(const FiberStack &) = delete;
  FiberStack(FiberStack &&other) noexcept;
  ~FiberStack();
  /// Maps `bytes` of stack (rounded to pages) plus a guard page; false on
  /// failure.
  bool allocate(size_t bytes);
  void *base() const { return usable; }
  size_t size() const { return usableBytes; }

private:
  void *mapping = nullptr;
  size_t mappingBytes = 0;
  void *usable = nullptr;
  size_t usableBytes = 0;
};

struct Fiber {
  ucontext_t context;
  FiberStack stack;
  /// Prepares the fiber to run `entry` from the start of its stack; the
  /// function must never return (it switches away for good instead).
  void reset(void (*entry)(), ucontext_t *returnTo);
};

/// Saves the current context in `from` and runs `to`.
void switchFiber(ucontext_t *from, ucontext_t *to);

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_FIBER_H
