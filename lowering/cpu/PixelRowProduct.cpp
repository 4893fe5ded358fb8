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

#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln {

Value cpu::perChannelInit(Value out) {
  auto bcast = out.getDefiningOp<linalg::BroadcastOp>();
  if (!bcast || bcast.getDimensions() != ArrayRef<int64_t>{0, 2, 3})
    return {};
  return bcast.getInput();
}

bool cpu::isZeroFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  return fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
}

using cpu::isZeroFill;
using cpu::perChannelInit;

namespace {

/// The per-channel vector a batch-1 grouped convolution's output ([1, G,
/// Fg, OH, OW], an expanded [1, F, ...] tensor) starts from, if it is one: a
/// broadcast over the image, or the generic that copies a [F] vector along
/// the pixels (elementwise dims collapsed: [1, F, OH * OW]).
Value perChannelInitGrouped(Value out) {
  auto expand = out.getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand)
    return {};
  if (Value bias = perChannelInit(expand.getSrc()))
    return bias;
  auto generic = expand.getSrc().getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops() ||
      generic.getNumLoops() < 2)
    return {};
  Value in = generic.getDpsInputs()[0];
  auto inType = dyn_cast<RankedTensorType>(in.getType());
  AffineMap inMap = generic.getIndexingMapsArray()[0];
  auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
  if (!inType || inType.getRank() != 1 || inMap.getNumResults() != 1 ||
      inMap.getResult(0) != getAffineDimExpr(1, generic.getContext()) ||
      !generic.getIndexingMapsArray()[1].isIdentity() ||
      yield.getNumOperands() != 1 ||
      yield.getOperand(0) != generic.getBody()->getArgument(0))
    return {};
  return in;
}

