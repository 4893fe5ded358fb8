//===- PixelRowProduct.cpp - Convolutions with pixels as product rows -----===//
//
// A convolution with few output pixels (a 7x7 or 14x14 feature map) and
// many channels makes a poor im2col product in NCHW: its columns are the
// pixels, so the register tiles sweep 49 columns in 32 + 16 + 1 and read
// the megabytes of weights once per column block, across rows a whole
// filter apart that the prefetchers do not follow from page to page. The
// transposed product takes the pixels as rows and the channels as vector
// columns; packed at compile time, each panel of channel columns is one
// contiguous stream read once.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

std::pair<Operation *, Value>
cpu::buildPixelRowProduct(OpBuilder &b, Location loc, Value cols,
                          const ConstantData &w, Value out, int64_t panel) {
  MLIRContext *ctx = b.getContext();
  auto colsType = cast<RankedTensorType>(cols.getType());
  Type elt = colsType.getElementType();
  int64_t k = colsType.getDimSize(0), p = colsType.getDimSize(1);
  int64_t f = cast<RankedTensorType>(out.getType()).getDimSize(0);
  if (panel <= 0 || f % panel != 0)
    panel = f;
  int64_t panels = f / panel;
  // wt[j][kk][c] = w[j * panel + c][kk].
  std::vector<double> wt(k * f);
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t c = 0; c < panel; ++c)
        wt[(j * k + kk) * panel + c] = w.getDouble((j * panel + c) * k + kk);
  auto wtType = RankedTensorType::get({panels, k, panel}, elt);
  Value wtConst = arith::ConstantOp::create(
      b, loc,
      cast<TypedAttr>(createFloatConstantAttr(wtType, wt, "weights_panels")));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
  AffineExpr dm, dn, dk;
  bindDims(ctx, dm, dn, dk);
  // The product reads the columns transposed: a register tile broadcasts
  // mr adjacent pixels of one gathered row.
  Attribute maps = b.getAffineMapArrayAttr(
      {AffineMap::get(3, 0, {dk, dm}, ctx), AffineMap::get(3, 0, {dk, dn}, ctx),
       AffineMap::get(3, 0, {dm, dn}, ctx)});
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  Operation *product = nullptr;
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{index(panels)},
      ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{p, f}, elt)
                     .getResult()},
      std::nullopt, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value j = args[0], acc = args[1];
        Value col = affine::AffineApplyOp::create(
            nb, l, AffineMap::get(1, 0, dm * panel), j);
        Value weights = tensor::ExtractSliceOp::create(
            nb, l, RankedTensorType::get({k, panel}, elt), wtConst,
            SmallVector<OpFoldResult>{j, index(0), index(0)},
            SmallVector<OpFoldResult>{index(1), index(k), index(panel)},
            SmallVector<OpFoldResult>(3, index(1)));
        SmallVector<OpFoldResult> offsets = {index(0), col},
                                  sizes = {index(p), index(panel)},
                                  unit = {index(1), index(1)};
        Value slot =
            tensor::ExtractSliceOp::create(nb, l, acc, offsets, sizes, unit);
        Value init = linalg::FillOp::create(nb, l, zero, slot).getResult(0);
        product = linalg::MatmulOp::create(
            nb, l, TypeRange{init.getType()}, ValueRange{cols, weights},
            ValueRange{init},
            ArrayRef<NamedAttribute>{nb.getNamedAttr("indexing_maps", maps)});
        auto inParallel = scf::InParallelOp::create(nb, l);
        OpBuilder::InsertionGuard guard(nb);
        nb.setInsertionPointToStart(inParallel.getBody());
        tensor::ParallelInsertSliceOp::create(nb, l, product->getResult(0), acc,
                                              offsets, sizes, unit);
      });
  // out[f, p] += product[p, f].
  AffineExpr df, dp;
  bindDims(ctx, df, dp);
  Value sum =
      linalg::GenericOp::create(
          b, loc, TypeRange{out.getType()}, ValueRange{forall.getResult(0)},
          ValueRange{out},
          ArrayRef<AffineMap>{AffineMap::get(2, 0, {dp, df}, ctx),
                              AffineMap::getMultiDimIdentityMap(2, ctx)},
          SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                arith::AddFOp::create(nb, l, args[1], args[0]).getResult());
          })
          .getResult(0);
  return {product, sum};
}

} // namespace kiln
