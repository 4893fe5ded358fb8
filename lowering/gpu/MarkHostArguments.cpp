//===- MarkHostArguments.cpp - Which entry arguments are inputs -----------===//

#include "lowering/gpu/Passes.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_MARKHOSTARGUMENTS
#include "lowering/gpu/Passes.h.inc"

namespace {
struct MarkHostArgumentsPass
    : impl::MarkHostArgumentsBase<MarkHostArgumentsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
      if (isa<TensorType>(func.getArgument(i).getType()))
        func.setArgAttr(i, kCopyInAttr, UnitAttr::get(&getContext()));
  }
};
} // namespace
} // namespace kiln