/// out[0, f, h, w] = t[h * OW + w, f], fused with the op that alone reads
/// it when that op is elementwise.
Value transposeInto(RewriterBase &rewriter, Location loc, Value t,
                    RankedTensorType ot) {
  int64_t f = ot.getDimSize(1), oh = ot.getDimSize(2), ow = ot.getDimSize(3);
  Type elt = ot.getElementType();
  MLIRContext *ctx = rewriter.getContext();
  Value t3 = tensor::ExpandShapeOp::create(
      rewriter, loc, RankedTensorType::get({oh, ow, f}, elt), t,
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
  AffineExpr d0, d1, d2, d3;
  bindDims(ctx, d0, d1, d2, d3);
  Value empty = tensor::EmptyOp::create(rewriter, loc, ot.getShape(), elt);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{ot}, ValueRange{t3}, ValueRange{empty},
             ArrayRef<AffineMap>{AffineMap::get(4, 0, {d2, d3, d1}, ctx),
                                 AffineMap::getMultiDimIdentityMap(4, ctx)},
             SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

/// Fuses the generic making `v` into the all-parallel generic that alone
/// reads it.
void fuseWithElementwiseUser(RewriterBase &rewriter, Value v) {
  if (!v.hasOneUse())
    return;
  OpOperand &use = *v.getUses().begin();
  auto consumer = dyn_cast<linalg::GenericOp>(use.getOwner());
  if (!consumer || consumer.getNumParallelLoops() != consumer.getNumLoops() ||
      !linalg::areElementwiseOpsFusable(&use))
    return;
  // The fused op goes where the consumer is, after all its operands.
  Operation *producer = v.getDefiningOp();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(consumer);
  FailureOr<linalg::ElementwiseOpFusionResult> fused =
      linalg::fuseElementwiseOps(rewriter, &use);
  if (failed(fused))
    return;
  for (auto [original, replacement] : fused->replacements)
    rewriter.replaceAllUsesExcept(original, replacement, fused->fusedOp);
  rewriter.eraseOp(consumer);
  if (producer->use_empty())
    rewriter.eraseOp(producer);
}

} // namespace

std::pair<Operation *, Value>
cpu::buildPixelRowProduct(OpBuilder &b, Location loc, Value cols,
                          const ConstantData &w, int64_t f, int64_t panel,
                          Value bias, int64_t groups, Operation **lastProduct) {
  MLIRContext *ctx = b.getContext();
  auto colsType = cast<RankedTensorType>(cols.getType());
  Type elt = colsType.getElementType();
  int64_t k = colsType.getDimSize(0) / groups, p = colsType.getDimSize(1);
  int64_t groupChannels = f / groups;
  // Ungrouped channels past the last whole panel make a last panel of
  // their own, zero-padded (its product reads only theirs); a group's
  // channels are whole panels or one.
  if (panel <= 0 || panel > f || (groups > 1 && groupChannels % panel != 0))
    panel = groupChannels;
  int64_t whole = f / panel, rest = f - whole * panel;
  int64_t panels = whole + (rest ? 1 : 0);
  // wt[j][kk][c] = w[j * panel + c][kk], zero past the last channel.
  std::vector<double> wt(k * panels * panel, 0.0);
  for (int64_t j = 0; j < panels; ++j)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t c = 0; c < panel && j * panel + c < f; ++c)
        wt[(j * k + kk) * panel + c] = w.getDouble((j * panel + c) * k + kk);
  auto wtType = RankedTensorType::get({panels, k, panel}, elt);
  Value wtConst = arith::ConstantOp::create(
      b, loc,
      cast<TypedAttr>(createFloatConstantAttr(wtType, wt, "weights_panels")));
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elt));
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  // Each panel starts from its `width` channels' bias from `col` (a
  // register tile reads one row of it), or from zero.
  auto initOf = [&](OpBuilder &nb, Location l, Value slot, OpFoldResult col,
                    int64_t width) -> Value {
    if (!bias)
      return linalg::FillOp::create(nb, l, zero, slot).getResult(0);
    Value channels = tensor::ExtractSliceOp::create(
        nb, l, RankedTensorType::get({width}, elt), bias,
        ArrayRef<OpFoldResult>{col}, ArrayRef<OpFoldResult>{index(width)},
        ArrayRef<OpFoldResult>{index(1)});
    return linalg::BroadcastOp::create(nb, l, channels, slot,
                                       ArrayRef<int64_t>{0})
        ->getResult(0);
  };
  AffineExpr dm, dn, dk;
  bindDims(ctx, dm, dn, dk);
  // The product reads the columns transposed: a register tile broadcasts
  // mr adjacent pixels of one gathered row.
  Attribute maps = b.getAffineMapArrayAttr(
      {AffineMap::get(3, 0, {dk, dm}, ctx), AffineMap::get(3, 0, {dk, dn}, ctx),
       AffineMap::get(3, 0, {dm, dn}, ctx)});
  // Panel j's product (`width` channels from `col`) on the pixel rows
  // `a`, from the channels' slot of `acc`.
  SmallVector<OpFoldResult> unit = {index(1), index(1)};
  auto slotOffsets = [&](OpFoldResult col) {
    return SmallVector<OpFoldResult>{index(0), col};
  };
  auto slotSizes = [&](int64_t width) {
    return SmallVector<OpFoldResult>{index(p), index(width)};
  };
  auto panelProduct = [&](OpBuilder &nb, Location l, Value a, OpFoldResult j,
                          OpFoldResult col, int64_t width,
                          Value acc) -> Operation * {
    Value weights = tensor::ExtractSliceOp::create(
        nb, l, RankedTensorType::get({k, width}, elt), wtConst,
        SmallVector<OpFoldResult>{j, index(0), index(0)},
        SmallVector<OpFoldResult>{index(1), index(k), index(width)},
        SmallVector<OpFoldResult>(3, index(1)));
    Value slot = tensor::ExtractSliceOp::create(nb, l, acc, slotOffsets(col),
                                                slotSizes(width), unit);
    Value init = initOf(nb, l, slot, col, width);
    return linalg::MatmulOp::create(
        nb, l, TypeRange{init.getType()}, ValueRange{a, weights},
        ValueRange{init},
        ArrayRef<NamedAttribute>{nb.getNamedAttr("indexing_maps", maps)});
  };
  Operation *product = nullptr;
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{index(whole)},
      ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{p, f}, elt)
                     .getResult()},
      std::nullopt, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value j = args[0], acc = args[1];
        Value col = affine::AffineApplyOp::create(
            nb, l, AffineMap::get(1, 0, dm * panel), j);
        // A grouped product reads its group's rows of the columns.
        Value a = cols;
        if (groups > 1) {
          Value row = affine::AffineApplyOp::create(
              nb, l,
              AffineMap::get(1, 0, dm.floorDiv(groupChannels / panel) * k), j);
          a = tensor::ExtractSliceOp::create(
              nb, l, RankedTensorType::get({k, p}, elt), cols,
              SmallVector<OpFoldResult>{row, index(0)},
              SmallVector<OpFoldResult>{index(k), index(p)},
              SmallVector<OpFoldResult>(2, index(1)));
        }
        product = panelProduct(nb, l, a, j, col, panel, acc);
        auto inParallel = scf::InParallelOp::create(nb, l);
        OpBuilder::InsertionGuard guard(nb);
        nb.setInsertionPointToStart(inParallel.getBody());
        tensor::ParallelInsertSliceOp::create(nb, l, product->getResult(0), acc,
                                              slotOffsets(col),
                                              slotSizes(panel), unit);
      });
  Value result = forall.getResult(0);
  if (rest > 0) {
    // The last panel's channels, [whole * panel, f).
    OpFoldResult col = index(whole * panel);
    Operation *last =
        panelProduct(b, loc, cols, index(whole), col, rest, result);
    if (lastProduct)
      *lastProduct = last;
    result =
        tensor::InsertSliceOp::create(b, loc, last->getResult(0), result,
                                      slotOffsets(col), slotSizes(rest), unit);
  }
  return {product, result};
}

