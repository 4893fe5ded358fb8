//===- ConvToIm2Col.cpp - 2-D convolutions as contractions ----------------===//
//
// One well-tiled contraction kernel then serves matmuls and convolutions;
// the im2col gather costs O(C*KH*KW*OH*OW) copies against
// O(F*C*KH*KW*OH*OW) FMAs. Runs on tensors (the rewrite creates tensors).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"
#include "lowering/cpu/RowTiling.h"
#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "dialects/graph/ConstantData.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_CONVTOIM2COL
#include "lowering/cpu/Passes.h.inc"

using namespace kiln::cpu;

FailureOr<ConvShape> cpu::getConvShape(linalg::Conv2DNchwFchwOp conv) {
  auto xt = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wt = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto ot = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!xt || !wt || !ot || !xt.hasStaticShape() || !wt.hasStaticShape() ||
      !ot.hasStaticShape())
    return failure();
  ConvShape s;
  s.n = ot.getDimSize(0);
  s.f = ot.getDimSize(1);
  s.c = wt.getDimSize(1);
  s.kh = wt.getDimSize(2);
  s.kw = wt.getDimSize(3);
  s.oh = ot.getDimSize(2);
  s.ow = ot.getDimSize(3);
  s.strides.assign(conv.getStrides().getValues<int64_t>().begin(),
                   conv.getStrides().getValues<int64_t>().end());
  s.dilations.assign(conv.getDilations().getValues<int64_t>().begin(),
                     conv.getDilations().getValues<int64_t>().end());
  s.elt = ot.getElementType();
  return s;
}

Value cpu::buildGather(OpBuilder &b, Location loc, const ConvShape &s, Value x,
                       Value dest) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineExpr> d(6);
  bindDimsList(ctx, MutableArrayRef<AffineExpr>(d));
  AffineMap gatherMap =
      AffineMap::get(6, 0,
                     {d[0], d[1], d[4] * s.strides[0] + d[2] * s.dilations[0],
                      d[5] * s.strides[1] + d[3] * s.dilations[1]},
                     ctx);
  SmallVector<utils::IteratorType> parallel(6, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{dest.getType()}, ValueRange{x}, ValueRange{dest},
             ArrayRef<AffineMap>{gatherMap,
                                 AffineMap::getMultiDimIdentityMap(6, ctx)},
             parallel,
             [](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, args[0]);
             })
      .getResult(0);
}

bool cpu::isPointwiseConv(linalg::Conv2DNchwFchwOp conv) {
  auto x = cast<ShapedType>(conv.getInputs()[0].getType());
  auto w = cast<ShapedType>(conv.getInputs()[1].getType());
  auto out = cast<ShapedType>(conv.getOutputs()[0].getType());
  return w.getDimSize(2) == 1 && w.getDimSize(3) == 1 &&
         llvm::all_of(conv.getStrides().getValues<int64_t>(),
                      [](int64_t s) { return s == 1; }) &&
         !ShapedType::isDynamic(x.getDimSize(2)) &&
         x.getDimSize(2) == out.getDimSize(2) &&
         !ShapedType::isDynamic(x.getDimSize(3)) &&
         x.getDimSize(3) == out.getDimSize(3);
}

