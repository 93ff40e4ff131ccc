//===- Ptxas.cpp - Compile PTX with ptxas and read its resource usage -----===//

#include "sympow/Compiler/GPU/Ptxas.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace sympow {

static int64_t toInt(StringRef s) {
  int64_t v = 0;
  s.getAsInteger(10, v);
  return v;
}

std::vector<PtxasUsage> parsePtxasLog(StringRef log) {
  std::vector<PtxasUsage> out;
  Regex entry("Compiling entry function '([^']+)' for '([^']+)'");
  Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill stores, "
              "([0-9]+) bytes spill loads");
  Regex regs("Used ([0-9]+) registers");
  Regex smem("([0-9]+) bytes smem");
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef, 4> m;
    if (entry.match(line, &m)) {
      out.push_back({m[1].str(), m[2].str()});
      continue;
    }
    if (out.empty())
      continue;
    PtxasUsage &u = out.back();
    if (frame.match(line, &m)) {
      u.stackBytes = toInt(m[1]);
      u.spillStoreBytes = toInt(m[2]);
      u.spillLoadBytes = toInt(m[3]);
    }
    if (regs.match(line, &m))
      u.registers = toInt(m[1]);
    if (smem.match(line, &m))
      u.sharedBytes = toInt(m[1]);
  }
  return out;
}

Expected<std::vector<PtxasUsage>>
runPtxas(StringRef ptx, StringRef arch, StringRef cubinPath, StringRef ptxas) {
  SmallString<128> ptxPath, logPath;
  int fd;
  if (std::error_code ec =
          sys::fs::createTemporaryFile("sympow", "ptx", fd, ptxPath))
    return createStringError(ec, "cannot create a temporary PTX file");
  {
    raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << ptx;
  }
  if (std::error_code ec =
          sys::fs::createTemporaryFile("sympow-ptxas", "log", logPath))
    return createStringError(ec, "cannot create a temporary log file");
  std::string archFlag = ("-arch=" + arch).str();
  SmallVector<StringRef> args{ptxas, "-v", archFlag, "-o", cubinPath, ptxPath};
  std::optional<StringRef> redirects[] = {std::nullopt, StringRef(logPath),
                                          StringRef(logPath)};
  std::string err;
  int rc =
      sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &err);
  std::string log;
  if (auto buf = MemoryBuffer::getFile(logPath))
    log = (*buf)->getBuffer().str();
  sys::fs::remove(ptxPath);
  sys::fs::remove(logPath);
  if (rc != 0)
    return createStringError(
        inconvertibleErrorCode(),
        formatv("ptxas failed for {0} (exit {1}): {2}{3}", arch, rc, err, log));
  return parsePtxasLog(log);
}

int64_t countTensorCoreInstructions(StringRef ptx) {
  int64_t n = 0;
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (StringRef line : lines) {
    StringRef t = line.trim();
    if (t.starts_with("mma.sync") || t.starts_with("wgmma.mma_async"))
      ++n;
  }
  return n;
}

} // namespace sympow
