//===- Warp.h - Data exchange of warp collectives ---------------*- C++ -*-===//
//
// What the collectives compute once every lane has arrived, as the PTX ISA
// defines them: shfl.sync source lanes, ldmatrix and mma.sync fragments.
// Pure functions over the lanes' data, so they are unit-tested directly.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_EMULATOR_WARP_H
#define SYMPOW_EMULATOR_WARP_H

#include "sympow/Emulator/Half.h"

#include <cstdint>
#include <string>
#include <utility>

namespace sympow::emu::warp {

inline constexpr unsigned kWarpSize = 32;

/// The lane `lane` reads in a gpu.shuffle, and whether that lane is in range
/// (the shuffle's second result). Follows shfl.sync with the clamp value
/// MLIR's NVVM lowering passes: width - 1 (xor, down, idx), 32 - width (up).
std::pair<unsigned, bool> shuffleSource(unsigned lane, uint32_t offset,
                                        uint32_t width, int32_t mode);

/// ldmatrix.sync.aligned.m8n8.x{numTiles}[.trans].b16: rows[8*i + r] is the
/// address of row r of matrix i (16 bytes). out[lane] receives numTiles
/// 32-bit registers. `elementBytes` 4 (tf32 data loaded as b16 pairs) is the
/// same bytes as 2; .trans needs elementBytes 2.
void ldmatrix(const uint8_t *const rows[], int numTiles, bool transpose,
              void *const out[kWarpSize]);

/// Empty if mma.sync of this shape and these types is supported, else why not.
std::string mmaUnsupported(int m, int n, int k, int32_t abType, int32_t cType);

/// D = A * B + C for one warp; a[lane] etc. point at the lane's fragment
/// elements in register order (the flattened nvgpu vector operand).
void mma(int m, int n, int k, int32_t abType, int32_t cType,
         const void *const a[kWarpSize], const void *const b[kWarpSize],
         const void *const c[kWarpSize], void *const d[kWarpSize]);

} // namespace sympow::emu::warp

#endif // SYMPOW_EMULATOR_WARP_H