/// Rewrites a static NCHW convolution as
///
///   cols[n, (c, kh, kw), (oh, ow)] = buildGather(x)
///   out[n, f, (oh, ow)] += w[f, (c, kh, kw)] * cols[n, (c, kh, kw), (oh, ow)]
///
/// Unlike upstream's rewrite, the gather keeps OH and OW as loops; the
/// collapses into the matmul view are free. Batch 1 gives a named
/// linalg.matmul. A 1x1 convolution with unit strides needs no gather.
FailureOr<Operation *> cpu::rewriteConvInIm2Col(RewriterBase &rewriter,
                                                linalg::Conv2DNchwFchwOp conv,
                                                int64_t pixelRows) {
  FailureOr<ConvShape> shape = getConvShape(conv);
  if (failed(shape))
    return rewriter.notifyMatchFailure(conv, "not static");
  const ConvShape &s = *shape;
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value out = conv.getOutputs()[0];
  auto ot = cast<RankedTensorType>(out.getType());
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();

  Value cols;
  bool pointwise = isPointwiseConv(conv);
  if (pointwise) {
    cols = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({s.n, s.c, 1, 1, s.oh, s.ow}, s.elt), x,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4}, {5}});
  }

  Operation *contraction;
  Value result;
  std::optional<ConstantData> weights;
  if (pixelRows > 0 && s.n == 1 && s.elt.isF32())
    weights = getConstantData(w);
  if (!pointwise) {
    // The product reads vectors along the rows of cols; rows of 196 floats
    // (14x14) start at every 16-byte offset, so one load in two or three
    // splits across cache lines: MatMul 256 x 2304 x 196 took 1.71 ms
    // against 1.27 ms for 192 columns. Rows padded to whole 64-byte lines
    // keep every load in one. (The pixel-row product broadcasts from cols
    // instead: no padding.)
    int64_t pixels = s.oh * s.ow;
    int64_t lineElts = 64 * 8 / s.elt.getIntOrFloatBitWidth();
    int64_t stride = weights ? pixels : llvm::alignTo(pixels, lineElts);
    Value empty;
    if (stride == pixels) {
      empty = tensor::EmptyOp::create(
          rewriter, loc, ArrayRef<int64_t>{s.n, s.c, s.kh, s.kw, pixels},
          s.elt);
    } else {
      // An alloc_tensor: a slice of a tensor.empty folds into a smaller one.
      Value padded = bufferization::AllocTensorOp::create(
          rewriter, loc,
          RankedTensorType::get({s.n, s.c, s.kh, s.kw, stride}, s.elt),
          ValueRange{});
      SmallVector<OpFoldResult> zeros(5, rewriter.getIndexAttr(0)),
          ones(5, rewriter.getIndexAttr(1)),
          sizes = getAsIndexOpFoldResult(
              ctx, ArrayRef<int64_t>{s.n, s.c, s.kh, s.kw, pixels});
      empty = tensor::ExtractSliceOp::create(rewriter, loc, padded, zeros,
                                             sizes, ones);
    }
    Value dest = tensor::ExpandShapeOp::create(
        rewriter, loc,
        RankedTensorType::get({s.n, s.c, s.kh, s.kw, s.oh, s.ow}, s.elt), empty,
        SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3}, {4, 5}});
    cols = buildGather(rewriter, loc, s, x, dest);
  }
  if (weights) {
    Value cols2 = tensor::CollapseShapeOp::create(
        rewriter, loc, cols,
        SmallVector<ReassociationIndices>{{0, 1, 2, 3}, {4, 5}});
    return replaceConvByPixelRows(rewriter, conv, cols2, *weights, pixelRows);
  }
  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, w, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  if (s.n == 1) {
    Value cols2 = tensor::CollapseShapeOp::create(
        rewriter, loc, cols,
        SmallVector<ReassociationIndices>{{0, 1, 2, 3}, {4, 5}});
    SmallVector<ReassociationIndices> outRe = {{0, 1}, {2, 3}};
    Value out2 = tensor::CollapseShapeOp::create(rewriter, loc, out, outRe);
    contraction =
        linalg::MatmulOp::create(rewriter, loc, TypeRange{out2.getType()},
                                 ValueRange{w2, cols2}, ValueRange{out2});
    result = tensor::ExpandShapeOp::create(rewriter, loc, ot,
                                           contraction->getResult(0), outRe);
  } else {
    Value cols3 = tensor::CollapseShapeOp::create(
        rewriter, loc, cols,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4, 5}});
    SmallVector<ReassociationIndices> outRe = {{0}, {1}, {2, 3}};
    Value out3 = tensor::CollapseShapeOp::create(rewriter, loc, out, outRe);
    // (n, f, p, k)
    SmallVector<AffineExpr> e(4);
    bindDimsList(ctx, MutableArrayRef<AffineExpr>(e));
    SmallVector<AffineMap> maps = {
        AffineMap::get(4, 0, {e[1], e[3]}, ctx),
        AffineMap::get(4, 0, {e[0], e[3], e[2]}, ctx),
        AffineMap::get(4, 0, {e[0], e[1], e[2]}, ctx)};
    SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
    iters.push_back(utils::IteratorType::reduction);
    contraction = linalg::GenericOp::create(
        rewriter, loc, TypeRange{out3.getType()}, ValueRange{w2, cols3},
        ValueRange{out3}, maps, iters,
        [](OpBuilder &b, Location l, ValueRange args) {
          Value p = arith::MulFOp::create(b, l, args[0], args[1]);
          linalg::YieldOp::create(
              b, l, arith::AddFOp::create(b, l, args[2], p).getResult());
        });
    result = tensor::ExpandShapeOp::create(rewriter, loc, ot,
                                           contraction->getResult(0), outRe);
  }
  // The convolution's schedule is the contraction's.
  inheritSchedule(conv, contraction);
  rewriter.replaceOp(conv, result);
  return contraction;
}

