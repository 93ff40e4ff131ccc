//===- BlockProfile.h - A launch's counted blocks, heaviest first -*- C++
//-*-===//
//
// The emulator counts a kernel's arithmetic once per MLIR block it runs
// (docs/Emulator.md, "Counters"); with a profile (LaunchOptions::
// profileBlocks) it also keeps, per counted block, how often threads ran it
// and what that came to, so that a kernel's hot spots can be found in its
// IR ("Profiles"). sympow-emulate and sympow-bench print them with
// profileTable.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_SUPPORT_BLOCKPROFILE_H
#define SYMPOW_SUPPORT_BLOCKPROFILE_H

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sympow {

/// One counted MLIR block of a launch: its site (the kernel, the block's
/// ordinal, the ops it is nested in and its first ops), how many times
/// threads ran it and the thread operations of its arithmetic.
struct BlockProfile {
  std::string site;
  uint64_t runs = 0;
  uint64_t fp32Fma = 0, fp32Alu = 0, fp64 = 0, sfu = 0, intAlu = 0;
  uint64_t operations() const {
    return fp32Fma + fp32Alu + fp64 + sfu + intAlu;
  }
};

/// The first `top` blocks of `profile` (most operations first) as a table:
/// operations, their share of the launch's, runs, the units, the site.
inline std::string profileTable(const std::string &kernel,
                                const std::vector<BlockProfile> &profile,
                                unsigned top) {
  uint64_t all = 0;
  for (const BlockProfile &p : profile)
    all += p.operations();
  std::string s;
  char line[256];
  std::snprintf(line, sizeof line,
                "  profile of %s: %zu counted blocks, %llu arithmetic thread "
                "operations; the %zu with the most:\n",
                kernel.c_str(), profile.size(),
                static_cast<unsigned long long>(all),
                std::min<size_t>(top, profile.size()));
  s += line;
  s += "           ops  share        runs         fma         f32"
       "         int        sfu  block\n";
  for (size_t i = 0; i < profile.size() && i < top; ++i) {
    const BlockProfile &p = profile[i];
    std::snprintf(line, sizeof line,
                  "    %10llu %5.1f%% %11llu %11llu %11llu %11llu %10llu  ",
                  static_cast<unsigned long long>(p.operations()),
                  all ? 100.0 * double(p.operations()) / double(all) : 0.0,
                  static_cast<unsigned long long>(p.runs),
                  static_cast<unsigned long long>(p.fp32Fma),
                  static_cast<unsigned long long>(p.fp32Alu + p.fp64),
                  static_cast<unsigned long long>(p.intAlu),
                  static_cast<unsigned long long>(p.sfu));
    s += line + p.site + "\n";
  }
  return s;
}

} // namespace sympow

#endif // SYMPOW_SUPPORT_BLOCKPROFILE_H
