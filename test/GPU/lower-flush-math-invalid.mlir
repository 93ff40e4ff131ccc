// sympow-lower-flush-math takes a thread's scalars and vectors: tiles are
// distributed first (--sympow-convert-tile-to-gpu).
// RUN: sympow-opt %s --sympow-lower-flush-math -verify-diagnostics

#b = #sympow_tile.blocked<threads = 4, per_thread = 2>
gpu.module @m {
  gpu.func @tile(%x: tensor<8xf32, #b>) -> tensor<8xf32, #b> {
    // expected-error @+1 {{is lowered on f32 scalars and vectors only (lower the tile kernel first)}}
    %e = sympow_tile.log2_ftz %x : tensor<8xf32, #b>
    gpu.return %e : tensor<8xf32, #b>
  }
}
