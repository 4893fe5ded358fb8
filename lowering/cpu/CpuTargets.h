//===- CpuTargets.h - CPU target registration -------------------*- C++ -*-===//
#ifndef KILN_LOWERING_CPU_CPUTARGETS_H
#define KILN_LOWERING_CPU_CPUTARGETS_H

namespace kiln {
/// Registers the x86_64 and aarch64 backends.
void registerCpuTargets();
} // namespace kiln

#endif // KILN_LOWERING_CPU_CPUTARGETS_H
