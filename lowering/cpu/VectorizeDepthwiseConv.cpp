//===- VectorizeDepthwiseConv.cpp - depthwise convolution micro-kernel ----===//
//
// A static f32 linalg.depthwise_conv_2d_nchw_chw on buffers becomes, per
// (batch, channel):
//
//   scf.forall (n, c)                          threads
//     scf.for oh step R                        R output rows (+ static rest)
//       scf.for ow step U*VL                   U vectors along the width
//         acc[r][u] = load out[n, c, oh + r, ow + u*VL]
//         for each input row t of the R rows' window, each tap column kw:
//           x = load in[n, c, oh*sh + t, (ow + u*VL)*sw + kw*dw]
//           acc[r][u] = fma(x, broadcast(w[c, (t - r*sh) / dh, kw]), acc[r][u])
//         store acc
//       static tail blocks along the width, masked where partial
//
// Loading input rows once per window row rather than once per (output row,
// kernel row) pair shares them between the R output rows. With stride 2
// along the width, 2*VL contiguous elements are de-interleaved with a
// vector.shuffle instead of being gathered. The loop nest is emitted as
// vector ops directly: the generic vectorizer produces strided gathers for
// this op. Forms the kernel does not cover stay linalg.
//
// NCHW max and sum pooling (MaxPool, AveragePool before its division) run
// the same loops with max or add for fma and no filter: at stride 2 they had
// the same strided reads, which ran as scalar loops.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/BufferAliasing.h"
#include "lowering/cpu/Passes.h"
#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_VECTORIZEDEPTHWISECONV
#include "lowering/cpu/Passes.h.inc"

using namespace kiln::cpu;

namespace {

/// Static sizes of an NCHW depthwise convolution.
struct ConvShape {
  int64_t n, c, ih, iw, oh, ow, kh, kw, sh, sw, dh = 1, dw = 1;
};

/// The shape of `op` if the kernel handles it: a depthwise convolution
/// ([C, KH, KW] filter) or a max pooling ([KH, KW] window).
template <typename OpT> std::optional<ConvShape> matchWindow(OpT op) {
  constexpr bool pool = !std::is_same_v<OpT, linalg::DepthwiseConv2DNchwChwOp>;
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  auto inTy = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto wTy = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto outTy = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!inTy || !wTy || !outTy || !inTy.hasStaticShape() ||
      !wTy.hasStaticShape() || !outTy.hasStaticShape())
    return std::nullopt;
  Type f32 = Float32Type::get(op.getContext());
  if (inTy.getElementType() != f32 || outTy.getElementType() != f32 ||
      (!pool && wTy.getElementType() != f32))
    return std::nullopt;
  // Vector loads and stores need contiguous rows.
  if (!inTy.isLastDimUnitStride() || !outTy.isLastDimUnitStride())
    return std::nullopt;
  SmallVector<int64_t> strides(op.getStrides().template getValues<int64_t>());
  SmallVector<int64_t> dilations(
      op.getDilations().template getValues<int64_t>());
  ArrayRef<int64_t> in = inTy.getShape(), w = wTy.getShape(),
                    out = outTy.getShape();
  if (w.size() != (pool ? 2u : 3u))
    return std::nullopt;
  ConvShape s{in[0],  in[1],           in[2],           in[3],      out[2],
              out[3], w[w.size() - 2], w[w.size() - 1], strides[0], strides[1]};
  s.dh = dilations[0];
  s.dw = dilations[1];
  if (out[0] != s.n || out[1] != s.c || (!pool && w[0] != s.c) || s.sh < 1 ||
      (s.sw != 1 && s.sw != 2) || s.dh < 1 || s.dw < 1 || s.oh < 1 ||
      s.ow < 1 || (s.oh - 1) * s.sh + (s.kh - 1) * s.dh + 1 > s.ih ||
      (s.ow - 1) * s.sw + (s.kw - 1) * s.dw + 1 > s.iw)
    return std::nullopt;
  return s;
}

/// Emits the loops of one (batch, channel) plane; see the file comment. A
/// null `filter` takes the maximum (`sum` false) or the sum over the window
/// (pooling).
class PlaneEmitter {
public:
  PlaneEmitter(OpBuilder &b, Location loc, const ConvShape &s, int64_t vl,
               Value in, Value filter, Value out, Value n, Value c,
               bool sum = false)
      : b(b), loc(loc), s(s), vl(vl), in(in), filter(filter), out(out), n(n),
        c(c), sum(sum), vecTy(VectorType::get({vl}, b.getF32Type())) {}

