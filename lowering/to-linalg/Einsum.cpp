//===- Einsum.cpp - kiln.graph Einsum to linalg ---------------------------===//
//
// A two-input float einsum that is a batched matrix product (every label
// in both inputs and the output, or in exactly two of them: batch, rows,
// columns, reduction) becomes linalg.batch_matmul (linalg.matmul without
// batch labels) between transposes and reshapes, so that it takes the
// contraction kernel: as a generic with several batch dims it had none
// (MaxViT's attention, "B G H I J, B G H J D -> B G H I D", ran 17x ORT's
// time). Any other einsum is one linalg.generic: a loop per label, the
// output's labels parallel and the others reductions; each input reads its
// dims through its labels (a broadcast extent-1 dim reads index 0) and the
// body adds the product of the inputs to the accumulator.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/Einsum.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Reassociation of `counts` consecutive groups of dims.
SmallVector<ReassociationIndices> groupsOf(ArrayRef<int64_t> counts) {
  SmallVector<ReassociationIndices> re;
  int64_t next = 0;
  for (int64_t c : counts) {
    re.emplace_back();
    for (int64_t i = 0; i < c; ++i)
      re.back().push_back(next++);
  }
  return re;
}

/// The einsum `spec` over float inputs `a` and `b` as a batched matrix
/// product of result type `type`, or null where it is not one.
Value lowerAsBatchMatmul(OpBuilder &b, Location loc, Value a, Value bv,
                         const g::EinsumSpec &spec, ArrayRef<int64_t> extent,
                         RankedTensorType type) {
  unsigned n = spec.numLabels;
  SmallVector<int> inA(n, -1), inB(n, -1), inOut(n, -1);
  auto place = [&](ArrayRef<unsigned> labels, SmallVector<int> &where,
                   Value v) {
    auto t = cast<RankedTensorType>(v.getType());
    for (auto [i, l] : llvm::enumerate(labels)) {
      // A repeated label (a diagonal) or a broadcast dim: not a product.
      if (where[l] >= 0 || (v && t.getDimSize(i) == 1 && extent[l] != 1))
        return false;
      where[l] = i;
    }
    return true;
  };
  if (!place(spec.inputs[0], inA, a) || !place(spec.inputs[1], inB, bv))
    return {};
  for (auto [i, l] : llvm::enumerate(spec.output)) {
    if (inOut[l] >= 0)
      return {};
    inOut[l] = i;
  }
  // Batch and row and column labels in the output's order, reduced ones in
  // A's.
  SmallVector<unsigned> batch, rows, cols, red;
  for (unsigned l : spec.output) {
    bool fromA = inA[l] >= 0, fromB = inB[l] >= 0;
    if (fromA && fromB)
      batch.push_back(l);
    else if (fromA)
      rows.push_back(l);
    else if (fromB)
      cols.push_back(l);
    else
      return {};
  }
  for (unsigned l : spec.inputs[0])
    if (inOut[l] < 0) {
      if (inB[l] < 0)
        return {};
      red.push_back(l);
    }
  for (unsigned l : spec.inputs[1])
    if (inOut[l] < 0 && inA[l] < 0)
      return {};
  if (rows.empty() || cols.empty() || red.empty())
    return {};

  // A as [batch..., rows..., red...], B as [batch..., red..., cols...].
  SmallVector<int64_t> permA, permB;
  for (unsigned l : batch)
    permA.push_back(inA[l]), permB.push_back(inB[l]);
  for (unsigned l : rows)
    permA.push_back(inA[l]);
  for (unsigned l : red)
    permA.push_back(inA[l]), permB.push_back(inB[l]);
  for (unsigned l : cols)
    permB.push_back(inB[l]);
  Value a2 = createTranspose(b, loc, a, permA),
        b2 = createTranspose(b, loc, bv, permB);
  int64_t nb = batch.size(), nr = rows.size(), nc = cols.size(),
          nk = red.size();
  SmallVector<int64_t> aGroups = {nr, nk}, bGroups = {nk, nc},
                       cGroups = {nr, nc};
  if (nb) {
    aGroups.insert(aGroups.begin(), nb);
    bGroups.insert(bGroups.begin(), nb);
    cGroups.insert(cGroups.begin(), nb);
  }
  auto collapse = [&](Value v, ArrayRef<int64_t> groups) -> Value {
    if (cast<RankedTensorType>(v.getType()).getRank() == int64_t(groups.size()))
      return v;
    return tensor::CollapseShapeOp::create(b, loc, v, groupsOf(groups));
  };
  a2 = collapse(a2, aGroups);
  b2 = collapse(b2, bGroups);

  // The product, [batch, rows, cols] (or [rows, cols]).
  Type elt = type.getElementType();
  SmallVector<OpFoldResult> sizes;
  if (nb)
    sizes.push_back(tensor::getMixedSize(b, loc, a2, 0));
  sizes.push_back(tensor::getMixedSize(b, loc, a2, nb ? 1 : 0));
  sizes.push_back(tensor::getMixedSize(b, loc, b2, nb ? 2 : 1));
  Value init = linalg::FillOp::create(
                   b, loc, createScalarConstant(b, loc, elt, 0),
                   ValueRange{tensor::EmptyOp::create(b, loc, sizes, elt)})
                   .getResult(0);
  Value product =
      nb ? linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()},
                                         ValueRange{a2, b2}, ValueRange{init})
               .getResult(0)
         : linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                    ValueRange{a2, b2}, ValueRange{init})
               .getResult(0);

  // Back to [batch..., rows..., cols...], then the output's order.
  SmallVector<unsigned> order(batch);
  order.append(rows);
  order.append(cols);
  SmallVector<OpFoldResult> outSizes;
  SmallVector<int64_t> outShape;
  for (unsigned l : order) {
    Value from = inA[l] >= 0 ? a : bv;
    int64_t dim = inA[l] >= 0 ? inA[l] : inB[l];
    outSizes.push_back(tensor::getMixedSize(b, loc, from, dim));
    outShape.push_back(cast<RankedTensorType>(from.getType()).getDimSize(dim));
  }
  Value expanded = int64_t(outShape.size()) == int64_t(cGroups.size())
                       ? product
                       : tensor::ExpandShapeOp::create(
                             b, loc, RankedTensorType::get(outShape, elt),
                             product, groupsOf(cGroups), outSizes)
                             .getResult();
  SmallVector<int64_t> toOut;
  for (unsigned l : spec.output)
    toOut.push_back(llvm::find(order, l) - order.begin());
  Value result = createTranspose(b, loc, expanded, toOut);
  // The inputs may be more static than the op's result type says.
  if (result.getType() != type)
    result = tensor::CastOp::create(b, loc, type, result);
  return result;
}