Operation *cpu::replaceConvByPixelRows(RewriterBase &rewriter,
                                       linalg::Conv2DNchwFchwOp conv,
                                       Value cols2, const ConstantData &w,
                                       int64_t panel) {
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value out = conv.getOutputs()[0];
  auto ot = cast<RankedTensorType>(out.getType());
  int64_t f = ot.getDimSize(1);
  Value bias = perChannelInit(out);
  Operation *last = nullptr;
  auto [product, transposed] =
      buildPixelRowProduct(rewriter, loc, cols2, w, f, panel, bias, 1, &last);
  inheritSchedule(conv, product);
  if (last)
    inheritSchedule(conv, last);
  if (bias || isZeroFill(out)) {
    // The product started from the bias: the output is its transpose,
    // computed with the activation after it in one pass (a 7x7 map's
    // rows of 7 pixels made the bias broadcast, the sum and the
    // activation three scalar passes over the output).
    Value result = transposeInto(rewriter, loc, transposed, ot);
    rewriter.replaceOp(conv, result);
    fuseWithElementwiseUser(rewriter, result);
    return product;
  }
  SmallVector<ReassociationIndices> outRe = {{0, 1}, {2, 3}};
  Value out2 = tensor::CollapseShapeOp::create(rewriter, loc, out, outRe);
  // out[f, p] += product[p, f].
  AffineExpr df, dp;
  bindDims(ctx, df, dp);
  Value sum =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{out2.getType()}, ValueRange{transposed},
          ValueRange{out2},
          ArrayRef<AffineMap>{AffineMap::get(2, 0, {dp, df}, ctx),
                              AffineMap::getMultiDimIdentityMap(2, ctx)},
          SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
          [](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                arith::AddFOp::create(nb, l, args[1], args[0]).getResult());
          })
          .getResult(0);
  rewriter.replaceOp(
      conv, tensor::ExpandShapeOp::create(rewriter, loc, ot, sum, outRe));
  return product;
}

Operation *cpu::replaceGroupedConvByPixelRows(RewriterBase &rewriter,
                                              linalg::Conv2DNgchwGfchwOp conv,
                                              Value cols, const ConstantData &w,
                                              int64_t panel) {
  // out [1, G, Fg, OH, OW], an expanded [1, F, OH, OW] bias broadcast or a
  // zero fill.
  Value out = conv.getOutputs()[0];
  auto ot5 = cast<RankedTensorType>(out.getType());
  int64_t groups = ot5.getDimSize(1);
  auto ot = RankedTensorType::get(
      {1, groups * ot5.getDimSize(2), ot5.getDimSize(3), ot5.getDimSize(4)},
      ot5.getElementType());
  Value bias = perChannelInitGrouped(out);
  if (!bias && !isZeroFill(out))
    return nullptr;
  Location loc = conv.getLoc();
  auto [product, transposed] = buildPixelRowProduct(
      rewriter, loc, cols, w, ot.getDimSize(1), panel, bias, groups);
  inheritSchedule(conv, product);
  Value result = transposeInto(rewriter, loc, transposed, ot);
  SmallVector<ReassociationIndices> re = {{0}, {1, 2}, {3}, {4}};
  Value expanded =
      tensor::ExpandShapeOp::create(rewriter, loc, ot5, result, re);
  // The grouped result is read through a collapse back to [1, F, OH, OW]:
  // those read the transpose directly, so that it fuses with the
  // elementwise op after it.
  for (OpOperand &use : llvm::make_early_inc_range(conv->getUses()))
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(use.getOwner()))
      if (collapse.getType() == ot && collapse.getReassociationIndices() == re)
        rewriter.replaceOp(collapse, result);
  rewriter.replaceOp(conv, expanded);
  if (expanded.use_empty())
    rewriter.eraseOp(expanded.getDefiningOp());
  fuseWithElementwiseUser(rewriter, result);
  return product;
}

} // namespace kiln
