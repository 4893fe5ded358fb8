//===- ConvToMatmul.cpp - Convolutions as im2col and a product ------------===//

#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_CONVTOMATMUL
#include "lowering/gpu/Passes.h.inc"

namespace {

struct ConvToMatmulPass : impl::ConvToMatmulBase<ConvToMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::Conv2DNchwFchwOp> convs;
    getOperation().walk(
        [&](linalg::Conv2DNchwFchwOp op) { convs.push_back(op); });
    for (linalg::Conv2DNchwFchwOp op : convs)
      rewrite(op);
  }

  void rewrite(linalg::Conv2DNchwFchwOp op) {
    if (!op.hasPureTensorSemantics())
      return;
    auto xt = cast<RankedTensorType>(op.getInputs()[0].getType());
    auto wt = cast<RankedTensorType>(op.getInputs()[1].getType());
    auto yt = cast<RankedTensorType>(op.getOutputs()[0].getType());
    Type f32 = Float32Type::get(&getContext());
    if (!xt.hasStaticShape() || !wt.hasStaticShape() || !yt.hasStaticShape() ||
        xt.getDimSize(0) != 1 || xt.getElementType() != f32 ||
        wt.getElementType() != f32 || yt.getElementType() != f32)
      return;
    int64_t c = wt.getDimSize(1), kh = wt.getDimSize(2), kw = wt.getDimSize(3);
    int64_t f = wt.getDimSize(0), oh = yt.getDimSize(2), ow = yt.getDimSize(3);
    int64_t k = c * kh * kw, p = oh * ow;
    SmallVector<int64_t> s(op.getStrides().getValues<int64_t>());
    SmallVector<int64_t> d(op.getDilations().getValues<int64_t>());
    OpBuilder b(op);
    Location loc = op.getLoc();
    auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(bb, loc, v);
    };
    Value x = op.getInputs()[0];
    Value colInit =
        tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{k, p}, f32);
    AffineMap id = b.getMultiDimIdentityMap(2);
    auto col = linalg::GenericOp::create(
        b, loc, colInit.getType(), ValueRange(), ValueRange{colInit},
        ArrayRef<AffineMap>{id},
        SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
        [&](OpBuilder &gb, Location, ValueRange) {
          Value ki = linalg::IndexOp::create(gb, loc, 0);
          Value pi = linalg::IndexOp::create(gb, loc, 1);
          auto div = [&](Value v, int64_t by) {
            return arith::DivUIOp::create(gb, loc, v, cst(gb, by)).getResult();
          };
          auto rem = [&](Value v, int64_t by) {
            return arith::RemUIOp::create(gb, loc, v, cst(gb, by)).getResult();
          };
          auto mulAdd = [&](Value a, int64_t m, Value bb, int64_t n) {
            Value l = arith::MulIOp::create(gb, loc, a, cst(gb, m));
            Value r = arith::MulIOp::create(gb, loc, bb, cst(gb, n));
            return arith::AddIOp::create(gb, loc, l, r).getResult();
          };
          Value ci = div(ki, kh * kw), r = rem(ki, kh * kw);
          Value khi = div(r, kw), kwi = rem(r, kw);
          Value ohi = div(pi, ow), owi = rem(pi, ow);
          Value ih = mulAdd(ohi, s[0], khi, d[0]);
          Value iw = mulAdd(owi, s[1], kwi, d[1]);
          Value v = tensor::ExtractOp::create(
              gb, loc, x, ValueRange{cst(gb, 0), ci, ih, iw});
          linalg::YieldOp::create(gb, loc, v);
        });
    Value w2 = tensor::CollapseShapeOp::create(
        b, loc, op.getInputs()[1],
        ArrayRef<ReassociationIndices>{{0}, {1, 2, 3}});
    Value y2 = tensor::CollapseShapeOp::create(
        b, loc, op.getOutputs()[0],
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    auto mm = linalg::MatmulOp::create(b, loc, ValueRange{w2, col.getResult(0)},
                                       ValueRange{y2});
    Value y = tensor::ExpandShapeOp::create(
        b, loc, yt, mm.getResult(0),
        ArrayRef<ReassociationIndices>{{0, 1}, {2, 3}});
    (void)f;
    op.getResult(0).replaceAllUsesWith(y);
    op->erase();
  }
};

} // namespace
} // namespace kiln
