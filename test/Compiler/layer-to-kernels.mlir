// RUN: sympow-opt %s --sympow-layer-to-kernels | FileCheck %s
// RUN: sympow-opt %s --sympow-layer-to-kernels --sympow-gpu-to-binary="chip=sm_90a format=isa" | FileCheck %s --check-prefix=PTX

// The chunked layer of examples/layer.mlir, a recurrent decoding step and a
// warped attention layer: each gets its formulation's kernels; two layers of
// one variant share them.

// CHECK: module attributes {gpu.container_module}
// CHECK-LABEL: func @layers
// CHECK: sympow.layer {{.*}} formulation = <chunked, chunk = 64> {{.*}}{sympow.kernels = @[[CHUNKED:sympow_p2_d64_e64_hq8_h4_bf16_gdata_learned_r64i_chunked64]]}
// CHECK: sympow.layer {{.*}} formulation = <chunked, chunk = 64> {{.*}}{sympow.kernels = @[[CHUNKED]]}
// CHECK: sympow.layer {{.*}} formulation = <recurrent> {{.*}}{sympow.kernels = @[[RECURRENT:sympow_p4_d32_e32_hq2_h2_f16_gnone_none_recurrent]]}
// CHECK: sympow.layer {{.*}} schedule = <warped, length = 256> formulation = <attention> {{.*}}{sympow.kernels = @[[ATTENTION:sympow_p2_d64_e32_hq4_h1_f32_gnone_warped_r32h_L256_fma_attention]]}

// CHECK: gpu.module @[[CHUNKED]]
// CHECK: gpu.func @chunk_counts({{.*}}) {{.*}}kernel
// The counts as a warp scan: shuffles up, no serial loop in one thread.
// CHECK: gpu.shuffle up
// CHECK: gpu.barrier
// CHECK: gpu.func @chunk_keys({{.*}}) {{.*}}kernel
// CHECK-SAME: tokens_per_block = 16
// CHECK: gpu.func @chunk_state_pass({{.*}}) {{.*}}kernel
// CHECK-SAME: blocks_x = 33
// CHECK: gpu.func @chunk_output({{.*}}) kernel
// CHECK: gpu.module @[[RECURRENT]]
// CHECK: gpu.func @recurrent_state({{.*}}) {{.*}}kernel
// CHECK-SAME: blocks_x = 126
// CHECK: gpu.func @recurrent_output({{.*}}) {{.*}}kernel
// CHECK-SAME: tokens_per_block = 1
// CHECK: gpu.module @[[ATTENTION]]
// CHECK: gpu.func @attention({{.*}}) kernel
// CHECK-NOT: gpu.module

// PTX: gpu.binary @sympow_{{[A-Za-z0-9_]+}}_chunked64 [
// PTX-SAME: .entry chunk_counts
// PTX-SAME: .entry chunk_keys
// PTX-SAME: .entry chunk_state_pass
// PTX-SAME: .entry chunk_output
// PTX: gpu.binary @sympow_{{[A-Za-z0-9_]+}}_recurrent [
// PTX-SAME: .entry recurrent_state
// PTX-SAME: .entry recurrent_output
// PTX: gpu.binary @sympow_{{[A-Za-z0-9_]+}}_attention [
// PTX-SAME: .entry attention

func.func @layers(%q: tensor<2x512x8x64xbf16>, %k: tensor<2x512x4x64xbf16>,
                  %v: tensor<2x512x4x64xbf16>, %g: tensor<2x512x4xf32>,
                  %b: tensor<2x512x4xf32>,
                  %q1: tensor<4x1x2x32xf16>, %k1: tensor<4x1x2x32xf16>,
                  %v1: tensor<4x1x2x32xf16>, %s: tensor<4x2x52360x32xf32>,
                  %z: tensor<4x2x52360xf32>, %c: tensor<4x2xf64>,
                  %qa: tensor<1x100x4x64xf32>, %ka: tensor<1x100x1x64xf32>,
                  %va: tensor<1x100x1x32xf32>) {
  %y0 = sympow.layer power = 2 q(%q : tensor<2x512x8x64xbf16>)
      k(%k : tensor<2x512x4x64xbf16>) v(%v : tensor<2x512x4x64xbf16>)
      log_g(%g : tensor<2x512x4xf32>) beta(%b : tensor<2x512x4xf32>)
      rotary = <dims = 64> schedule = <learned>
      formulation = <chunked, chunk = 64> -> tensor<2x512x8x64xbf16>
  %y1 = sympow.layer power = 2 q(%q : tensor<2x512x8x64xbf16>)
      k(%k : tensor<2x512x4x64xbf16>) v(%v : tensor<2x512x4x64xbf16>)
      log_g(%g : tensor<2x512x4xf32>) beta(%b : tensor<2x512x4xf32>)
      rotary = <dims = 64> schedule = <learned>
      formulation = <chunked, chunk = 64> -> tensor<2x512x8x64xbf16>
  %y2, %s2, %z2, %c2 = sympow.layer power = 4 q(%q1 : tensor<4x1x2x32xf16>)
      k(%k1 : tensor<4x1x2x32xf16>) v(%v1 : tensor<4x1x2x32xf16>)
      initial_state(%s, %z, %c : tensor<4x2x52360x32xf32>,
                    tensor<4x2x52360xf32>, tensor<4x2xf64>)
      formulation = <recurrent>
      -> tensor<4x1x2x32xf16>, tensor<4x2x52360x32xf32>,
         tensor<4x2x52360xf32>, tensor<4x2xf64>
  %y3 = sympow.layer power = 2 q(%qa : tensor<1x100x4x64xf32>)
      k(%ka : tensor<1x100x1x64xf32>) v(%va : tensor<1x100x1x32xf32>)
      rotary = <dims = 32, layout = half> schedule = <warped, length = 256>
      formulation = <attention> -> tensor<1x100x4x32xf32>
  return
}
