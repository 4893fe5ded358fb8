//===- KernelAttrs.h - kiln.kernel attributes -------------------*- C++ -*-===//
#ifndef KILN_DIALECTS_KERNEL_KERNELATTRS_H
#define KILN_DIALECTS_KERNEL_KERNELATTRS_H

#include "dialects/kernel/KernelDialect.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "dialects/kernel/KernelAttrs.h.inc"

#endif // KILN_DIALECTS_KERNEL_KERNELATTRS_H