  /// Computes `init` (a fill or elementwise generic writing all of `out`)
  /// in the accumulators and `epilogue` (elementwise, reading `out`) on
  /// them before they are stored, into the epilogue's output.
  void fuse(Operation *fusedInit, linalg::GenericOp fusedEpilogue) {
    init = fusedInit;
    epilogue = fusedEpilogue;
  }

  void emit(int64_t accumulators) {
    // U vectors along the width by R output rows, more rows when the width
    // is short and more vectors when the height is.
    int64_t blocks = llvm::divideCeilSigned(s.ow, vl);
    int64_t u0 = std::min<int64_t>(2, blocks);
    rows = std::min(s.oh, std::max<int64_t>(1, accumulators / u0));
    width = std::min(blocks,
                     std::max(u0, llvm::divideCeilSigned(accumulators, rows)));

    // Groups of the main width loop may read 2*VL elements (stride 2) or VL
    // elements from every tap without masks: keep them inside the row.
    int64_t groupCols = width * vl;
    mainGroups = s.ow / vl / width;
    while (mainGroups > 0 &&
           s.sw * mainGroups * groupCols + (s.kw - 1) * s.dw > s.iw)
      --mainGroups;

    int64_t fullRowGroups = s.oh / rows;
    if (fullRowGroups > 0) {
      auto loop = scf::ForOp::create(b, loc, cst(0), cst(fullRowGroups * rows),
                                     cst(rows));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      emitRows(loop.getInductionVar(), rows);
    }
    if (int64_t rest = s.oh % rows)
      emitRows(cst(fullRowGroups * rows), rest);
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value a, int64_t v) {
    return v == 0 ? a : arith::AddIOp::create(b, loc, a, cst(v)).getResult();
  }
  Value mul(Value a, int64_t v) {
    return v == 1 ? a : arith::MulIOp::create(b, loc, a, cst(v)).getResult();
  }

  /// Output rows [oh, oh + numRows): the main width loop, then the columns
  /// it leaves, statically, in chunks of at most `width` vectors.
  void emitRows(Value oh, int64_t numRows) {
    int64_t groupCols = width * vl;
    if (mainGroups > 0) {
      auto loop = scf::ForOp::create(
          b, loc, cst(0), cst(mainGroups * groupCols), cst(groupCols));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      emitTile(oh, numRows, loop.getInductionVar(), std::nullopt,
               SmallVector<int64_t>(width, vl));
    }
    for (int64_t col = mainGroups * groupCols; col < s.ow;) {
      SmallVector<int64_t> lanes;
      int64_t start = col;
      while (col < s.ow && (int64_t)lanes.size() < width) {
        lanes.push_back(std::min(vl, s.ow - col));
        col += lanes.back();
      }
      emitTile(oh, numRows, cst(start), start, lanes);
    }
  }

  /// A row of `avail` elements (clamped to [0, VL]) at `indices`; the lanes
  /// past `avail` are zero.
  Value loadRow(Value base, ValueRange indices, int64_t avail) {
    if (avail >= vl)
      return vector::LoadOp::create(b, loc, vecTy, base, indices);
    Value zero = arith::ConstantOp::create(
        b, loc, vecTy, DenseElementsAttr::get(vecTy, b.getF32FloatAttr(0)));
    if (avail <= 0)
      return zero;
    Value mask = vector::ConstantMaskOp::create(
        b, loc, VectorType::get({vl}, b.getI1Type()), ArrayRef<int64_t>{avail});
    return vector::MaskedLoadOp::create(b, loc, vecTy, base, indices, mask,
                                        zero);
  }

