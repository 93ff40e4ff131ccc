//===- Fiber.cpp - Emulated threads as ucontext fibers --------------------===//

#include "Fiber.h"

#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

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

void Fiber::reset(void (*entry)(), ucontext_t *returnTo) {
  getcontext(&context);
  context.uc_stack.ss_sp = stack.base();
  context.uc_stack.ss_size = stack.size();
  context.uc_link = returnTo;
  makecontext(&context, entry, 0);
}

void sympow::emu::switchFiber(ucontext_t *from, ucontext_t *to) {
  if (swapcontext(from, to) != 0)
    std::abort();
}
