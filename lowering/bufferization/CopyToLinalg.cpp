//===- CopyToLinalg.cpp - memref.copy as linalg.copy ----------------------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_COPYTOLINALG
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {
struct CopyToLinalgPass : impl::CopyToLinalgBase<CopyToLinalgPass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](memref::CopyOp copy) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                                  copy.getTarget());
    });
  }
};
} // namespace
} // namespace kiln
