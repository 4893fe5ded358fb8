//===- BlockDynamicRows.cpp - Dynamic-row products as static blocks -------===//
//
// The register-tiled contraction kernel needs static extents; a product over
// a sequence of run-time length would otherwise take scalar loops. Here the
// rows are split into whole blocks of static size, one static product each,
// then blocks of 8 rows and single rows for the few left over.
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
      // K may be run-time in the rows' type and static in the weight's.
      if (op.hasPureTensorSemantics() && !op.hasUserDefinedMaps() && a && b &&
          c && a.isDynamicDim(0) && b.hasStaticShape() && c.isDynamicDim(0) &&
          !c.isDynamicDim(1) && isa<FloatType>(c.getElementType()))
        products.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : products) {
      rewriter.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value a = op.getDpsInputOperand(0)->get();
      auto at = cast<RankedTensorType>(a.getType());
      if (at.isDynamicDim(1)) {
        auto bt =
            cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
        a = tensor::CastOp::create(
            rewriter, loc,
            RankedTensorType::get({ShapedType::kDynamic, bt.getDimSize(0)},
                                  at.getElementType()),
            a);
      }
      Value init = op.getDpsInitOperand(0)->get();
      Value rows = tensor::DimOp::create(rewriter, loc, a, 0);
      // Whole blocks, then blocks of 8 rows and single rows for the rest:
      // every product static (a sequence shorter than a block, 40 tokens,
      // would otherwise run one dynamic product in scalar loops).
      Value start = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value result = init;
      SmallVector<int64_t> sizes = {blockRows};
      for (int64_t size : {int64_t(8), int64_t(1)})
        if (size < sizes.back())
          sizes.push_back(size);
      for (int64_t size : sizes) {
        Value block = arith::ConstantIndexOp::create(rewriter, loc, size);
        Value left = arith::SubIOp::create(rewriter, loc, rows, start);
        Value end = arith::AddIOp::create(
            rewriter, loc, start,
            arith::MulIOp::create(
                rewriter, loc,
                arith::DivUIOp::create(rewriter, loc, left, block), block));
        auto loop = scf::ForOp::create(
            rewriter, loc, start, end, block, ValueRange{result},
            [&](OpBuilder &b, Location l, Value iv, ValueRange acc) {
              scf::YieldOp::create(
                  b, l,
                  blockProduct(b, l, op, a, acc[0], iv, b.getIndexAttr(size)));
            });
        result = loop.getResult(0);
        start = end;
      }
      rewriter.replaceOp(op, result);
    }
  }
};

} // namespace
} // namespace kiln