struct EinsumLowering : OpConversionPattern<g::EinsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::EinsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getOutput().getType()));
    if (!type || !isa<FloatType, IntegerType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "needs a ranked numeric result");
    ValueRange inputs = adaptor.getInputs();
    SmallVector<int64_t> ranks;
    for (Value v : inputs) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      if (!t)
        return rewriter.notifyMatchFailure(op, "needs ranked inputs");
      ranks.push_back(t.getRank());
    }
    FailureOr<g::EinsumSpec> spec =
        g::parseEinsum(std::nullopt, op.getEquation(), ranks);
    if (failed(spec))
      return rewriter.notifyMatchFailure(op, "bad equation");
    auto extent = g::getEinsumExtents(std::nullopt, inputs, spec->inputs,
                                      spec->numLabels);
    if (failed(extent))
      return rewriter.notifyMatchFailure(op, "label extents differ");

    if (inputs.size() == 2 && isa<FloatType>(type.getElementType()))
      if (Value product = lowerAsBatchMatmul(rewriter, op.getLoc(), inputs[0],
                                             inputs[1], *spec, *extent, type)) {
        rewriter.replaceOp(op, product);
        return success();
      }

    // Loop order: output labels, then the reduced ones.
    SmallVector<int64_t> loopOf(spec->numLabels, -1);
    unsigned numLoops = 0;
    for (unsigned l : spec->output)
      loopOf[l] = numLoops++;
    SmallVector<utils::IteratorType> iters(numLoops,
                                           utils::IteratorType::parallel);
    for (unsigned l = 0; l < spec->numLabels; ++l)
      if (loopOf[l] < 0) {
        loopOf[l] = numLoops++;
        iters.push_back(utils::IteratorType::reduction);
      }
    MLIRContext *ctx = rewriter.getContext();
    SmallVector<AffineMap> maps;
    for (auto [v, dims] : llvm::zip(inputs, spec->inputs)) {
      auto t = cast<RankedTensorType>(v.getType());
      SmallVector<AffineExpr> exprs;
      for (auto [i, l] : llvm::enumerate(dims)) {
        bool broadcast = t.getDimSize(i) == 1 && (*extent)[l] != 1;
        exprs.push_back(broadcast ? getAffineConstantExpr(0, ctx)
                                  : getAffineDimExpr(loopOf[l], ctx));
      }
      maps.push_back(AffineMap::get(numLoops, 0, exprs, ctx));
    }
    SmallVector<AffineExpr> outExprs;
    for (unsigned l : spec->output)
      outExprs.push_back(getAffineDimExpr(loopOf[l], ctx));
    maps.push_back(AffineMap::get(numLoops, 0, outExprs, ctx));

    Location loc = op.getLoc();
    SmallVector<Value> dyn;
    for (auto [i, l] : llvm::enumerate(spec->output)) {
      if (!type.isDynamicDim(i))
        continue;
      Value d;
      for (auto [v, dims] : llvm::zip(inputs, spec->inputs))
        for (auto [j, m] : llvm::enumerate(dims))
          if (!d && m == l &&
              cast<RankedTensorType>(v.getType()).getDimSize(j) != 1)
            d = tensor::DimOp::create(rewriter, loc, v, j);
      dyn.push_back(d);
    }
    Type elt = type.getElementType();
    bool isFloat = isa<FloatType>(elt);
    Value init = linalg::FillOp::create(
                     rewriter, loc, createScalarConstant(rewriter, loc, elt, 0),
                     ValueRange{tensor::EmptyOp::create(
                         rewriter, loc, type.getShape(), elt, dyn)})
                     .getResult(0);
    Value result =
        linalg::GenericOp::create(
            rewriter, loc, type, inputs, init, maps, iters,
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value p = a[0];
              for (Value v : a.drop_front().drop_back())
                p = isFloat ? Value(arith::MulFOp::create(b, l, p, v))
                            : Value(arith::MulIOp::create(b, l, p, v));
              Value s = isFloat
                            ? Value(arith::AddFOp::create(b, l, a.back(), p))
                            : Value(arith::AddIOp::create(b, l, a.back(), p));
              linalg::YieldOp::create(b, l, s);
            })
            .getResult(0);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateEinsumLoweringPatterns(GraphTypeConverter &converter,
                                    RewritePatternSet &patterns) {
  patterns.add<EinsumLowering>(converter, patterns.getContext());
}

} // namespace kiln
