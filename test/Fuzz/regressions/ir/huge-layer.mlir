// select-formulation on a layer whose state is huge (D = C(47, 32), e = 2^20):
// the GPU model converted grid dims beyond uint32 (UBSan, found by
// sympow-fuzz-ir); they saturate now.
func.func @layer(%q: tensor<1x4096x1x16xf32>, %k: tensor<1x4096x1x16xf32>,
                 %v: tensor<1x4096x1x1048576xf32>) -> tensor<1x4096x1x1048576xf32> {
  %y = sympow.layer power = 32
      q(%q : tensor<1x4096x1x16xf32>) k(%k : tensor<1x4096x1x16xf32>)
      v(%v : tensor<1x4096x1x1048576xf32>)
      -> tensor<1x4096x1x1048576xf32>
  return %y : tensor<1x4096x1x1048576xf32>
}
