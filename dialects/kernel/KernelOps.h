//===- KernelOps.h - kiln.kernel operations ---------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_KERNEL_KERNELOPS_H
#define KILN_DIALECTS_KERNEL_KERNELOPS_H

#include "dialects/kernel/KernelDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "dialects/kernel/KernelOps.h.inc"

#endif // KILN_DIALECTS_KERNEL_KERNELOPS_H