namespace {

/// Whether `map` reads element (i, j, ...) of a `shape` operand at
/// iteration (i, j, ...): the identity, except that unit dims may read 0.
bool isIdentityOnShape(AffineMap map, ArrayRef<int64_t> shape) {
  if (map.getNumResults() != shape.size() || map.getNumDims() != shape.size())
    return false;
  for (auto [i, e] : llvm::enumerate(map.getResults())) {
    auto d = dyn_cast<AffineDimExpr>(e);
    auto c = dyn_cast<AffineConstantExpr>(e);
    if (!(d && d.getPosition() == i) &&
        !(c && c.getValue() == 0 && shape[i] == 1))
      return false;
  }
  return true;
}

/// The elementwise op that is `conv`'s only user, when it can run on each
/// output block as soon as the block is computed: every operand has the
/// output's type and an identity map, the convolution is read once, the
/// body ignores the init, and the other inputs exist before the
/// convolution. An activation or residual add then costs no extra pass over
/// the output.
linalg::GenericOp findBlockEpilogue(linalg::Conv2DNchwFchwOp conv) {
  Value y = conv->getResult(0);
  if (!y.hasOneUse())
    return nullptr;
  auto epilogue = dyn_cast<linalg::GenericOp>(*y.getUsers().begin());
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      epilogue->getNumResults() != 1 ||
      epilogue.getNumLoops() != epilogue.getNumParallelLoops() ||
      epilogue->getResult(0).getType() != y.getType() ||
      epilogue.payloadUsesValueFromOperand(epilogue.getDpsInitOperand(0)))
    return nullptr;
  int uses = 0;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    if (operand.get().getType() != y.getType() ||
        !isIdentityOnShape(epilogue.getMatchingIndexingMap(&operand),
                           cast<RankedTensorType>(y.getType()).getShape()))
      return nullptr;
    if (operand.get() == y) {
      if (epilogue.isDpsInit(&operand))
        return nullptr;
      ++uses;
      continue;
    }
    if (epilogue.isDpsInit(&operand))
      continue;
    Operation *def = operand.get().getDefiningOp();
    if (def &&
        (def->getBlock() != conv->getBlock() || !def->isBeforeInBlock(conv)))
      return nullptr;
  }
  return uses == 1 ? epilogue : nullptr;
}

/// `epilogue` on one output block of `conv`: `block` (1 x F x rows x OW,
/// rows from `row0 + local`) for the convolution's result, the same rows of
/// the other inputs, written in place into `block`.
Value applyBlockEpilogue(OpBuilder &b, Location loc, linalg::GenericOp epilogue,
                         linalg::Conv2DNchwFchwOp conv, Value block, Value row0,
                         Value local) {
  auto blockType = cast<RankedTensorType>(block.getType());
  AffineExpr d0, d1;
  bindDims(b.getContext(), d0, d1);
  Value row = affine::AffineApplyOp::create(
      b, loc, AffineMap::get(2, 0, d0 + d1), ValueRange{row0, local});
  SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                       row, b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : blockType.getShape())
    sizes.push_back(b.getIndexAttr(d));
  SmallVector<OpFoldResult> unit(4, b.getIndexAttr(1));
  // The other inputs' rows first: they must dominate the clone.
  SmallVector<Value> operands;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    Value v = operand.get();
    if (v == conv->getResult(0) || epilogue.isDpsInit(&operand))
      operands.push_back(block);
    else
      operands.push_back(tensor::ExtractSliceOp::create(b, loc, blockType, v,
                                                        offsets, sizes, unit));
  }
  Operation *clone = b.clone(*epilogue.getOperation());
  clone->setOperands(operands);
  clone->getResult(0).setType(blockType);
  return clone->getResult(0);
}

/// Rewrites a large batch-1 NCHW convolution as im2col blocks: each block of
/// `rows` output rows gathers its columns into a per-chunk scratch tile that
/// stays in L2 and multiplies it right away, instead of writing a whole
/// im2col matrix to memory and reading it back.
///
///   scf.forall %p in (chunks)                        threads
///     scf.for %j in blocks of chunk %p
///       scratch[%p] = gather(x rows of block %j)     K x (rows*OW)
///       out[:, rows of block %j] = init; += w * scratch[%p]
///
/// An output initialized by a broadcast (the bias) or a fill is initialized
/// per block too, while the block is in cache.
} // namespace

