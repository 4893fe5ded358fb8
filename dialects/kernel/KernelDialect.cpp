//===- KernelDialect.cpp - kiln.kernel dialect registration ---------------===//

#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelAttrs.h"
#include "dialects/kernel/KernelOps.h"

using namespace mlir;
using namespace kiln::kernel;

#include "dialects/kernel/KernelDialect.cpp.inc"

void KernelDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/kernel/KernelOps.cpp.inc"
      >();
  registerAttributes();
}
