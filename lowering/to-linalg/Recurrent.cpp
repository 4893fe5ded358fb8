//===- Recurrent.cpp - RNN, GRU and LSTM to linalg/scf --------------------===//
//
// Per direction: the input projections X W^T + Wb for all time steps at once
// (one contraction), then an scf.for over time carrying the states: each
// step contracts H with R^T, and one elementwise generic over [batch, hidden]
// applies the op's gate equations and writes the new states and Y's row.
// Steps past a batch entry's sequence_lens keep its state and write zeros.
// The reverse direction runs forward over each sequence reversed (its first
// sequence_lens steps) and reverses its Y back. layout = 1 transposes in and
// out.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

using Iters = SmallVector<utils::IteratorType>;

/// One activation of the op's list, with its parameters.
struct Act {
  std::string name;
  double alpha = 0, beta = 0;
};

Value fc(OpBuilder &b, Location l, Type t, double v) {
  return createScalarConstant(b, l, t, v);
}

Value applyAct(OpBuilder &b, Location l, const Act &a, Value x) {
  Type t = x.getType();
  auto mul = [&](Value p, Value q) -> Value {
    return arith::MulFOp::create(b, l, p, q);
  };
  auto add = [&](Value p, Value q) -> Value {
    return arith::AddFOp::create(b, l, p, q);
  };
  StringRef n = a.name;
  // The ones the fused-op epilogues have too.
  float alpha = a.alpha, beta = a.beta;
  if (n == "Tanh")
    return buildActivation(b, l, graph::Activation::Tanh, {}, x);
  if (n == "Sigmoid")
    return buildActivation(b, l, graph::Activation::Sigmoid, {}, x);
  if (n == "Relu")
    return buildActivation(b, l, graph::Activation::Relu, {}, x);
  if (n == "LeakyRelu")
    return buildActivation(b, l, graph::Activation::LeakyRelu, {alpha}, x);
  if (n == "HardSigmoid")
    return buildActivation(b, l, graph::Activation::HardSigmoid, {alpha, beta},
                           x);
  Value zero = fc(b, l, t, 0), one = fc(b, l, t, 1);
  if (n == "ThresholdedRelu")
    return arith::SelectOp::create(
        b, l,
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x,
                              fc(b, l, t, a.alpha)),
        x, zero);
  if (n == "Elu")
    return arith::SelectOp::create(
        b, l, arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, x, zero),
        mul(fc(b, l, t, a.alpha),
            arith::SubFOp::create(b, l, math::ExpOp::create(b, l, x), one)),
        x);
  if (n == "Softsign")
    return arith::DivFOp::create(b, l, x,
                                 add(one, math::AbsFOp::create(b, l, x)));
  if (n == "Softplus")
    return math::LogOp::create(b, l, add(one, math::ExpOp::create(b, l, x)));
  if (n == "Affine")
    return add(mul(x, fc(b, l, t, a.alpha)), fc(b, l, t, a.beta));
  // ScaledTanh
  return mul(fc(b, l, t, a.alpha),
             math::TanhOp::create(b, l, mul(x, fc(b, l, t, a.beta))));
}

/// The op's activations for `dirs` directions, `perDir` each, with the
/// ONNX defaults and the alpha/beta lists consumed in order.
FailureOr<SmallVector<Act>> getActs(std::optional<ArrayAttr> names,
                                    std::optional<ArrayRef<float>> alphas,
                                    std::optional<ArrayRef<float>> betas,
                                    ArrayRef<StringRef> defaults, int dirs) {
  SmallVector<Act> acts;
  size_t ai = 0, bi = 0;
  for (int d = 0; d < dirs; ++d)
    for (size_t i = 0; i < defaults.size(); ++i) {
      Act a;
      size_t k = d * defaults.size() + i;
      if (names && k < names->size())
        a.name = cast<StringAttr>((*names)[k]).str();
      else if (names && !names->empty() && names->size() == defaults.size())
        a.name = cast<StringAttr>((*names)[i]).str();
      else
        a.name = defaults[i].str();
      struct P {
        const char *name;
        double alpha, beta;
        bool hasAlpha, hasBeta;
      } const table[] = {{"Tanh", 0, 0, false, false},
                         {"Sigmoid", 0, 0, false, false},
                         {"Relu", 0, 0, false, false},
                         {"Softsign", 0, 0, false, false},
                         {"Softplus", 0, 0, false, false},
                         {"LeakyRelu", 0.01, 0, true, false},
                         {"ThresholdedRelu", 1, 0, true, false},
                         {"Elu", 1, 0, true, false},
                         {"HardSigmoid", 0.2, 0.5, true, true},
                         {"Affine", 1, 0, true, true},
                         {"ScaledTanh", 1, 1, true, true}};
      const P *p = nullptr;
      for (const P &e : table)
        if (a.name == e.name)
          p = &e;
      if (!p)
        return failure();
      a.alpha = p->alpha;
      a.beta = p->beta;
      if (p->hasAlpha && alphas && ai < alphas->size())
        a.alpha = (*alphas)[ai++];
      if (p->hasBeta && betas && bi < betas->size())
        a.beta = (*betas)[bi++];
      acts.push_back(a);
    }
  return acts;
}