  /// The inputs that tap column `kw` multiplies into the `lanes` outputs
  /// from column `ow` (`owStatic` when known; else all VL lanes are in
  /// bounds by construction of the main loop).
  Value loadInput(Value ih, Value ow, std::optional<int64_t> owStatic,
                  int64_t lanes, int64_t kw) {
    Value col = add(mul(ow, s.sw), kw * s.dw);
    // Elements left in the input row, when known.
    int64_t left = owStatic ? s.iw - (*owStatic * s.sw + kw * s.dw) : s.sw * vl;
    if (s.sw == 1)
      return loadRow(in, {n, c, ih, col}, std::min(lanes, left));
    // Even elements of 2*lanes; the last one needed is 2*(lanes-1), so a
    // row that ends right after it is read masked.
    int64_t avail = std::min(2 * lanes, left);
    Value lo = loadRow(in, {n, c, ih, col}, std::min(avail, vl));
    Value hi = avail > vl ? loadRow(in, {n, c, ih, add(col, vl)}, avail - vl)
                          : loadRow(in, {}, 0);
    SmallVector<int64_t> evens;
    for (int64_t i = 0; i < vl; ++i)
      evens.push_back(2 * i);
    return vector::ShuffleOp::create(b, loc, lo, hi, evens);
  }

  /// The register tile: `numRows` output rows from `oh` by one vector per
  /// entry of `lanes` from column `ow`.
  void emitTile(Value oh, int64_t numRows, Value ow,
                std::optional<int64_t> owStatic, ArrayRef<int64_t> lanes) {
    int64_t numBlocks = lanes.size();
    SmallVector<Value> cols;
    for (int64_t u = 0; u < numBlocks; ++u)
      cols.push_back(add(ow, u * vl));
    SmallVector<SmallVector<Value>> acc(numRows);
    SmallVector<Value> outRows;
    for (int64_t r = 0; r < numRows; ++r) {
      outRows.push_back(add(oh, r));
      for (int64_t u = 0; u < numBlocks; ++u)
        acc[r].push_back(
            init ? evaluate(cast<linalg::LinalgOp>(init), outRows[r], cols[u],
                            lanes[u], Value())
                 : loadRow(out, {n, c, outRows[r], cols[u]}, lanes[u]));
    }

    llvm::DenseMap<int64_t, Value> weights;
    auto weight = [&](int64_t kh, int64_t kw) {
      Value &w = weights[kh * s.kw + kw];
      if (!w) {
        Value scalar =
            memref::LoadOp::create(b, loc, filter, {c, cst(kh), cst(kw)});
        w = vector::BroadcastOp::create(b, loc, vecTy, scalar);
      }
      return w;
    };

    Value ihBase = mul(oh, s.sh);
    // The filter row that input row t of the window is for output row r,
    // or -1 (with dilation, rows between the taps serve no output row).
    auto filterRow = [&](int64_t t, int64_t r) -> int64_t {
      int64_t offset = t - r * s.sh;
      if (offset < 0 || offset % s.dh || offset / s.dh >= s.kh)
        return -1;
      return offset / s.dh;
    };
    int64_t windowRows = (numRows - 1) * s.sh + (s.kh - 1) * s.dh + 1;
    for (int64_t t = 0; t < windowRows; ++t) {
      if (llvm::none_of(llvm::seq<int64_t>(0, numRows),
                        [&](int64_t r) { return filterRow(t, r) >= 0; }))
        continue;
      Value ih = add(ihBase, t);
      for (int64_t kw = 0; kw < s.kw; ++kw) {
        for (int64_t u = 0; u < numBlocks; ++u) {
          std::optional<int64_t> colStatic;
          if (owStatic)
            colStatic = *owStatic + u * vl;
          Value x = loadInput(ih, cols[u], colStatic, lanes[u], kw);
          for (int64_t r = 0; r < numRows; ++r) {
            int64_t kh = filterRow(t, r);
            if (kh < 0)
              continue;
            if (filter)
              acc[r][u] =
                  vector::FMAOp::create(b, loc, x, weight(kh, kw), acc[r][u]);
            else if (sum)
              acc[r][u] = arith::AddFOp::create(b, loc, acc[r][u], x);
            else
              acc[r][u] = poolingMax(b, loc, acc[r][u], x);
          }
        }
      }
    }

    for (int64_t r = 0; r < numRows; ++r) {
      for (int64_t u = 0; u < numBlocks; ++u) {
        SmallVector<Value> idx = {n, c, outRows[r], cols[u]};
        Value result = acc[r][u], dest = out;
        if (epilogue) {
          result = evaluate(epilogue, outRows[r], cols[u], lanes[u], result);
          dest = epilogue.getDpsInits()[0];
        }
        if (lanes[u] >= vl) {
          vector::StoreOp::create(b, loc, result, dest, idx);
          continue;
        }
        Value mask = vector::ConstantMaskOp::create(
            b, loc, VectorType::get({vl}, b.getI1Type()),
            ArrayRef<int64_t>{lanes[u]});
        vector::MaskedStoreOp::create(b, loc, dest, idx, mask, result);
      }
    }
  }

