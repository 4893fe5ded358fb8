//===- BatchMatmulLoop.cpp - Batched products as a loop of products -------===//
//
// The register kernel tiles contractions with one M, N and K dim; a batch
// dim left unit dims in its register tiles, so a linalg.batch_matmul ran
// rows of scalar loops (a vision transformer's attention: 4 GF/s). As an
// scf.forall over the batch of 2-D products, each takes the kernel, and the
// batch gives the threads.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

FailureOr<Operation *> cpu::rewriteBatchMatmulAsLoop(RewriterBase &rewriter,
                                                     linalg::BatchMatmulOp op) {
  if (!op.hasPureTensorSemantics() ||
      !linalg::BatchMatmulOp::isDefaultIndexingMaps(op.getIndexingMaps()))
    return rewriter.notifyMatchFailure(op, "needs tensors, default maps");
  auto at = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto bt = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto ct = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  if (!at || !bt || !ct || !at.hasStaticShape() || !bt.hasStaticShape() ||
      !ct.hasStaticShape() || !isa<FloatType>(ct.getElementType()))
    return rewriter.notifyMatchFailure(op, "needs static float shapes");
  int64_t batch = ct.getDimSize(0);
  SavedSchedule saved = saveSchedule(op);
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Operation *product = nullptr;
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(batch)},
      ValueRange{op.getOutputs()[0]}, std::nullopt,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value i = args[0], acc = args[1];
        auto slice = [&](Value v, RankedTensorType type) {
          SmallVector<OpFoldResult> offsets = {i, b.getIndexAttr(0),
                                               b.getIndexAttr(0)};
          SmallVector<OpFoldResult> sizes = {
              b.getIndexAttr(1), b.getIndexAttr(type.getDimSize(1)),
              b.getIndexAttr(type.getDimSize(2))};
          return tensor::ExtractSliceOp::create(
              b, l,
              RankedTensorType::get(type.getShape().drop_front(),
                                    type.getElementType()),
              v, offsets, sizes,
              SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
        };
        Value a2 = slice(op.getInputs()[0], at),
              b2 = slice(op.getInputs()[1], bt);
        Value c2 = slice(acc, ct);
        product = linalg::MatmulOp::create(b, l, TypeRange{c2.getType()},
                                           ValueRange{a2, b2}, ValueRange{c2});
        restoreSchedule(saved, product);
        auto inParallel = scf::InParallelOp::create(b, l);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(inParallel.getBody());
        tensor::ParallelInsertSliceOp::create(
            b, l, product->getResult(0), acc,
            SmallVector<OpFoldResult>{i, b.getIndexAttr(0), b.getIndexAttr(0)},
            SmallVector<OpFoldResult>{b.getIndexAttr(1),
                                      b.getIndexAttr(ct.getDimSize(1)),
                                      b.getIndexAttr(ct.getDimSize(2))},
            SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
      });
  rewriter.replaceOp(op, forall.getResults());
  return product;
}

} // namespace kiln