Value dimOf(OpBuilder &b, Location l, Value t, int64_t i) {
  return tensor::DimOp::create(b, l, t, i);
}

Value zeros(OpBuilder &b, Location l, ArrayRef<int64_t> shape,
            ValueRange dynSizes, Type elt) {
  Value e = tensor::EmptyOp::create(b, l, shape, elt, dynSizes);
  return linalg::FillOp::create(b, l, fc(b, l, elt, 0), e).getResult(0);
}

/// Slice `d` of a [dirs, ...] tensor, without the leading dim.
Value directionSlice(OpBuilder &b, Location l, Value t, int64_t d) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t r = type.getRank();
  SmallVector<OpFoldResult> offs(r, b.getIndexAttr(0)), sizes,
      strides(r, b.getIndexAttr(1));
  offs[0] = b.getIndexAttr(d);
  sizes.push_back(b.getIndexAttr(1));
  for (int64_t i = 1; i < r; ++i)
    sizes.push_back(tensor::getMixedSize(b, l, t, i));
  auto resType = RankedTensorType::get(type.getShape().drop_front(),
                                       type.getElementType());
  return tensor::ExtractSliceOp::create(b, l, resType, t, offs, sizes, strides);
}

/// Columns [off, off + n) of a 2-D tensor, or elements of a 1-D one (linalg
/// needs each operand's extent to match its loop, so gates are sliced out
/// rather than read through offset maps).
Value sliceLast(OpBuilder &b, Location l, Value t, int64_t off, int64_t n) {
  auto type = cast<RankedTensorType>(t.getType());
  int64_t r = type.getRank();
  SmallVector<OpFoldResult> offs(r, b.getIndexAttr(0)), sizes,
      strides(r, b.getIndexAttr(1));
  for (int64_t i = 0; i + 1 < r; ++i)
    sizes.push_back(tensor::getMixedSize(b, l, t, i));
  offs.back() = b.getIndexAttr(off);
  sizes.push_back(b.getIndexAttr(n));
  SmallVector<int64_t> shape(type.getShape());
  shape.back() = n;
  return tensor::ExtractSliceOp::create(
      b, l, RankedTensorType::get(shape, type.getElementType()), t, offs, sizes,
      strides);
}

