//===- MarkPadInteriors.cpp - Record what a padding fill's insert covers --===//
//
// A padded tensor is a fill of the whole padded shape with the interior
// inserted over it. On tensors the insert covers the interior whole, by
// definition; bufferized, what writes it may be any producer writing in
// place (a convolution's loop nest, say), where that is no longer easy to
// see. The fill records the interior here, as `kiln.pad_interior` (offsets
// then sizes), for kiln-fill-pad-borders to fill only the border on
// buffers, where doing so costs no aliasing analysis.
//
//===----------------------------------------------------------------------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_MARKPADINTERIORS
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

struct MarkPadInteriorsPass : impl::MarkPadInteriorsBase<MarkPadInteriorsPass> {
  void runOnOperation() override {
    getOperation().walk([&](tensor::InsertSliceOp op) {
      auto fill = op.getDest().getDefiningOp<linalg::FillOp>();
      if (!fill || !fill->hasOneUse() || !op.getDestType().hasStaticShape() ||
          !op.getSourceType().hasStaticShape() ||
          op.getSourceType().getRank() != op.getDestType().getRank() ||
          !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>() ||
          !llvm::all_of(op.getStaticStrides(),
                        [](int64_t s) { return s == 1; }) ||
          llvm::any_of(op.getStaticOffsets(), ShapedType::isDynamic))
        return;
      SmallVector<int64_t> interior(op.getStaticOffsets());
      llvm::append_range(interior, op.getSourceType().getShape());
      fill->setAttr(kPadInteriorAttr,
                    DenseI64ArrayAttr::get(op.getContext(), interior));
    });
  }
};

} // namespace
} // namespace kiln
