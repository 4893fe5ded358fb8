//===- DepthwiseConvNhwc.cpp - channels-last depthwise micro-kernel -------===//
//
// A static f32 linalg.depthwise_conv_2d_nhwc_hwc on buffers (its input
// already padded) vectorizes along the channels, which are contiguous in
// the input, the filter and the output:
//
//   scf.forall (n, oh)                              threads
//     scf.for ow step U, scf.for c step CB*VL       U pixels x CB vectors
//       acc[u][j] = load out[n, oh, ow + u, c + j*VL]
//       scf.for kh                                  (iter_args: acc)
//         for kw, j:  w = load filter[kh, kw, c + j*VL]
//           for u:    acc[u][j] = fma(load in[n, oh*sh + kh*dh,
//                                    (ow + u)*sw + kw*dw, c + j*VL], w, acc)
//       store acc
//   with static tiles for the pixels and channel vectors left over, the last
//   channel vector masked when C is not a multiple of VL.
//
// Each filter vector is loaded once per U multiply-adds; U x CB
// accumulators hide the FMA latency. Used by
// kiln-cpu-vectorize-depthwise-conv for the channels-last form that
// kiln-convert-layout produces.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln::cpu {
namespace {

struct NhwcShape {
  int64_t n, ih, iw, c, oh, ow, kh, kw, sh, sw, dh, dw;
};

/// The shape of a depthwise convolution ([KH, KW, C] filter) or a max
/// pooling ([KH, KW] window) the kernel takes.
template <typename OpT> std::optional<NhwcShape> matchNhwc(OpT op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  auto inTy = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto wTy = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto outTy = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!inTy || !wTy || !outTy || !inTy.hasStaticShape() ||
      !wTy.hasStaticShape() || !outTy.hasStaticShape())
    return std::nullopt;
  bool pool = std::is_same_v<OpT, linalg::PoolingNhwcMaxOp>;
  for (MemRefType t : {inTy, wTy, outTy})
    if (!t.isLastDimUnitStride())
      return std::nullopt;
  // An i8 input (a quantized model's) is converted as it is loaded.
  if (!wTy.getElementType().isF32() || !outTy.getElementType().isF32() ||
      !(inTy.getElementType().isF32() ||
        (!pool && inTy.getElementType().isSignlessInteger(8))))
    return std::nullopt;
  SmallVector<int64_t> st(op.getStrides().template getValues<int64_t>());
  SmallVector<int64_t> dl(op.getDilations().template getValues<int64_t>());
  ArrayRef<int64_t> in = inTy.getShape(), w = wTy.getShape(),
                    out = outTy.getShape();
  NhwcShape s{in[0], in[1], in[2], in[3], out[1], out[2],
              w[0],  w[1],  st[0], st[1], dl[0],  dl[1]};
  if (out[0] != s.n || out[3] != s.c ||
      (pool ? w.size() != 2 : w.size() != 3 || w[2] != s.c) ||
      (s.oh - 1) * s.sh + (s.kh - 1) * s.dh >= s.ih ||
      (s.ow - 1) * s.sw + (s.kw - 1) * s.dw >= s.iw)
    return std::nullopt;
  return s;
}

class NhwcEmitter {
public:
  /// `bias`: the accumulators start from it rather than from `out`. A null
  /// `filter` takes the maximum over the window instead (max pooling).
  NhwcEmitter(OpBuilder &b, Location loc, const NhwcShape &s, int64_t vl,
              Value in, Value filter, Value out, Value bias)
      : b(b), loc(loc), s(s), vl(vl), in(in), filter(filter), out(out),
        bias(bias), vecTy(VectorType::get({vl}, b.getF32Type())) {}

