//===- Fiber.h - Emulated threads as fibers ---------------------*- C++ -*-===//
//
// One fiber per emulated GPU thread. Stacks are mmap'd with a guard page
// below them so that a kernel overflowing its stack faults instead of
// corrupting its neighbour. All fibers of a block run on one OS thread.
//
// On x86-64 a switch is a few instructions (callee-saved registers, MXCSR
// and the x87 control word); elsewhere it is swapcontext, which also saves
// the signal mask with a system call per switch.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_FIBER_H
#define SYMPOW_EMULATOR_FIBER_H

#include <cstddef>

#if defined(__x86_64__) && defined(__linux__)
#define SYMPOW_EMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

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

/// A saved execution context.
// AddressSanitizer must be told of every stack switch
// (__sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber), or it
// takes a fiber's frames for a wild stack; see docs/Reliability.md.
#if defined(__SANITIZE_ADDRESS__)
#define SYMPOW_EMU_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYMPOW_EMU_ASAN_FIBERS 1
#endif
#endif

struct FiberContext {
#ifdef SYMPOW_EMU_ASM_SWITCH
  void *sp = nullptr;
#else
  ucontext_t context;
#endif
#ifdef SYMPOW_EMU_ASAN_FIBERS
  // The stack this context runs on (learnt at the first switch away from
  // it for a thread's own stack) and ASan's fake stack while switched out.
  const void *stackBottom = nullptr;
  size_t stackSize = 0;
  void *fakeStack = nullptr;
#endif
};

struct Fiber {
  FiberContext context;
  FiberStack stack;
  /// Prepares the fiber to run `entry` from the start of its stack; the
  /// function must never return (it switches away for good instead).
  void reset(void (*entry)(), FiberContext *returnTo);
};

/// Saves the current context in `from` and runs `to`.
void switchFiber(FiberContext *from, FiberContext *to);
/// Leaves the running fiber `from` for good and runs `to`: under
/// AddressSanitizer its fake stack is freed here (a switch that saves it
/// would leak one per fiber run, gigabytes over a launch's blocks).
[[noreturn]] void exitFiber(FiberContext *from, FiberContext *to);

/// The first thing a fiber's entry function calls (completes the switch
/// into it for AddressSanitizer; nothing otherwise).
void fiberStarted(FiberContext *self);

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_FIBER_H