int64_t cpu::blockedIm2ColRows(int64_t k, int64_t oh, int64_t ow,
                               int64_t eltBytes, int64_t blockBytes) {
  int64_t rows = 1;
  for (int64_t r = 1; r <= oh; ++r)
    if (oh % r == 0 && k * r * ow * eltBytes <= blockBytes)
      rows = r;
  return rows;
}

FailureOr<Operation *>
cpu::rewriteConvInBlockedIm2Col(RewriterBase &rewriter,
                                linalg::Conv2DNchwFchwOp conv,
                                const BlockedIm2ColOptions &options) {
  int64_t blockBytes = options.blockBytes;
  int64_t maxChunks = options.maxChunks;
  FailureOr<ConvShape> shape = getConvShape(conv);
  if (failed(shape) || shape->n != 1 || !shape->elt.isIntOrFloat())
    return rewriter.notifyMatchFailure(conv, "needs batch 1, static shapes");
  if (blockBytes <= 0)
    return rewriter.notifyMatchFailure(conv, "needs a block size");
  const ConvShape &s = *shape;
  int64_t k = s.c * s.kh * s.kw;
  int64_t eltBytes = s.elt.getIntOrFloatBitWidth() / 8;
  maxChunks = std::max<int64_t>(maxChunks, 1);
  int64_t rows = blockedIm2ColRows(k, s.oh, s.ow, eltBytes, blockBytes);
  int64_t blocks = s.oh / rows;
  int64_t perChunk = llvm::divideCeil(blocks, std::min(maxChunks, blocks));
  int64_t chunks = llvm::divideCeil(blocks, perChunk);
  int64_t cols = rows * s.ow;

  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  Value x = conv.getInputs()[0], w = conv.getInputs()[1];
  Value out = conv.getOutputs()[0];
  // The initializer, re-applied per block when it is a broadcast or fill
  // (one of this convolution's own where CSE merged equal ones: untrained
  // BatchNorms fold to equal biases).
  Operation *init = out.getDefiningOp();
  if (init && isa<linalg::BroadcastOp, linalg::FillOp>(init)) {
    if (!init->hasOneUse()) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPoint(conv);
      init = rewriter.clone(*init);
      rewriter.modifyOpInPlace(
          conv, [&] { conv.getOutputsMutable()[0].set(init->getResult(0)); });
    }
    out = cast<DestinationStyleOpInterface>(init).getDpsInits()[0];
  } else {
    init = nullptr;
  }

  linalg::GenericOp epilogue = findBlockEpilogue(conv);

  Value w2 = tensor::CollapseShapeOp::create(
      rewriter, loc, w, SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  Value scratch = tensor::EmptyOp::create(
      rewriter, loc, ArrayRef<int64_t>{chunks, k, cols}, s.elt);
  auto idx = [&](OpBuilder &b, int64_t v) -> OpFoldResult {
    return b.getIndexAttr(v);
  };
  Operation *contraction = nullptr;
  auto forall = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{idx(rewriter, chunks)},
      ValueRange{out, scratch}, std::nullopt,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value p = args[0], outArg = args[1], scratchArg = args[2];
        AffineExpr d0, d1;
        bindDims(ctx, d0, d1);
        Value first = affine::AffineApplyOp::create(
            b, l, AffineMap::get(1, 0, d0 * perChunk), p);
        Value count = affine::AffineMinOp::create(
            b, l,
            AffineMap::get(
                1, 0,
                {b.getAffineConstantExpr(perChunk), blocks - d0 * perChunk},
                ctx),
            p);
        Value row0 = affine::AffineApplyOp::create(
            b, l, AffineMap::get(1, 0, d0 * rows), first);
        Value nrows = affine::AffineApplyOp::create(
            b, l, AffineMap::get(1, 0, d0 * rows), count);
        SmallVector<OpFoldResult> unit(4, b.getIndexAttr(1));
        SmallVector<OpFoldResult> chunkOffsets = {idx(b, 0), idx(b, 0), row0,
                                                  idx(b, 0)};
        SmallVector<OpFoldResult> chunkSizes = {idx(b, 1), idx(b, s.f), nrows,
                                                idx(b, s.ow)};
        Value outChunk = tensor::ExtractSliceOp::create(
            b, l, outArg, chunkOffsets, chunkSizes, unit);
        auto tileType = RankedTensorType::get({k, cols}, s.elt);
        SmallVector<OpFoldResult> tileOffsets = {p, idx(b, 0), idx(b, 0)};
        SmallVector<OpFoldResult> tileSizes = {idx(b, 1), idx(b, k),
                                               idx(b, cols)};
        SmallVector<OpFoldResult> unit3(3, b.getIndexAttr(1));
        Value tile = tensor::ExtractSliceOp::create(
            b, l, tileType, scratchArg, tileOffsets, tileSizes, unit3);
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value one = arith::ConstantIndexOp::create(b, l, 1);
        auto loop = scf::ForOp::create(
            b, l, zero, count, one, ValueRange{outChunk, tile},
            [&](OpBuilder &lb, Location ll, Value j, ValueRange iter) {
              // Input rows this block reads.
              Value local = affine::AffineApplyOp::create(
                  lb, ll, AffineMap::get(1, 0, d0 * rows), j);
              Value inRow = affine::AffineApplyOp::create(
                  lb, ll, AffineMap::get(2, 0, (d0 + d1) * s.strides[0]),
                  ValueRange{row0, local});
              auto xt = cast<RankedTensorType>(x.getType());
              int64_t inRows =
                  (rows - 1) * s.strides[0] + (s.kh - 1) * s.dilations[0] + 1;
              Value xs = tensor::ExtractSliceOp::create(
                  lb, ll, x,
                  SmallVector<OpFoldResult>{idx(lb, 0), idx(lb, 0), inRow,
                                            idx(lb, 0)},
                  SmallVector<OpFoldResult>{idx(lb, 1), idx(lb, s.c),
                                            idx(lb, inRows),
                                            idx(lb, xt.getDimSize(3))},
                  unit);
              SmallVector<ReassociationIndices> tileRe = {{0, 1, 2, 3}, {4, 5}};
              Value dest = tensor::ExpandShapeOp::create(
                  lb, ll,
                  RankedTensorType::get({1, s.c, s.kh, s.kw, rows, s.ow},
                                        s.elt),
                  iter[1], tileRe);
              Value gathered = buildGather(lb, ll, s, xs, dest);
              Value colsTile =
                  tensor::CollapseShapeOp::create(lb, ll, gathered, tileRe);
              SmallVector<OpFoldResult> blockOffsets = {idx(lb, 0), idx(lb, 0),
                                                        local, idx(lb, 0)};
              SmallVector<OpFoldResult> blockSizes = {
                  idx(lb, 1), idx(lb, s.f), idx(lb, rows), idx(lb, s.ow)};
              auto blockType =
                  RankedTensorType::get({1, s.f, rows, s.ow}, s.elt);
              Value block = tensor::ExtractSliceOp::create(
                  lb, ll, blockType, iter[0], blockOffsets, blockSizes, unit);
              if (init) {
                // Into a buffer of its own: the block of the output is
                // strided, and the product needs it contiguous (a copy).
                IRMapping map;
                map.map(
                    cast<DestinationStyleOpInterface>(init).getDpsInits()[0],
                    tensor::EmptyOp::create(lb, ll, blockType.getShape(),
                                            s.elt));
                Operation *copy = lb.clone(*init, map);
                copy->getResult(0).setType(blockType);
                block = copy->getResult(0);
              }
              SmallVector<ReassociationIndices> outRe = {{0, 1}, {2, 3}};
              Value block2 =
                  tensor::CollapseShapeOp::create(lb, ll, block, outRe);
              contraction = linalg::MatmulOp::create(
                  lb, ll, TypeRange{block2.getType()}, ValueRange{w2, colsTile},
                  ValueRange{block2});
              Value result = tensor::ExpandShapeOp::create(
                  lb, ll, blockType, contraction->getResult(0), outRe);
              if (epilogue)
                result = applyBlockEpilogue(lb, ll, epilogue, conv, result,
                                            row0, local);
              Value updated = tensor::InsertSliceOp::create(
                  lb, ll, result, iter[0], blockOffsets, blockSizes, unit);
              scf::YieldOp::create(lb, ll, ValueRange{updated, colsTile});
            });
        auto inParallel = scf::InParallelOp::create(b, l);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(inParallel.getBody());
        tensor::ParallelInsertSliceOp::create(b, l, loop.getResult(0), outArg,
                                              chunkOffsets, chunkSizes, unit);
        tensor::ParallelInsertSliceOp::create(
            b, l, loop.getResult(1), scratchArg, tileOffsets, tileSizes, unit3);
      });
  inheritSchedule(conv, contraction);
  if (epilogue) {
    rewriter.replaceOp(epilogue, forall.getResult(0));
    rewriter.eraseOp(conv);
  } else {
    rewriter.replaceOp(conv, forall.getResult(0));
  }
  if (init)
    rewriter.eraseOp(init);
  return contraction;
}