  /// The vector of `op`'s input `operand` at output row `row`, columns
  /// from `col` (`lanes` of them in bounds); `acc` for `out` itself.
  Value operandTile(OpOperand *operand, Value row, Value col, int64_t lanes,
                    Value acc) {
    Value v = operand->get();
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type)
      return vector::BroadcastOp::create(b, loc, vecTy, v);
    // The epilogue may read C through another view of its bytes.
    if (acc && cpu::sameBuffer(v, out))
      return acc;
    if (type.getRank() == 1)
      return vector::BroadcastOp::create(
          b, loc, vecTy, memref::LoadOp::create(b, loc, v, ValueRange{c}));
    return loadRow(v, {n, c, row, col}, lanes);
  }

  Value evaluate(linalg::LinalgOp op, Value row, Value col, int64_t lanes,
                 Value acc) {
    SmallVector<Value> inputs;
    for (OpOperand *in : op.getDpsInputOperands())
      inputs.push_back(operandTile(in, row, col, lanes, acc));
    return evaluateEpilogueBody(b, loc, op, inputs, {vl});
  }

  OpBuilder &b;
  Location loc;
  ConvShape s;
  int64_t vl;
  Value in, filter, out, n, c;
  bool sum;
  VectorType vecTy;
  Operation *init = nullptr;
  linalg::GenericOp epilogue;
  int64_t rows = 1, width = 1, mainGroups = 0;
};

/// Whether `op`'s inputs are ones the kernel can read: scalars, one value
/// per channel, or `out`-shaped buffers with contiguous rows (`out` itself
/// for an epilogue).
bool readable(linalg::LinalgOp op, Value out) {
  auto outType = cast<MemRefType>(out.getType());
  return llvm::all_of(op.getDpsInputOperands(), [&](OpOperand *in) {
    auto type = dyn_cast<MemRefType>(in->get().getType());
    AffineMap map = op.getMatchingIndexingMap(in);
    if (!type)
      return true;
    if (type.getRank() == 1)
      return map.getNumResults() == 1 &&
             map.getResult(0) == getAffineDimExpr(1, op.getContext());
    return map.isIdentity() && type.getShape() == outType.getShape() &&
           type.isLastDimUnitStride();
  });
}

/// The initializer and epilogue of the depthwise convolution `op` that its
/// kernel can compute; none where they do not fit. A broadcast initializer
/// is made a generic first.
cpu::ContractionEpilogue fusedAround(RewriterBase &rewriter,
                                     linalg::LinalgOp op) {
  Value out = op.getDpsInits()[0];
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    auto bcast = dyn_cast<linalg::BroadcastOp>(prev);
    if (bcast && bcast.getInit() == out) {
      rewriter.setInsertionPoint(bcast);
      (void)linalg::generalizeNamedOp(rewriter, bcast);
      break;
    }
  }
  std::optional<cpu::ContractionEpilogue> found =
      cpu::findContractionEpilogue(op);
  if (!found)
    return {};
  cpu::ContractionEpilogue fused = *found;
  if (fused.init && !isa<linalg::FillOp>(fused.init) &&
      !readable(cast<linalg::LinalgOp>(fused.init), out))
    fused.init = nullptr;
  // What the kernel reads and writes must exist before it (a padded
  // buffer's interior may be viewed after the convolution).
  DominanceInfo dom(op->getParentOp());
  auto available = [&](linalg::LinalgOp other) {
    return llvm::all_of(other->getOperands(), [&](Value v) {
      return cpu::availableBefore(v, op, dom);
    });
  };
  if (fused.init && !available(cast<linalg::LinalgOp>(fused.init)))
    fused.init = nullptr;
  if (fused.epilogue) {
    auto d = cast<MemRefType>(fused.epilogue.getDpsInits()[0].getType());
    if (!readable(fused.epilogue, out) || !d.isLastDimUnitStride() ||
        d.getShape() != cast<MemRefType>(out.getType()).getShape() ||
        !available(fused.epilogue))
      fused.epilogue = nullptr;
  }
  return fused;
}

