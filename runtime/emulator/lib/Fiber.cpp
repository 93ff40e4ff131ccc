//===- Fiber.cpp - Emulated threads as fibers -----------------------------===//

#include "Fiber.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

#ifdef SYMPOW_EMU_ASAN_FIBERS
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

using namespace sympow::emu;

FiberStack::FiberStack(FiberStack &&other) noexcept
    : mapping(std::exchange(other.mapping, nullptr)),
      mappingBytes(std::exchange(other.mappingBytes, 0)),
      usable(std::exchange(other.usable, nullptr)),
      usableBytes(std::exchange(other.usableBytes, 0)) {}

FiberStack::~FiberStack() {
  if (mapping)
    munmap(mapping, mappingBytes);
}

bool FiberStack::allocate(size_t bytes) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t rounded = (bytes + page - 1) / page * page;
  // Pages are only backed when touched, so a generous stack costs little.
  void *p = mmap(nullptr, rounded + page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return false;
  mprotect(p, page, PROT_NONE); // guard page: stacks grow down
  mapping = p;
  mappingBytes = rounded + page;
  usable = static_cast<char *>(p) + page;
  usableBytes = rounded;
  return true;
}

#ifdef SYMPOW_EMU_ASAN_FIBERS
namespace {
/// The context a switch leaves, so the one it enters can record where that
/// stack is (a thread's own stack is only known to ASan).
thread_local FiberContext *switchingFrom = nullptr;

/// `saveFakeStack` false: `from` is left for good and ASan frees its fake
/// stack.
void startSwitch(FiberContext *from, FiberContext *to,
                 bool saveFakeStack = true) {
  switchingFrom = from;
  __sanitizer_start_switch_fiber(saveFakeStack ? &from->fakeStack : nullptr,
                                 to->stackBottom, to->stackSize);
}
} // namespace

void sympow::emu::fiberStarted(FiberContext *self) {
  const void *bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(self->fakeStack, &bottom, &size);
  if (switchingFrom) {
    switchingFrom->stackBottom = bottom;
    switchingFrom->stackSize = size;
  }
}

static void prepareStack(FiberContext &context, FiberStack &stack) {
  // A fiber abandoned mid-kernel (a failed block) leaves its frames'
  // redzones poisoned: a reused stack starts clean.
  ASAN_UNPOISON_MEMORY_REGION(stack.base(), stack.size());
  context.stackBottom = stack.base();
  context.stackSize = stack.size();
  context.fakeStack = nullptr;
}
#else
void sympow::emu::fiberStarted(FiberContext *) {}
#endif

#ifdef SYMPOW_EMU_ASM_SWITCH

// void sympow_emu_switch(void **saveSp, void *loadSp): pushes the
// callee-saved registers, MXCSR and the x87 control word, stores the stack
// pointer, loads the other one and pops the same frame from it.
asm(R"(
  .text
  .p2align 4
  .type sympow_emu_switch,@function
sympow_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size sympow_emu_switch, .-sympow_emu_switch
)");

extern "C" void sympow_emu_switch(void **saveSp, void *loadSp);

void Fiber::reset(void (*entry)(), FiberContext *) {
#ifdef SYMPOW_EMU_ASAN_FIBERS
  prepareStack(context, stack);
#endif
  auto top = reinterpret_cast<uintptr_t>(stack.base()) + stack.size();
  top &= ~uintptr_t(15);
  auto *sp = reinterpret_cast<uint64_t *>(top);
  *--sp = 0;                                 // entry's return address
  *--sp = reinterpret_cast<uint64_t>(entry); // popped by `ret`
  for (int i = 0; i < 6; ++i)
    *--sp = 0;                            // rbp, rbx, r12..r15
  uint32_t control[2] = {0x1f80, 0x037f}; // default MXCSR, x87 control
  --sp;
  std::memcpy(sp, control, 8);
  context.sp = sp;
}

void sympow::emu::switchFiber(FiberContext *from, FiberContext *to) {
#ifdef SYMPOW_EMU_ASAN_FIBERS
  startSwitch(from, to);
#endif
  sympow_emu_switch(&from->sp, to->sp);
#ifdef SYMPOW_EMU_ASAN_FIBERS
  fiberStarted(from);
#endif
}

void sympow::emu::exitFiber(FiberContext *from, FiberContext *to) {
#ifdef SYMPOW_EMU_ASAN_FIBERS
  startSwitch(from, to, /*saveFakeStack=*/false);
#endif
  sympow_emu_switch(&from->sp, to->sp);
  std::abort(); // a fiber left for good is never resumed
}

#else

void Fiber::reset(void (*entry)(), FiberContext *returnTo) {
#ifdef SYMPOW_EMU_ASAN_FIBERS
  prepareStack(context, stack);
#endif
  getcontext(&context.context);
  context.context.uc_stack.ss_sp = stack.base();
  context.context.uc_stack.ss_size = stack.size();
  context.context.uc_link = &returnTo->context;
  makecontext(&context.context, entry, 0);
}

void sympow::emu::switchFiber(FiberContext *from, FiberContext *to) {
#ifdef SYMPOW_EMU_ASAN_FIBERS
  startSwitch(from, to);
#endif
  if (swapcontext(&from->context, &to->context) != 0)
    std::abort();
#ifdef SYMPOW_EMU_ASAN_FIBERS
  fiberStarted(from);
#endif
}

void sympow::emu::exitFiber(FiberContext *from, FiberContext *to) {
#ifdef SYMPOW_EMU_ASAN_FIBERS
  startSwitch(from, to, /*saveFakeStack=*/false);
#endif
  swapcontext(&from->context, &to->context);
  std::abort(); // a fiber left for good is never resumed
}

#endif