  /// Output row `oh` of image `n`, with about `accumulators` registers.
  void emitRow(Value n, Value oh, int64_t accumulators) {
    int64_t fullVecs = s.c / vl, rest = s.c % vl;
    int64_t cb = std::max<int64_t>(1, std::min<int64_t>(fullVecs, 2));
    int64_t u = std::min(s.ow, std::max<int64_t>(1, accumulators / cb));
    int64_t wholeCols = s.ow / u * u;
    auto cols = [&](Value ow, int64_t pixels) {
      if (fullVecs >= cb) {
        int64_t whole = fullVecs / cb * cb;
        auto loop =
            scf::ForOp::create(b, loc, cst(0), cst(whole * vl), cst(cb * vl));
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(loop.getBody()->getTerminator());
        emitTile(n, oh, ow, pixels, loop.getInductionVar(), cb, 0);
      }
      int64_t done = fullVecs / cb * cb;
      if (done < fullVecs)
        emitTile(n, oh, ow, pixels, cst(done * vl), fullVecs - done, 0);
      if (rest)
        emitTile(n, oh, ow, pixels, cst(fullVecs * vl), 1, rest);
    };
    if (wholeCols > 0) {
      auto loop = scf::ForOp::create(b, loc, cst(0), cst(wholeCols), cst(u));
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(loop.getBody()->getTerminator());
      cols(loop.getInductionVar(), u);
    }
    if (wholeCols < s.ow)
      cols(cst(wholeCols), s.ow - wholeCols);
  }

private:
  Value cst(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value a, int64_t v) {
    return v == 0 ? a : arith::AddIOp::create(b, loc, a, cst(v)).getResult();
  }
  Value mul(Value a, int64_t v) {
    return v == 1 ? a : arith::MulIOp::create(b, loc, a, cst(v)).getResult();
  }

  Value load(OpBuilder &ob, Value mem, ValueRange idx, Value mask) {
    if (!mask)
      return vector::LoadOp::create(ob, loc, vecTy, mem, idx);
    Value zero = arith::ConstantOp::create(
        ob, loc, DenseElementsAttr::get(vecTy, ob.getF32FloatAttr(0)));
    return vector::MaskedLoadOp::create(ob, loc, vecTy, mem, idx, mask, zero);
  }

  /// An input vector as f32 (i8 inputs are converted).
  Value loadInput(OpBuilder &ob, ValueRange idx, Value mask) {
    Type elt = cast<MemRefType>(in.getType()).getElementType();
    if (elt.isF32())
      return load(ob, in, idx, mask);
    auto bytes = VectorType::get({vl}, elt);
    Value v;
    if (mask) {
      Value zero = arith::ConstantOp::create(
          ob, loc, DenseElementsAttr::get(bytes, ob.getIntegerAttr(elt, 0)));
      v = vector::MaskedLoadOp::create(ob, loc, bytes, in, idx, mask, zero);
    } else {
      v = vector::LoadOp::create(ob, loc, bytes, in, idx);
    }
    return arith::SIToFPOp::create(ob, loc, vecTy, v);
  }

  /// Pixels [ow, ow + pixels) by `vecs` channel vectors from `c`; `partial`
  /// lanes (a masked vector) when non-zero.
  void emitTile(Value n, Value oh, Value ow, int64_t pixels, Value c,
                int64_t vecs, int64_t partial) {
    Value mask;
    if (partial)
      mask = vector::ConstantMaskOp::create(
          b, loc, VectorType::get({vl}, b.getI1Type()),
          ArrayRef<int64_t>{partial});
    SmallVector<Value> owIdx, cIdx, init;
    for (int64_t p = 0; p < pixels; ++p)
      owIdx.push_back(add(ow, p));
    for (int64_t j = 0; j < vecs; ++j)
      cIdx.push_back(add(c, j * vl));
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t j = 0; j < vecs; ++j)
        init.push_back(bias ? load(b, bias, {cIdx[j]}, mask)
                            : load(b, out, {n, oh, owIdx[p], cIdx[j]}, mask));
    Value rowBase = mul(oh, s.sh);
    auto loop = scf::ForOp::create(
        b, loc, cst(0), cst(s.kh), cst(1), init,
        [&](OpBuilder &nb, Location nl, Value kh, ValueRange acc) {
          Value ih = arith::AddIOp::create(
              nb, nl, rowBase,
              arith::MulIOp::create(nb, nl, kh, cst(s.dh)).getResult());
          SmallVector<Value> next(acc);
          for (int64_t kw = 0; kw < s.kw; ++kw)
            for (int64_t j = 0; j < vecs; ++j) {
              Value w;
              if (filter)
                w = load(nb, filter, {kh, cst(kw), cIdx[j]}, mask);
              for (int64_t p = 0; p < pixels; ++p) {
                Value iw = add(mul(owIdx[p], s.sw), kw * s.dw);
                Value x = loadInput(nb, {n, ih, iw, cIdx[j]}, mask);
                Value &a = next[p * vecs + j];
                a = filter ? vector::FMAOp::create(nb, nl, x, w, a).getResult()
                           : poolingMax(nb, nl, a, x);
              }
            }
          scf::YieldOp::create(nb, nl, next);
        });
    for (int64_t p = 0; p < pixels; ++p)
      for (int64_t j = 0; j < vecs; ++j) {
        SmallVector<Value> idx = {n, oh, owIdx[p], cIdx[j]};
        Value v = loop.getResult(p * vecs + j);
        if (mask)
          vector::MaskedStoreOp::create(b, loc, out, idx, mask, v);
        else
          vector::StoreOp::create(b, loc, v, out, idx);
      }
  }

  OpBuilder &b;
  Location loc;
  NhwcShape s;
  int64_t vl;
  Value in, filter, out, bias;
  VectorType vecTy;
};

} // namespace

