//===- KernelDialect.h - kiln.kernel dialect --------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_KERNEL_KERNELDIALECT_H
#define KILN_DIALECTS_KERNEL_KERNELDIALECT_H

#include "mlir/IR/Dialect.h"

#include "dialects/kernel/KernelDialect.h.inc"

#endif // KILN_DIALECTS_KERNEL_KERNELDIALECT_H
