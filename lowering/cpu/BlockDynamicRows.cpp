//===- BlockDynamicRows.cpp - Dynamic-row products as static blocks -------===//
//
// The register-tiled contraction kernel needs static extents; a product over
// a sequence of run-time length would otherwise take scalar loops. Here the
// rows are split into whole blocks of static size, one static product each,
// and the few rows left over.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_BLOCKDYNAMICROWS
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// A product of rows [offset, offset + rows) of `a` into the same rows of
/// `acc`, inserted back.
Value blockProduct(OpBuilder &b, Location loc, linalg::MatmulOp op, Value a,
                   Value acc, OpFoldResult offset, OpFoldResult rows) {
  auto at = cast<RankedTensorType>(a.getType());
  auto ct = cast<RankedTensorType>(acc.getType());
  OpFoldResult zero = b.getIndexAttr(0), one = b.getIndexAttr(1);
  SmallVector<OpFoldResult> aSizes = {rows, b.getIndexAttr(at.getDimSize(1))};
  SmallVector<OpFoldResult> cSizes = {rows, b.getIndexAttr(ct.getDimSize(1))};
  Value aBlock = tensor::ExtractSliceOp::create(b, loc, a, {offset, zero},
                                                aSizes, {one, one});
  Value cBlock = tensor::ExtractSliceOp::create(b, loc, acc, {offset, zero},
                                                cSizes, {one, one});
  auto product = linalg::MatmulOp::create(
      b, loc, TypeRange{cBlock.getType()},
      ValueRange{aBlock, op.getDpsInputOperand(1)->get()}, ValueRange{cBlock});
  // The ONNX node's name, for remarks and profiles.
  for (NamedAttribute attr : op->getDiscardableAttrs())
    product->setAttr(attr.getName(), attr.getValue());
  return tensor::InsertSliceOp::create(b, loc, product.getResult(0), acc,
                                       {offset, zero}, cSizes, {one, one});
}

struct BlockDynamicRowsPass : impl::BlockDynamicRowsBase<BlockDynamicRowsPass> {
  using BlockDynamicRowsBase::BlockDynamicRowsBase;

  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> products;
    getOperation().walk([&](linalg::MatmulOp op) {
      auto a =
          dyn_cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
      auto b =
          dyn_cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
      auto c =
          dyn_cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
      if (op.hasPureTensorSemantics() && !op.hasUserDefinedMaps() && a && b &&
          c && a.isDynamicDim(0) && !a.isDynamicDim(1) && b.hasStaticShape() &&
          c.isDynamicDim(0) && !c.isDynamicDim(1) &&
          isa<FloatType>(c.getElementType()))
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : products) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value a = op.getDpsInputOperand(0)->get();
      Value init = op.getDpsInitOperand(0)->get();
      Value rows = tensor::DimOp::create(rewriter, loc, a, 0);
      Value block = arith::ConstantIndexOp::create(rewriter, loc, blockRows);
      Value whole = arith::MulIOp::create(
          rewriter, loc, arith::DivUIOp::create(rewriter, loc, rows, block),
          block);
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      auto loop = scf::ForOp::create(
          rewriter, loc, zero, whole, block, ValueRange{init},
          [&](OpBuilder &b, Location l, Value iv, ValueRange acc) {
            scf::YieldOp::create(b, l,
                                 blockProduct(b, l, op, a, acc[0], iv,
                                              b.getIndexAttr(blockRows)));
          });
      Value rest = arith::SubIOp::create(rewriter, loc, rows, whole);
      Value result =
          blockProduct(rewriter, loc, op, a, loop.getResult(0), whole, rest);
      rewriter.replaceOp(op, result);
    }
  }
};

} // namespace
} // namespace kiln