/// True when `op` or an op nested in it has `v` as an operand.
static bool usesValue(Operation *op, Value v) {
  return op
      ->walk([&](Operation *inner) {
        return llvm::is_contained(inner->getOperands(), v)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

Operation *getPreviousUser(Operation *op, Value buffer) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode())
    if (usesValue(prev, buffer))
      return prev;
  return nullptr;
}

Operation *getNextUser(Operation *op, Value buffer) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode())
    if (usesValue(next, buffer))
      return next;
  return nullptr;
}

template <typename OpT>
static LogicalResult vectorizeNhwcWindow(RewriterBase &rewriter, OpT op,
                                         kernel::CpuScheduleAttr schedule) {
  std::optional<NhwcShape> s = matchNhwc(op);
  if (!s)
    return failure();
  int64_t vl = schedule.getVectorBits() / 32;
  if (vl < 4)
    return failure();
  Location loc = op.getLoc();
  // A broadcast of the bias into the output just before: the accumulators
  // start from the bias instead of a pass that writes it everywhere.
  Value out = op.getDpsInits()[0], bias;
  auto broadcast =
      dyn_cast_or_null<linalg::BroadcastOp>(getPreviousUser(op, out));
  bool pool = std::is_same_v<OpT, linalg::PoolingNhwcMaxOp>;
  if (!pool && broadcast && broadcast.getInit() == out &&
      broadcast.getDimensions() == ArrayRef<int64_t>{0, 1, 2} &&
      cast<MemRefType>(broadcast.getInput().getType()).isLastDimUnitStride()) {
    bias = broadcast.getInput();
    rewriter.eraseOp(broadcast);
  }
  rewriter.setInsertionPoint(op);
  int64_t work = s->n * s->oh * s->ow * s->c * s->kh * s->kw;
  bool threads = schedule.getThreads() > 0 && s->n * s->oh >= 2 &&
                 work >= schedule.getMinParallelWork() &&
                 !op->template getParentOfType<scf::ForallOp>();
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      getAsIndexOpFoldResult(rewriter.getContext(), {s->n, s->oh}),
      ValueRange{}, std::nullopt);
  {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPoint(forall.getBody()->getTerminator());
    NhwcEmitter(rewriter, loc, *s, vl, op.getDpsInputs()[0],
                pool ? Value() : op.getDpsInputs()[1], out, bias)
        .emitRow(forall.getInductionVar(0), forall.getInductionVar(1),
                 schedule.getAccumulators());
  }
  if (!threads)
    (void)scf::forallToForLoop(rewriter, forall);
  rewriter.eraseOp(op);
  return success();
}

Value poolingMax(OpBuilder &b, Location loc, Value acc, Value x) {
  Value greater =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, acc);
  return arith::SelectOp::create(b, loc, greater, x, acc);
}

LogicalResult vectorizeDepthwiseConvNhwc(RewriterBase &rewriter,
                                         linalg::DepthwiseConv2DNhwcHwcOp op,
                                         kernel::CpuScheduleAttr schedule) {
  return vectorizeNhwcWindow(rewriter, op, schedule);
}

LogicalResult vectorizeMaxPoolNhwc(RewriterBase &rewriter,
                                   linalg::PoolingNhwcMaxOp op,
                                   kernel::CpuScheduleAttr schedule) {
  return vectorizeNhwcWindow(rewriter, op, schedule);
}

} // namespace kiln::cpu