/// The elementwise op after `op` that reads or writes its output through
/// collapsed views of whole out-shaped buffers (CollapseElementwiseDims.cpp
/// merges the rows of maps under 16 pixels wide into long ones, for the
/// vector rows of an op on its own), rebuilt on the buffers themselves, in
/// out's shape, right before it; null if there is none.
linalg::GenericOp uncollapsedEpilogue(RewriterBase &rewriter,
                                      linalg::LinalgOp op) {
  Value out = op.getDpsInits()[0];
  auto outType = cast<MemRefType>(out.getType());
  if (!outType.getLayout().isIdentity())
    return {};
  auto gen = dyn_cast_or_null<linalg::GenericOp>(
      nextToucher(op, rangeOf(out), /*after=*/true));
  if (!gen || !gen.hasPureBufferSemantics() ||
      gen.getNumParallelLoops() != gen.getNumLoops() ||
      gen.getNumLoops() >= outType.getRank())
    return {};
  SmallVector<Value> operands;
  for (OpOperand &operand : gen->getOpOperands()) {
    auto collapse = operand.get().getDefiningOp<memref::CollapseShapeOp>();
    if (!collapse || collapse.getSrcType() != outType ||
        !gen.getMatchingIndexingMap(&operand).isIdentity())
      return {};
    operands.push_back(collapse.getSrc());
  }
  int64_t numInputs = gen.getNumDpsInputs();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(gen);
  auto shaped = linalg::GenericOp::create(
      rewriter, gen.getLoc(), TypeRange{},
      ArrayRef(operands).take_front(numInputs),
      ArrayRef(operands).drop_front(numInputs),
      SmallVector<AffineMap>(operands.size(), AffineMap::getMultiDimIdentityMap(
                                                  outType.getRank(), ctx)),
      SmallVector<utils::IteratorType>(outType.getRank(),
                                       utils::IteratorType::parallel));
  rewriter.cloneRegionBefore(gen.getRegion(), shaped.getRegion(),
                             shaped.getRegion().begin());
  return shaped;
}

/// The fills of `op`'s padded input's borders (FillPadBorders.cpp) right
/// before it: fills of static boxes of the input that span every (batch,
/// channel) plane, with no op between them and `op` that may touch the
/// input (its bias initializer, or `skip`, the initializer the kernel
/// computes, may be).
/// The kernel writes each plane's part of them just before it reads the
/// plane: run as passes of their own they touched a cache line per padded
/// row (the left and right columns), serially, after a producer on other
/// cores had written the lines (MobileNetV2: 0.58 ms of 7.7 on one thread,
/// 0.83 ms on two).
SmallVector<linalg::FillOp> borderFillsBefore(linalg::LinalgOp op,
                                              Operation *skip) {
  Value in = op.getDpsInputs()[0];
  auto inType = cast<MemRefType>(in.getType());
  BufferRange input = rangeOf(in);
  SmallVector<linalg::FillOp> fills;
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (prev == skip)
      continue;
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (!fill) {
      if (isNonMemoryOp(prev) || !touches(prev, input))
        continue;
      break;
    }
    auto box = fill.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
    if (!box || box.getSource() != in || !fill.hasPureBufferSemantics())
      break;
    ArrayRef<int64_t> offsets = box.getStaticOffsets(),
                      sizes = box.getStaticSizes(),
                      strides = box.getStaticStrides();
    if (box.getType().getRank() != inType.getRank() ||
        ShapedType::isDynamicShape(offsets) ||
        ShapedType::isDynamicShape(sizes) ||
        llvm::any_of(strides, [](int64_t st) { return st != 1; }) ||
        offsets[0] != 0 || offsets[1] != 0 ||
        sizes[0] != inType.getDimSize(0) || sizes[1] != inType.getDimSize(1))
      break;
    fills.push_back(fill);
  }
  std::reverse(fills.begin(), fills.end());
  return fills;
}

/// `fills` restricted to the plane (n, c), at the builder's position.
void fillPlaneBorders(RewriterBase &rewriter, ArrayRef<linalg::FillOp> fills,
                      Value n, Value c) {
  for (linalg::FillOp fill : fills) {
    auto box = fill.getOutputs()[0].getDefiningOp<memref::SubViewOp>();
    ArrayRef<int64_t> offsets = box.getStaticOffsets(),
                      sizes = box.getStaticSizes();
    SmallVector<OpFoldResult> planeOffsets{n, c}, planeSizes, unit;
    for (int64_t d = 0, e = offsets.size(); d < e; ++d) {
      if (d >= 2)
        planeOffsets.push_back(rewriter.getIndexAttr(offsets[d]));
      planeSizes.push_back(rewriter.getIndexAttr(d < 2 ? 1 : sizes[d]));
      unit.push_back(rewriter.getIndexAttr(1));
    }
    Value plane =
        memref::SubViewOp::create(rewriter, fill.getLoc(), box.getSource(),
                                  planeOffsets, planeSizes, unit);
    linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs()[0], plane);
  }
}

