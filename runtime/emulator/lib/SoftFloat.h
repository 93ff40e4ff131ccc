//===- SoftFloat.h - bf16 helpers the JIT-compiled kernels call -*- C++ -*-===//

#ifndef SYMPOW_EMULATOR_SOFTFLOAT_H
#define SYMPOW_EMULATOR_SOFTFLOAT_H

namespace sympow::emu {

/// __truncsfbf2 and __truncdfbf2: the bf16 result in the low 16 bits.
float truncSFtoBF(float x);
float truncDFtoBF(double x);

} // namespace sympow::emu

#endif // SYMPOW_EMULATOR_SOFTFLOAT_H
