// RUN: sympow-opt %s --sympow-loop-annotations | FileCheck %s

// scf-to-cf hands an scf.for's loop annotation on to its back edge as a
// discardable attribute; the pass makes it the branch's own, which the
// translation to LLVM IR turns into !llvm.loop metadata (the bulk copies'
// loops: not unrolled).

#no_unroll = #llvm.loop_annotation<unroll = <disable = true>>

// CHECK: #[[UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK: #[[ANNOTATION:.*]] = #llvm.loop_annotation<unroll = #[[UNROLL]]>
// CHECK-LABEL: llvm.func @loop
// CHECK: llvm.br ^bb1(%{{.*}} : i64){{$}}
// CHECK: llvm.cond_br %{{.*}}, ^bb2, ^bb3{{$}}
// CHECK: llvm.br ^bb1(%{{.*}} : i64) {loop_annotation = #[[ANNOTATION]]}
// CHECK-NOT: llvm.loop_annotation
llvm.func @loop(%n: i64) {
  %c0 = llvm.mlir.constant(0 : i64) : i64
  %c1 = llvm.mlir.constant(1 : i64) : i64
  llvm.br ^bb1(%c0 : i64)
^bb1(%i: i64):
  %next = llvm.add %i, %c1 : i64
  %more = llvm.icmp "slt" %next, %n : i64
  llvm.cond_br %more, ^bb3, ^bb2
^bb3:
  llvm.br ^bb1(%next : i64) {llvm.loop_annotation = #no_unroll}
^bb2:
  llvm.return
}