/// Marks `loop` (the kernel of `op` and what it fused) as overwriting the
/// arena buffer its activation writes, when the loop writes all of it and
/// reads none of it: a product before it, whose output those bytes were,
/// may then keep that output in its registers.
void markOverwrite(Operation *loop, linalg::LinalgOp op,
                   cpu::ContractionEpilogue fused) {
  if (!fused.epilogue)
    return;
  Value d = fused.epilogue.getDpsInits()[0], out = op.getDpsInits()[0];
  auto view = underReshapes(d).getDefiningOp<memref::ViewOp>();
  BufferRange dRange = rangeOf(d);
  OpOperand *dOperand = fused.epilogue.getDpsInitOperand(0);
  if (!view || !dRange.known || dRange.hi < 0 ||
      fused.epilogue.payloadUsesValueFromOperand(dOperand))
    return;
  // What the loop reads from memory: the convolution's inputs, its output
  // where no initializer starts the accumulators, the initializer's and the
  // epilogue's inputs (the epilogue's C comes from the accumulators).
  SmallVector<Value> reads(op.getDpsInputs());
  if (fused.init)
    llvm::append_range(reads,
                       cast<linalg::LinalgOp>(fused.init).getDpsInputs());
  else
    reads.push_back(out);
  for (Value v : fused.epilogue.getDpsInputs())
    if (!isa<MemRefType>(v.getType()) || !sameBuffer(v, out))
      reads.push_back(v);
  if (llvm::any_of(reads, [&](Value v) {
        return isa<MemRefType>(v.getType()) && mayAlias(rangeOf(v), dRange);
      }))
    return;
  loop->setAttr(
      kOverwritesAttr,
      DenseI64ArrayAttr::get(loop->getContext(), {dRange.lo, dRange.hi}));
}

