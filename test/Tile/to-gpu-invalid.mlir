// Tile ops belong in tile kernels.
// RUN: sympow-opt %s --sympow-convert-tile-to-gpu -verify-diagnostics

func.func @outside() -> index {
  // expected-error @+1 {{sympow_tile op outside a tile kernel (a gpu.func with sympow_tile.kernel)}}
  %x = sympow_tile.program_id 0
  return %x : index
}