/// The im2col gather among `contraction`'s operands, through reshapes.
static Operation *findGather(Operation *contraction) {
  for (Value v : contraction->getOperands()) {
    while (Operation *def = v.getDefiningOp()) {
      if (isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def)) {
        v = def->getOperand(0);
        continue;
      }
      auto generic = dyn_cast<linalg::GenericOp>(def);
      if (generic && gatherRowLoop(generic))
        return generic;
      break;
    }
  }
  return nullptr;
}

FailureOr<Operation *> cpu::applyConvSchedule(RewriterBase &rewriter,
                                              Operation *op,
                                              kernel::CpuScheduleAttr schedule,
                                              int64_t cacheBytes) {
  if (!schedule || schedule.getStrategy() == "direct")
    return rewriter.notifyMatchFailure(op, "direct convolution");
  SavedSchedule saved = saveSchedule(op);
  auto upstream = [&]() -> FailureOr<Operation *> {
    FailureOr<std::pair<Operation *, Operation *>> r =
        isa<linalg::Conv2DNhwcHwcfOp>(op)
            ? linalg::rewriteInIm2Col(rewriter,
                                      cast<linalg::Conv2DNhwcHwcfOp>(op))
            : linalg::rewriteInIm2Col(rewriter,
                                      cast<linalg::Conv2DNchwFchwOp>(op));
    if (failed(r))
      return failure();
    // The contraction is the op behind the result's reshape.
    Operation *result = r->second;
    if (!isa<linalg::LinalgOp>(result) && result->getNumOperands())
      result = result->getOperand(0).getDefiningOp();
    if (!result || !isa<linalg::LinalgOp>(result))
      return failure();
    restoreSchedule(saved, result);
    return result;
  };
  if (auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op)) {
    FailureOr<SmallVector<Operation *>> groups = rewriteGroupedConvInIm2Col(
        rewriter, grouped,
        schedule.getStrategy() == "im2col_transposed" ? schedule.getRegN() : 0);
    if (failed(groups))
      return failure();
    // Replaced either way; a group whose im2col did not apply stays a
    // direct convolution.
    return groups->empty() ? nullptr : groups->front();
  }
  auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op);
  if (!conv)
    return upstream();
  // Integer convolutions take upstream's rewrite.
  if (!isa<FloatType>(getElementTypeOrSelf(conv.getOutputs()[0].getType())))
    return upstream();
  StringRef strategy = schedule.getStrategy();
  if (strategy == "winograd_f4" || strategy == "winograd_f2") {
    FailureOr<Operation *> winograd = rewriteConvInWinograd(
        rewriter, conv, strategy == "winograd_f4" ? 4 : 2, schedule.getRegN());
    if (succeeded(winograd))
      return winograd;
    remarkSlowPath(op, "im2col instead of Winograd",
                   "Winograd needs a static f32 3x3 stride-1 convolution "
                   "with a constant filter");
  }
  if (strategy == "blocked_im2col") {
    FailureOr<Operation *> blocked = rewriteConvInBlockedIm2Col(
        rewriter, conv, {schedule.getBlockBytes(), schedule.getThreads()});
    if (succeeded(blocked))
      return blocked;
    remarkSlowPath(op, "im2col without blocks",
                   "the blocked rewrite needs batch 1 and static shapes");
  }
  // (Read before the rewrite, which erases the convolution.)
  auto convOut = cast<ShapedType>(conv.getOutputs()[0].getType());
  auto filter = cast<ShapedType>(conv.getInputs()[1].getType());
  bool matrixInCache = false;
  if (convOut.hasStaticShape() && filter.hasStaticShape()) {
    int64_t fout = convOut.getDimSize(1);
    int64_t matrixBytes = filter.getNumElements() / fout *
                          (convOut.getNumElements() / fout) *
                          convOut.getElementTypeBitWidth() / 8;
    matrixInCache = fout <= schedule.getTileM() && matrixBytes <= cacheBytes;
  }
  FailureOr<Operation *> plain = rewriteConvInIm2Col(
      rewriter, conv, strategy == "im2col_transposed" ? schedule.getRegN() : 0);
  if (failed(plain))
    return upstream();
  // Where the product shares out its pixels among the threads (its rows,
  // the output channels, are one thread block) and its matrix stays in
  // cache, the gather is cut the same way (TileAndVectorize). A matrix
  // beyond the cache is read from the shared L3 whoever wrote it (128 ->
  // 128 stride 2 at 56x56, 3.6 MB: no faster on two threads).
  if (*plain && strategy == "im2col" && matrixInCache)
    if (Operation *gather = findGather(*plain))
      gather->setAttr(kSplitGatherRowsAttr, rewriter.getUnitAttr());
  return plain;
}