struct VectorizeDepthwiseConvPass
    : impl::VectorizeDepthwiseConvBase<VectorizeDepthwiseConvPass> {
  using VectorizeDepthwiseConvBase::VectorizeDepthwiseConvBase;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> planes;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::DepthwiseConv2DNchwChwOp, linalg::PoolingNchwMaxOp,
              linalg::PoolingNchwSumOp>(op))
        planes.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : planes) {
      kernel::CpuScheduleAttr schedule = getOwnSchedule(op);
      if (!schedule || schedule.getStrategy() != "depthwise")
        continue;
      auto maxPool = dyn_cast<linalg::PoolingNchwMaxOp>(op.getOperation());
      auto sumPool = dyn_cast<linalg::PoolingNchwSumOp>(op.getOperation());
      bool pool = maxPool || sumPool;
      std::optional<ConvShape> s =
          maxPool   ? matchWindow(maxPool)
          : sumPool ? matchWindow(sumPool)
                    : matchWindow(cast<linalg::DepthwiseConv2DNchwChwOp>(
                          op.getOperation()));
      if (!s) {
        remarkSlowPath(op,
                       pool ? "pooling in scalar loops"
                            : "depthwise convolution in scalar loops",
                       "the vector kernel takes static f32 windows with "
                       "stride 1 or 2 along the width");
        continue;
      }
      int64_t vl = schedule.getVectorBits() / 32;
      Location loc = op.getLoc();
      // The bias broadcast before the convolution and the activation after
      // it in the accumulators (MobileNetV2's 96-channel 112x112 layer:
      // 458 -> 300 us in the model), where their operands fit.
      // Pooling likewise: its -inf or zero fill and what follows (the
      // division of an average, an activation) in the accumulators; filled
      // and read back, the output cost a pass of its own over memory (the
      // max pooling after ResNet-50's stem: 0.27 of 0.49 ms in the model).
      cpu::ContractionEpilogue fused;
      {
        // An activation collapsed into long rows joins the kernel in the
        // convolution's shape, or stays collapsed where it cannot.
        // (Set aside while the epilogue is looked for: it reads C too.)
        linalg::GenericOp shaped = uncollapsedEpilogue(rewriter, op);
        Operation *collapsed = nullptr;
        if (shaped) {
          collapsed = shaped->getNextNode();
          collapsed->remove();
        }
        fused = fusedAround(rewriter, op);
        if (shaped && fused.epilogue != shaped) {
          rewriter.setInsertionPoint(shaped);
          rewriter.insert(collapsed);
          rewriter.eraseOp(shaped);
        } else if (shaped) {
          collapsed->destroy();
        }
      }
      SmallVector<linalg::FillOp> borderFills =
          borderFillsBefore(op, fused.init);
      rewriter.setInsertionPoint(op);
      int64_t work = s->n * s->c * s->oh * s->ow * s->kh * s->kw;
      // Inside an existing forall the op already runs on some thread.
      bool threads = schedule.getThreads() > 0 && s->n * s->c >= 2 &&
                     work >= schedule.getMinParallelWork() &&
                     !op->getParentOfType<scf::ForallOp>();
      Value n, c;
      Operation *loop;
      if (threads) {
        auto forall = scf::ForallOp::create(
            rewriter, loc, getAsIndexOpFoldResult(&getContext(), {s->n, s->c}),
            /*outputs=*/ValueRange{}, /*mapping=*/std::nullopt);
        loop = forall;
        n = forall.getInductionVar(0);
        c = forall.getInductionVar(1);
        rewriter.setInsertionPoint(forall.getBody()->getTerminator());
      } else {
        // (No batch loop for one image: the outer loop carries the marks.)
        auto zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        auto one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        n = zero;
        loop = nullptr;
        if (s->n != 1) {
          auto nLoop = scf::ForOp::create(
              rewriter, loc, zero,
              arith::ConstantIndexOp::create(rewriter, loc, s->n), one);
          loop = nLoop;
          n = nLoop.getInductionVar();
          rewriter.setInsertionPoint(nLoop.getBody()->getTerminator());
        }
        auto cLoop = scf::ForOp::create(
            rewriter, loc, zero,
            arith::ConstantIndexOp::create(rewriter, loc, s->c), one);
        if (!loop)
          loop = cLoop;
        c = cLoop.getInductionVar();
        rewriter.setInsertionPoint(cLoop.getBody()->getTerminator());
      }
      fillPlaneBorders(rewriter, borderFills, n, c);
      PlaneEmitter emitter(rewriter, loc, *s, vl, op.getDpsInputs()[0],
                           pool ? Value() : op.getDpsInputs()[1],
                           op.getDpsInits()[0], n, c,
                           /*sum=*/sumPool != nullptr);
      if (fused.init || fused.epilogue)
        emitter.fuse(fused.init, fused.epilogue);
      emitter.emit(schedule.getAccumulators());
      markOverwrite(loop, op, fused);
      rewriter.eraseOp(op);
      for (linalg::FillOp fill : borderFills)
        rewriter.eraseOp(fill);
      if (fused.init)
        rewriter.eraseOp(fused.init);
      if (fused.epilogue)
        rewriter.eraseOp(fused.epilogue);
    }
    // Channels-last depthwise convolutions and max pooling share the
    // channel-vector loops of DepthwiseConvNhwc.cpp.
    SmallVector<Operation *> windows;
    getOperation().walk([&](Operation *op) {
      if (isa<linalg::DepthwiseConv2DNhwcHwcOp, linalg::PoolingNhwcMaxOp>(op))
        windows.push_back(op);
    });
    for (Operation *op : windows) {
      kernel::CpuScheduleAttr schedule = getOwnSchedule(op);
      if (!schedule || schedule.getStrategy() != "depthwise")
        continue;
      auto pool = dyn_cast<linalg::PoolingNhwcMaxOp>(op);
      LogicalResult done =
          pool ? cpu::vectorizeMaxPoolNhwc(rewriter, pool, schedule)
               : cpu::vectorizeDepthwiseConvNhwc(
                     rewriter, cast<linalg::DepthwiseConv2DNhwcHwcOp>(op),
                     schedule);
      if (failed(done))
        remarkSlowPath(op,
                       pool ? "max pooling in scalar loops"
                            : "depthwise convolution in scalar loops",
                       "the channels-last vector kernel takes static f32 "
                       "windows (an i8 input for convolutions)");
    }
  }
};

} // namespace
} // namespace kiln
