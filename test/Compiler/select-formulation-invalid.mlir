// RUN: not sympow-opt %s --sympow-select-formulation="chunk-size=0" 2>&1 | FileCheck %s

// CHECK: sympow-select-formulation: chunk-size must be >= 1, got 0
module {}