namespace {

/// Applies `control`'s schedule to one form of convolution.
template <typename ConvOp> struct ApplyConvSchedule : OpRewritePattern<ConvOp> {
  ApplyConvSchedule(MLIRContext *ctx, ScheduleControlFn control,
                    int64_t cacheBytes)
      : OpRewritePattern<ConvOp>(ctx), control(std::move(control)),
        cacheBytes(cacheBytes) {}
  LogicalResult matchAndRewrite(ConvOp op,
                                PatternRewriter &rewriter) const override {
    kernel::CpuScheduleAttr schedule = control(op);
    if (!schedule || schedule.getStrategy() == "direct")
      return rewriter.notifyMatchFailure(op, "no im2col schedule");
    if (failed(applyConvSchedule(rewriter, op, schedule, cacheBytes))) {
      remarkSlowPath(op, "direct convolution in scalar loops",
                     "its im2col rewrite does not apply to this form");
      return failure();
    }
    return success();
  }
  ScheduleControlFn control;
  int64_t cacheBytes;
};

/// True if `op` indexes its operands as linalg.matmul / batch_matmul do by
/// default: A [batch, m, k], B [batch, k, n], C [batch, m, n].
bool hasNamedOperandOrder(linalg::GenericOp op,
                          const linalg::ContractionDimensions &dims) {
  SmallVector<unsigned> batch(dims.batch.begin(), dims.batch.end());
  auto order = [&](unsigned x, unsigned y) {
    SmallVector<unsigned> o = batch;
    o.append({x, y});
    return o;
  };
  SmallVector<SmallVector<unsigned>> expected = {
      order(dims.m.front(), dims.k.front()),
      order(dims.k.front(), dims.n.front()),
      order(dims.m.front(), dims.n.front())};
  for (auto [map, want] : llvm::zip(op.getIndexingMapsArray(), expected)) {
    if (map.getNumResults() != want.size())
      return false;
    for (auto [e, d] : llvm::zip(map.getResults(), want)) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || dim.getPosition() != d)
        return false;
    }
  }
  return true;
}

