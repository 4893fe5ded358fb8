//===- GroupedConv.cpp - Grouped convolutions as contractions -------------===//
//
// A grouped convolution (ResNeXt, RegNet) is G small convolutions side by
// side. Each group's im2col product has few rows (its 8 to 32 output
// channels) and, at 14x14 or 7x7, few pixel columns, which the 6 x 16
// register tiles cover in rests (32 rows: 5 tiles and 2 rows; 49 columns:
// 3 tiles and 1). With its weights constant, the transposed product takes
// the pixels as rows and a group's channels as whole vector columns, from
// one gather of all groups' columns.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "dialects/graph/ConstantData.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace kiln {

using namespace kiln::cpu;

namespace {

/// One gather of every group's columns, [G * Cg * KH * KW, OH * OW], and
/// the pixel-row product per panel; null where it does not apply.
Operation *rewriteByPixelRows(RewriterBase &rewriter,
                              linalg::Conv2DNgchwGfchwOp conv, int64_t panel) {
  auto in = cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto w = cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (in.getDimSize(0) != 1 || !out.getElementType().isF32() ||
      w.getDimSize(1) % panel != 0)
    return nullptr;
  std::optional<ConstantData> weights =
      getGroupedConvWeights(conv.getInputs()[1]);
  if (!weights)
    return nullptr;
  Location loc = conv.getLoc();
  ConvShape s;
  s.n = 1;
  s.f = out.getDimSize(1) * out.getDimSize(2);
  s.c = in.getDimSize(1) * in.getDimSize(2);
  s.kh = w.getDimSize(3);
  s.kw = w.getDimSize(4);
  s.oh = out.getDimSize(3);
  s.ow = out.getDimSize(4);
  s.strides.assign(conv.getStrides().getValues<int64_t>().begin(),
                   conv.getStrides().getValues<int64_t>().end());
  s.dilations.assign(conv.getDilations().getValues<int64_t>().begin(),
                     conv.getDilations().getValues<int64_t>().end());
  s.elt = out.getElementType();
  Value x = tensor::CollapseShapeOp::create(
      rewriter, loc, conv.getInputs()[0],
      SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}});
  Value empty = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<int64_t>{1, s.c, s.kh, s.kw, s.oh * s.ow}, s.elt);
  Value dest = tensor::ExpandShapeOp::create(
      rewriter, loc,
      RankedTensorType::get({1, s.c, s.kh, s.kw, s.oh, s.ow}, s.elt), empty,
      SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3}, {4, 5}});
  Value cols = buildGather(rewriter, loc, s, x, dest);
  Value cols2 = tensor::CollapseShapeOp::create(
      rewriter, loc, cols,
      SmallVector<ReassociationIndices>{{0, 1, 2, 3}, {4, 5}});
  Operation *product =
      replaceGroupedConvByPixelRows(rewriter, conv, cols2, *weights, panel);
  if (!product) {
    // Nothing was replaced: the gather goes again.
    rewriter.eraseOp(cols2.getDefiningOp());
    rewriter.eraseOp(cols.getDefiningOp());
    rewriter.eraseOp(dest.getDefiningOp());
    rewriter.eraseOp(empty.getDefiningOp());
    rewriter.eraseOp(x.getDefiningOp());
  }
  return product;
}

} // namespace

std::optional<ConstantData> cpu::getGroupedConvWeights(Value w) {
  if (std::optional<ConstantData> data = getConstantData(w))
    return data;
  if (auto expand = w.getDefiningOp<tensor::ExpandShapeOp>())
    return getConstantData(expand.getSrc());
  return std::nullopt;
}

FailureOr<SmallVector<Operation *>>
cpu::rewriteGroupedConvInIm2Col(RewriterBase &rewriter,
                                linalg::Conv2DNgchwGfchwOp conv,
                                int64_t pixelRows) {
  auto in = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto w = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto out = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!in || !w || !out || !in.hasStaticShape() || !w.hasStaticShape() ||
      !out.hasStaticShape() || !isa<FloatType>(out.getElementType()))
    return rewriter.notifyMatchFailure(conv, "needs static float tensors");
  // in [N, G, Cg, H, W], w [G, Fg, Cg, KH, KW], out [N, G, Fg, OH, OW].
  if (pixelRows > 0)
    if (Operation *product = rewriteByPixelRows(rewriter, conv, pixelRows))
      return SmallVector<Operation *>{product};
  // One loop over the groups, each iteration one convolution in im2col
  // form, rather than a copy per group: models with hundreds of groups per
  // layer compiled for minutes. The groups are independent, so the loop is
  // a forall and they run on threads.
  Location loc = conv.getLoc();
  SavedSchedule saved = saveSchedule(conv);
  Value dest = conv.getOutputs()[0];
  int64_t groups = in.getDimSize(1);
  Operation *contraction = nullptr;
  struct Slice {
    Value value;
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(groups)},
      ValueRange{dest}, std::nullopt,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value g = args[0], acc = args[1];
        // Group `g` of `v`, its group dim `d` dropped.
        auto slice = [&](Value v, unsigned d) {
          auto type = cast<RankedTensorType>(v.getType());
          Slice s;
          SmallVector<int64_t> reduced;
          for (auto [i, n] : llvm::enumerate(type.getShape())) {
            s.offsets.push_back(i == d ? OpFoldResult(g) : b.getIndexAttr(0));
            s.sizes.push_back(b.getIndexAttr(i == d ? 1 : n));
            s.strides.push_back(b.getIndexAttr(1));
            if (i != d)
              reduced.push_back(n);
          }
          s.value = tensor::ExtractSliceOp::create(
              b, l, type.clone(reduced), v, s.offsets, s.sizes, s.strides);
          return s;
        };
        Slice x = slice(conv.getInputs()[0], 1);
        Slice wg = slice(conv.getInputs()[1], 0);
        Slice accg = slice(acc, 1);
        auto group = linalg::Conv2DNchwFchwOp::create(
            b, l, TypeRange{accg.value.getType()},
            ValueRange{x.value, wg.value}, ValueRange{accg.value},
            conv.getStrides(), conv.getDilations());
        restoreSchedule(saved, group);
        auto inParallel = scf::InParallelOp::create(b, l);
        {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(inParallel.getBody());
          tensor::ParallelInsertSliceOp::create(b, l, group.getResult(0), acc,
                                                accg.offsets, accg.sizes,
                                                accg.strides);
        }
        // A group whose im2col does not apply stays a direct convolution.
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(group);
        FailureOr<Operation *> rewritten = rewriteConvInIm2Col(rewriter, group);
        if (succeeded(rewritten))
          contraction = *rewritten;
      });
  rewriter.replaceOp(conv, forall.getResult(0));
  SmallVector<Operation *> contractions;
  if (contraction)
    contractions.push_back(contraction);
  return contractions;
}

} // namespace kiln