/// A [..., n] x B[g, n]^T -> [..., g] contraction (A of rank 2 or 3).
Value contractT(OpBuilder &b, Location l, Value a, Value w) {
  auto at = cast<RankedTensorType>(a.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t r = at.getRank();
  MLIRContext *ctx = b.getContext();
  SmallVector<int64_t> shape(at.getShape().drop_back());
  shape.push_back(wt.getDimSize(0));
  SmallVector<Value> dyn;
  for (int64_t i = 0; i + 1 < r; ++i)
    if (at.isDynamicDim(i))
      dyn.push_back(dimOf(b, l, a, i));
  Type elt = at.getElementType();
  Value init = zeros(b, l, shape, dyn, elt);
  // Loops: the leading dims of A, g, then n (reduced).
  SmallVector<AffineExpr> ae, we, oe;
  for (int64_t i = 0; i + 1 < r; ++i) {
    ae.push_back(getAffineDimExpr(i, ctx));
    oe.push_back(getAffineDimExpr(i, ctx));
  }
  ae.push_back(getAffineDimExpr(r, ctx));
  oe.push_back(getAffineDimExpr(r - 1, ctx));
  we = {getAffineDimExpr(r - 1, ctx), getAffineDimExpr(r, ctx)};
  SmallVector<AffineMap> maps{AffineMap::get(r + 1, 0, ae, ctx),
                              AffineMap::get(r + 1, 0, we, ctx),
                              AffineMap::get(r + 1, 0, oe, ctx)};
  Iters iters(r, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, l, init.getType(), ValueRange{a, w}, init, maps, iters,
             [&](OpBuilder &nb, Location nl, ValueRange x) {
               Value m = arith::MulFOp::create(nb, nl, x[0], x[1]);
               linalg::YieldOp::create(
                   nb, nl, arith::AddFOp::create(nb, nl, x[2], m).getResult());
             })
      .getResult(0);
}

/// [seq, batch, ...] with each batch entry's first len steps reversed (all
/// seq steps without `lens`).
Value reverseSequences(OpBuilder &b, Location l, Value x, Value lens) {
  auto type = cast<RankedTensorType>(x.getType());
  int64_t r = type.getRank();
  SmallVector<Value> dyn;
  for (int64_t i = 0; i < r; ++i)
    if (type.isDynamicDim(i))
      dyn.push_back(dimOf(b, l, x, i));
  Value init = tensor::EmptyOp::create(b, l, type.getShape(),
                                       type.getElementType(), dyn);
  Value seq = dimOf(b, l, x, 0);
  return linalg::GenericOp::create(
             b, l, type, ValueRange{}, init, b.getMultiDimIdentityMap(r),
             Iters(r, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location nl, ValueRange) {
               SmallVector<Value> ivs;
               for (int64_t i = 0; i < r; ++i)
                 ivs.push_back(linalg::IndexOp::create(nb, nl, i));
               Value len = seq;
               if (!isAbsent(lens))
                 len = arith::IndexCastOp::create(
                     nb, nl, nb.getIndexType(),
                     tensor::ExtractOp::create(nb, nl, lens, ivs[1]));
               Value one = arith::ConstantIndexOp::create(nb, nl, 1);
               Value rev = arith::SubIOp::create(
                   nb, nl, arith::SubIOp::create(nb, nl, len, ivs[0]), one);
               Value in = arith::CmpIOp::create(
                   nb, nl, arith::CmpIPredicate::slt, ivs[0], len);
               SmallVector<Value> idx(ivs);
               idx[0] = arith::SelectOp::create(nb, nl, in, rev, ivs[0]);
               linalg::YieldOp::create(
                   nb, nl,
                   tensor::ExtractOp::create(nb, nl, x, idx).getResult());
             })
      .getResult(0);
}

enum class Kind { RNN, GRU, LSTM };

/// The gate equations of one step at one (batch, hidden) element.
/// `xw`/`hr`/`wb`/`rb` hold one value per gate; `c` is LSTM's cell state
/// and `p` its peepholes (i, o, f). Returns (h, c).
std::pair<Value, Value> stepBody(OpBuilder &b, Location l, Kind kind,
                                 ArrayRef<Act> acts, std::optional<double> clip,
                                 bool linearBeforeReset, bool inputForget,
                                 ArrayRef<Value> xw, ArrayRef<Value> hr,
                                 ArrayRef<Value> wb, ArrayRef<Value> rb,
                                 ArrayRef<Value> p, Value h, Value c) {
  auto add = [&](Value x, Value y) -> Value {
    return arith::AddFOp::create(b, l, x, y);
  };
  auto mul = [&](Value x, Value y) -> Value {
    return arith::MulFOp::create(b, l, x, y);
  };
  Type t = h.getType();
  auto clipped = [&](Value x) -> Value {
    if (!clip)
      return x;
    return arith::MinimumFOp::create(
        b, l, arith::MaximumFOp::create(b, l, x, fc(b, l, t, -*clip)),
        fc(b, l, t, *clip));
  };
  auto gate = [&](int g) { return add(add(xw[g], wb[g]), add(hr[g], rb[g])); };
  if (kind == Kind::RNN)
    return {applyAct(b, l, acts[0], clipped(gate(0))), c};
  if (kind == Kind::GRU) {
    // Gates z, r, h.
    Value z = applyAct(b, l, acts[0], clipped(gate(0)));
    Value r = applyAct(b, l, acts[0], clipped(gate(1)));
    // Without linear_before_reset, hr[2] is already (r . H) R_h^T.
    Value hpart =
        linearBeforeReset ? mul(r, add(hr[2], rb[2])) : add(hr[2], rb[2]);
    Value hh = applyAct(b, l, acts[1], clipped(add(add(xw[2], wb[2]), hpart)));
    Value one = fc(b, l, t, 1);
    return {add(mul(arith::SubFOp::create(b, l, one, z), hh), mul(z, h)), c};
  }
  // LSTM gates i, o, f, c; peepholes i, o, f.
  Value i = applyAct(b, l, acts[0], clipped(add(gate(0), mul(p[0], c))));
  Value f = inputForget
                ? Value(arith::SubFOp::create(b, l, fc(b, l, t, 1), i))
                : applyAct(b, l, acts[0], clipped(add(gate(2), mul(p[2], c))));
  Value cc = applyAct(b, l, acts[1], clipped(gate(3)));
  Value cn = add(mul(f, c), mul(i, cc));
  Value o = applyAct(b, l, acts[0], clipped(add(gate(1), mul(p[1], cn))));
  return {mul(o, applyAct(b, l, acts[2], cn)), cn};
}

template <typename Op, Kind K>
struct RecurrentLowering : OpConversionPattern<Op> {
  using OpConversionPattern<Op>::OpConversionPattern;
  using Adaptor = typename OpConversionPattern<Op>::OpAdaptor;
  static constexpr int numGates = K == Kind::RNN ? 1 : K == Kind::GRU ? 3 : 4;
  static constexpr int numActs = K == Kind::RNN ? 1 : K == Kind::GRU ? 2 : 3;

  LogicalResult
  matchAndRewrite(Op op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), w = adaptor.getW(), r = adaptor.getR();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto rt = dyn_cast<RankedTensorType>(r.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast<RankedTensorType>(op.getY().getType());
    if (!xt || !rt || !yt || !wt || rt.isDynamicDim(2))
      return rewriter.notifyMatchFailure(op, "needs a static hidden size");
    // Exporters compute shapes at run time (a layer's input from the last
    // one's Reshape, zero states from ConstantOfShape): the weights know the
    // input and hidden sizes.
    x = refineDims(
        rewriter, loc, x,
        {ShapedType::kDynamic, ShapedType::kDynamic, wt.getDimSize(2)});
    xt = cast<RankedTensorType>(x.getType());
    if (xt.isDynamicDim(2))
      return rewriter.notifyMatchFailure(op, "needs a static input size");
    int64_t hidden = rt.getDimSize(2);
    int dirs = op.getDirection() == "bidirectional" ? 2 : 1;
    bool reverseOnly = op.getDirection() == "reverse";
    SmallVector<StringRef> defaults;
    if (K == Kind::RNN)
      defaults = {"Tanh"};
    else if (K == Kind::GRU)
      defaults = {"Sigmoid", "Tanh"};
    else
      defaults = {"Sigmoid", "Tanh", "Tanh"};
    auto acts = getActs(op.getActivations(), op.getActivationAlpha(),
                        op.getActivationBeta(), defaults, dirs);
    if (failed(acts))
      return rewriter.notifyMatchFailure(op, "unsupported activation");
    std::optional<double> clip;
    if (auto c = op.getClip())
      clip = c->convertToDouble();
    bool lbr = false, inputForget = false;
    if constexpr (K == Kind::GRU)
      lbr = op.getLinearBeforeReset() != 0;
    if constexpr (K == Kind::LSTM)
      inputForget = op.getInputForget() != 0;

    bool batchFirst = op.getLayout() != 0;
    if (batchFirst)
      x = createTranspose(rewriter, loc, x, {1, 0, 2});
    Type elt = xt.getElementType();
    Value seq = dimOf(rewriter, loc, x, 0), batch = dimOf(rewriter, loc, x, 1);
    auto seqType = cast<RankedTensorType>(x.getType());
    int64_t sSeq = seqType.getDimSize(0), sBatch = seqType.getDimSize(1);
    int64_t gh = numGates * hidden;
    SmallVector<Value> dynSB, dynB;
    if (ShapedType::isDynamic(sSeq))
      dynSB.push_back(seq);
    if (ShapedType::isDynamic(sBatch)) {
      dynSB.push_back(batch);
      dynB.push_back(batch);
    }
    Value lens = adaptor.getSequenceLens();
    Value bias = adaptor.getB();
    if (isAbsent(bias))
      bias = zeros(rewriter, loc, {dirs, 2 * gh}, {}, elt);

    SmallVector<Value> ys, hs, cs;
    for (int d = 0; d < dirs; ++d) {
      bool reverse = reverseOnly || d == 1;
      const Act *dirActs = &(*acts)[d * defaults.size()];
      Value xd = reverse ? reverseSequences(rewriter, loc, x, lens) : x;
      Value wd = directionSlice(rewriter, loc, w, d);
      Value rd = directionSlice(rewriter, loc, r, d);
      Value bd = directionSlice(rewriter, loc, bias, d);
      Value xw = contractT(rewriter, loc, xd, wd); // [seq, batch, gh]
      auto initialState = [&](Value given) {
        if (isAbsent(given))
          return zeros(rewriter, loc, {sBatch, hidden}, dynB, elt);
        given = refineDims(rewriter, loc, given, {dirs, sBatch, hidden});
        return directionSlice(rewriter, loc, given, d);
      };
      Value h0 = initialState(adaptor.getInitialH());
      Value c0, pd;
      if constexpr (K == Kind::LSTM) {
        c0 = initialState(adaptor.getInitialC());
        pd = isAbsent(adaptor.getP())
                 ? zeros(rewriter, loc, {3 * hidden}, {}, elt)
                 : directionSlice(rewriter, loc, adaptor.getP(), d);
      }
      Value y0 = zeros(rewriter, loc, {sSeq, sBatch, hidden}, dynSB, elt);
      Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
      Value c0i = arith::ConstantIndexOp::create(rewriter, loc, 0);
      auto loop = scf::ForOp::create(
          rewriter, loc, c0i, seq, c1,
          c0 ? ValueRange{h0, c0, y0} : ValueRange{h0, y0},
          [&](OpBuilder &b, Location l, Value t, ValueRange it) {
            // Only LSTM carries a cell state.
            Value h = it[0], c = c0 ? it[1] : Value(), y = it.back();
            auto rowType = RankedTensorType::get({sBatch, gh}, elt);
            SmallVector<OpFoldResult> offs{t, b.getIndexAttr(0),
                                           b.getIndexAttr(0)};
            SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                            tensor::getMixedSize(b, l, x, 1),
                                            b.getIndexAttr(gh)};
            SmallVector<OpFoldResult> ones(3, b.getIndexAttr(1));
            Value xwt = tensor::ExtractSliceOp::create(b, l, rowType, xw, offs,
                                                       sizes, ones);
            Value hr = contractT(b, l, h, rd);
            // GRU without linear_before_reset: the h gate contracts r . H.
            Value hrH;
            if (K == Kind::GRU && !lbr)
              hrH = gruResetContraction(b, l, xwt, hr, h, rd, bd, hidden,
                                        dirActs, clip);
            scf::YieldOp::create(b, l,
                                 stepOnce(b, l, t, xwt, hr, hrH, bd, pd, h, c,
                                          y, lens, dirActs, clip, lbr,
                                          inputForget, hidden));
          });
      Value yd = loop.getResults().back();
      if (reverse)
        yd = reverseSequences(rewriter, loc, yd, lens);
      ys.push_back(yd);
      hs.push_back(loop.getResult(0));
      if (c0)
        cs.push_back(loop.getResult(1));
    }

    // Y [seq, dirs, batch, hidden], states [dirs, batch, hidden].
    auto stack = [&](ArrayRef<Value> parts, int64_t at) {
      auto pt = cast<RankedTensorType>(parts[0].getType());
      SmallVector<int64_t> shape(pt.getShape());
      shape.insert(shape.begin() + at, dirs);
      SmallVector<Value> dyn;
      for (int64_t i = 0; i < pt.getRank(); ++i)
        if (pt.isDynamicDim(i))
          dyn.push_back(dimOf(rewriter, loc, parts[0], i));
      Value out = tensor::EmptyOp::create(rewriter, loc, shape, elt, dyn);
      for (auto [d, p] : llvm::enumerate(parts)) {
        SmallVector<OpFoldResult> offs(shape.size(), rewriter.getIndexAttr(0));
        offs[at] = rewriter.getIndexAttr(d);
        SmallVector<OpFoldResult> sizes;
        for (int64_t i = 0, s = 0; i < int64_t(shape.size()); ++i)
          sizes.push_back(i == at
                              ? OpFoldResult(rewriter.getIndexAttr(1))
                              : tensor::getMixedSize(rewriter, loc, p, s++));
        SmallVector<OpFoldResult> strides(shape.size(),
                                          rewriter.getIndexAttr(1));
        out = tensor::InsertSliceOp::create(rewriter, loc, p, out, offs, sizes,
                                            strides);
      }
      return out;
    };
    Value y = stack(ys, 1);
    Value yh = stack(hs, 0);
    SmallVector<Value> results{y, yh};
    if constexpr (K == Kind::LSTM)
      results.push_back(stack(cs, 0));
    if (batchFirst) {
      results[0] = createTranspose(rewriter, loc, results[0], {2, 0, 1, 3});
      for (size_t i = 1; i < results.size(); ++i)
        results[i] = createTranspose(rewriter, loc, results[i], {1, 0, 2});
    }
    for (auto [res, v] : llvm::zip(op->getResults(), results))
      if (res.getType() != v.getType())
        v = tensor::CastOp::create(rewriter, loc, res.getType(), v);
    rewriter.replaceOp(op, results);
    return success();
  }

  /// GRU's h-gate hidden part without linear_before_reset: (r . H) R_h^T,
  /// with r computed from this step's z/r pre-activations. Returns
  /// [batch, hidden].
  static Value gruResetContraction(OpBuilder &b, Location l, Value xwt,
                                   Value hr, Value h, Value rd, Value bd,
                                   int64_t hidden, const Act *acts,
                                   std::optional<double> clip) {
    auto ht = cast<RankedTensorType>(h.getType());
    MLIRContext *ctx = b.getContext();
    AffineMap id = b.getMultiDimIdentityMap(2);
    AffineMap vec = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
    SmallVector<Value> dyn;
    if (ht.isDynamicDim(0))
      dyn.push_back(dimOf(b, l, h, 0));
    Value init =
        tensor::EmptyOp::create(b, l, ht.getShape(), ht.getElementType(), dyn);
    int64_t gh = 3 * hidden;
    Value rh =
        linalg::GenericOp::create(
            b, l, ht,
            ValueRange{sliceLast(b, l, xwt, hidden, hidden),
                       sliceLast(b, l, hr, hidden, hidden),
                       sliceLast(b, l, bd, hidden, hidden),
                       sliceLast(b, l, bd, gh + hidden, hidden), h},
            init, ArrayRef<AffineMap>{id, id, vec, vec, id, id},
            Iters(2, utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nl, ValueRange a) {
              Value pre = arith::AddFOp::create(
                  nb, nl, arith::AddFOp::create(nb, nl, a[0], a[2]),
                  arith::AddFOp::create(nb, nl, a[1], a[3]));
              if (clip)
                pre = arith::MinimumFOp::create(
                    nb, nl,
                    arith::MaximumFOp::create(
                        nb, nl, pre, fc(nb, nl, pre.getType(), -*clip)),
                    fc(nb, nl, pre.getType(), *clip));
              Value rg = applyAct(nb, nl, acts[0], pre);
              linalg::YieldOp::create(
                  nb, nl, arith::MulFOp::create(nb, nl, rg, a[4]).getResult());
            })
            .getResult(0);
    // The h-gate rows of R.
    auto rdt = cast<RankedTensorType>(rd.getType());
    auto rowsType =
        RankedTensorType::get({hidden, rdt.getDimSize(1)}, ht.getElementType());
    SmallVector<OpFoldResult> offs{b.getIndexAttr(2 * hidden),
                                   b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(hidden),
                                    b.getIndexAttr(rdt.getDimSize(1))};
    SmallVector<OpFoldResult> ones(2, b.getIndexAttr(1));
    Value rhRows =
        tensor::ExtractSliceOp::create(b, l, rowsType, rd, offs, sizes, ones);
    return contractT(b, l, rh, rhRows);
  }

  /// One time step: the gate generic over [batch, hidden], then Y's row.
  static SmallVector<Value> stepOnce(OpBuilder &b, Location l, Value t,
                                     Value xwt, Value hr, Value hrH, Value bd,
                                     Value pd, Value h, Value c, Value y,
                                     Value lens, const Act *acts,
                                     std::optional<double> clip, bool lbr,
                                     bool inputForget, int64_t hidden) {
    MLIRContext *ctx = b.getContext();
    auto ht = cast<RankedTensorType>(h.getType());
    Type elt = ht.getElementType();
    int64_t gh = numGates * hidden;
    AffineMap id = b.getMultiDimIdentityMap(2);
    AffineMap vec = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    for (int64_t g = 0; g < numGates; ++g) {
      inputs.append({sliceLast(b, l, xwt, g * hidden, hidden),
                     sliceLast(b, l, hr, g * hidden, hidden),
                     sliceLast(b, l, bd, g * hidden, hidden),
                     sliceLast(b, l, bd, gh + g * hidden, hidden)});
      maps.append({id, id, vec, vec});
    }
    bool useHrH = bool(hrH);
    if (useHrH) {
      inputs.push_back(hrH);
      maps.push_back(id);
    }
    bool hasPeep = bool(pd);
    if (hasPeep)
      for (int64_t k = 0; k < 3; ++k) {
        inputs.push_back(sliceLast(b, l, pd, k * hidden, hidden));
        maps.push_back(vec);
      }
    bool hasLens = !isAbsent(lens);
    if (hasLens) {
      inputs.push_back(lens);
      maps.push_back(AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    SmallVector<Value> dyn;
    if (ht.isDynamicDim(0))
      dyn.push_back(dimOf(b, l, h, 0));
    Value yInit = tensor::EmptyOp::create(b, l, ht.getShape(), elt, dyn);
    maps.append(c ? 3 : 2, id);
    // The states update in place: the loop yields what it was given.
    size_t numInputs = inputs.size();
    auto gen = linalg::GenericOp::create(
        b, l, c ? TypeRange{ht, ht, ht} : TypeRange{ht, ht}, inputs,
        c ? ValueRange{h, c, yInit} : ValueRange{h, yInit}, maps,
        Iters(2, utils::IteratorType::parallel),
        [&](OpBuilder &nb, Location nl, ValueRange a) {
          SmallVector<Value> xw, hrv, wb, rb, p;
          for (int64_t g = 0; g < numGates; ++g) {
            xw.push_back(a[4 * g]);
            hrv.push_back(a[4 * g + 1]);
            wb.push_back(a[4 * g + 2]);
            rb.push_back(a[4 * g + 3]);
          }
          size_t next = 4 * numGates;
          Value hv = a[numInputs], cv = c ? a[numInputs + 1] : Value();
          if (useHrH) {
            // (r . H) R_h^T replaces H R_h^T; its bias adds in stepBody.
            hrv[2] = a[next++];
          }
          if (hasPeep)
            for (int k = 0; k < 3; ++k)
              p.push_back(a[next++]);
          auto [hn, cn] =
              stepBody(nb, nl, K, ArrayRef<Act>(acts, numActs), clip, lbr,
                       inputForget, xw, hrv, wb, rb, p, hv, cv);
          Value yv = hn;
          if (hasLens) {
            Value len = arith::IndexCastOp::create(nb, nl, nb.getIndexType(),
                                                   a[next++]);
            Value valid = arith::CmpIOp::create(
                nb, nl, arith::CmpIPredicate::slt, t, len);
            hn = arith::SelectOp::create(nb, nl, valid, hn, hv);
            if (c)
              cn = arith::SelectOp::create(nb, nl, valid, cn, cv);
            yv = arith::SelectOp::create(nb, nl, valid, yv, fc(nb, nl, elt, 0));
          }
          if (c)
            linalg::YieldOp::create(nb, nl, ValueRange{hn, cn, yv});
          else
            linalg::YieldOp::create(nb, nl, ValueRange{hn, yv});
        });
    auto yt = cast<RankedTensorType>(y.getType());
    SmallVector<OpFoldResult> offs{t, b.getIndexAttr(0), b.getIndexAttr(0)};
    SmallVector<OpFoldResult> sizes{b.getIndexAttr(1),
                                    tensor::getMixedSize(b, l, y, 1),
                                    b.getIndexAttr(yt.getDimSize(2))};
    SmallVector<OpFoldResult> ones(3, b.getIndexAttr(1));
    Value yn = tensor::InsertSliceOp::create(b, l, gen.getResults().back(), y,
                                             offs, sizes, ones);
    if (c)
      return {gen.getResult(0), gen.getResult(1), yn};
    return {gen.getResult(0), yn};
  }
};

} // namespace

void populateRecurrentLoweringPatterns(GraphTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<RecurrentLowering<g::RNNOp, Kind::RNN>,
               RecurrentLowering<g::GRUOp, Kind::GRU>,
               RecurrentLowering<g::LSTMOp, Kind::LSTM>>(converter,
                                                         patterns.getContext());
}

} // namespace kiln