struct ConvToIm2ColPass : impl::ConvToIm2ColBase<ConvToIm2ColPass> {
  using ConvToIm2ColBase::ConvToIm2ColBase;

  /// Batched products with the contraction kernel's schedule, and products
  /// with packed weights: loops of 2-D products.
  void rewriteBatchedProducts(RewriterBase &rewriter) {
    SmallVector<linalg::BatchMatmulOp> batched;
    getOperation().walk([&](linalg::BatchMatmulOp op) {
      kernel::CpuScheduleAttr schedule = getOwnSchedule(op);
      if (schedule && schedule.usesContractionKernel())
        batched.push_back(op);
    });
    for (linalg::BatchMatmulOp op : batched)
      (void)rewriteBatchMatmulAsLoop(rewriter, op);
    SmallVector<linalg::MatmulOp> packed;
    getOperation().walk([&](linalg::MatmulOp op) {
      kernel::CpuScheduleAttr schedule = getOwnSchedule(op);
      if (schedule && schedule.getStrategy() == "packed_weights")
        packed.push_back(op);
    });
    for (linalg::MatmulOp op : packed)
      if (failed(rewriteMatmulWithPackedWeights(rewriter, op))) {
        // A tuned or forced schedule the product does not fit: the
        // contraction kernel with its tiles.
        kernel::CpuScheduleAttr s = getOwnSchedule(op);
        op->setAttr(kScheduleAttr, contractionScheduleFrom(
                                       s, s.getTileM(), s.getTileN(),
                                       s.getTileK(), s.getPackRowBytes(),
                                       s.getPackARowBytes(), s.getThreads()));
        op->emitRemark() << "packed_weights does not apply (needs static f32 "
                            "operands); the contraction kernel runs it";
      }
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> convs;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcHwcfOp,
              linalg::Conv2DNgchwGfchwOp>(op))
        convs.push_back(op);
    });
    if (convs.empty()) {
      rewriteBatchedProducts(rewriter);
      return;
    }
    {
      // Only the convolutions: the rewrites erase their initializers and
      // epilogues, which a walk could not step over.
      RewritePatternSet convPatterns(&getContext());
      populateConvToIm2ColPatterns(convPatterns, getOwnSchedule, cacheBytes);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingOps);
      (void)applyOpPatternsGreedily(convs, std::move(convPatterns), config);
    }
    // With batch 1 the contraction is a matmul with a unit batch dim;
    // dropped and specialized it gets the named-op register kernel. A
    // single output channel stays an M = 1 matmul: as a matrix-vector
    // generic it would reduce down a strided column of the im2col buffer.
    linalg::ControlDropUnitDims control;
    control.controlFn = [](Operation *op) -> SmallVector<unsigned> {
      auto generic = dyn_cast<linalg::GenericOp>(op);
      if (!generic || !linalg::isaContractionOpInterface(generic))
        return {};
      // Packed products of two element types (f32 rows by f16 weights) keep
      // their form, unit pair dim included: the dot kernel takes them as
      // they are, and a named matmul cannot mix the operand types.
      if (generic.getNumDpsInputs() == 2 &&
          getElementTypeOrSelf(generic.getDpsInputs()[0]) !=
              getElementTypeOrSelf(generic.getDpsInputs()[1]))
        return {};
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(generic);
      if (failed(dims))
        return {};
      SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
      SmallVector<unsigned> droppable;
      for (unsigned d = 0; d < ranges.size(); ++d)
        droppable.push_back(d);
      // Keep one M and one N dim even when they are unit.
      for (const SmallVector<unsigned, 2> &group : {dims->m, dims->n})
        if (!group.empty() &&
            llvm::all_of(group, [&](unsigned d) { return ranges[d] == 1; }))
          llvm::erase(droppable, group.back());
      return droppable;
    };
    RewritePatternSet patterns(&getContext());
    linalg::populateFoldUnitExtentDimsPatterns(patterns, control);
    KeepSchedulesListener keepSchedules;
    GreedyRewriteConfig config;
    config.setListener(&keepSchedules);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
    SmallVector<linalg::GenericOp> contractions;
    // Only contractions with one dim per role (at most one batch dim): the
    // upstream specializer would make a batch_matmul of a contraction with
    // two batch dims ([B, H, M, K] x [B, H, K, N], attention heads). And
    // only operands in the named ops' order: it also gives a transposed
    // operand ([H, N, K], MaxViT's q.k^T once its unit dims are dropped)
    // the default maps, so the product read B as [H, K, N].
    getOperation().walk([&](linalg::GenericOp op) {
      if (!linalg::isaContractionOpInterface(op))
        return;
      FailureOr<linalg::ContractionDimensions> dims =
          linalg::inferContractionDims(op);
      if (succeeded(dims) && dims->batch.size() <= 1 && dims->m.size() == 1 &&
          dims->n.size() == 1 && dims->k.size() == 1 &&
          hasNamedOperandOrder(op, *dims))
        contractions.push_back(op);
    });
    for (linalg::GenericOp op : contractions) {
      rewriter.setInsertionPoint(op);
      SavedSchedule saved = saveSchedule(op);
      FailureOr<linalg::LinalgOp> named =
          linalg::specializeGenericOp(rewriter, op);
      if (succeeded(named))
        restoreSchedule(saved, *named);
    }
    rewriteBatchedProducts(rewriter);
  }
};

} // namespace

void cpu::populateConvToIm2ColPatterns(RewritePatternSet &patterns,
                                       ScheduleControlFn control,
                                       int64_t cacheBytes) {
  patterns.add<ApplyConvSchedule<linalg::Conv2DNchwFchwOp>,
               ApplyConvSchedule<linalg::Conv2DNhwcHwcfOp>,
               ApplyConvSchedule<linalg::Conv2DNgchwGfchwOp>>(
      patterns.getContext(), control, cacheBytes);
}

} // namespace kiln
