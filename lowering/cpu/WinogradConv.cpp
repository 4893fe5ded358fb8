//===- WinogradConv.cpp - 3x3 convolutions as Winograd transforms ---------===//
//
// F(m x m, 3 x 3) (Lavin and Gray, 2016) computes each m x m output tile of
// a 3x3 stride-1 convolution from an a x a input tile (a = m + 2) with a^2
// products per channel pair instead of 9 m^2: 4x fewer for m = 4, 2.25x for
// m = 2. With t tiles per image, for each of the a^2 transformed taps xi:
//
//   V[xi] (C x t)  = input transform  B^T d B of every tile (adds only)
//   M[xi] (F x t)  = U[xi] (F x C) * V[xi]   one contraction per tap
//   y tile (m x m) = output transform A^T M A (adds only), plus the init
//
// U = G g G^T is computed at compile time from the constant filter. The
// contractions take the convolution's schedule and the register kernel,
// with the tiles as columns, or as rows (the channels as vector columns,
// U packed in channel panels) when there are few of them. Each transform
// stage is one scf.forall over its output planes (threads, and one op for
// the bufferization analysis however many planes), each plane a linear
// combination of whole planes, so that every stage reads and writes
// contiguous rows in NCHW:
//
//   phases  D[r][n, c, h, q]   = x[n, c, h, m*q + r]      (deinterleave W)
//   rows    R[j'][n, c, h, tx] = sum_j B^T[j'][j] tap_j    (along W)
//   taps    V[i'j'][c, n, ty, tx] = sum_i B^T[i'][i] R[j'][.., m*ty + i, ..]
//   columns S[a][j] = sum_i A^T[a][i] M[i j]               (along H)
//   outputs O[a][b] = sum_j A^T[b][j] S[a][j]              (along W)
//   scatter y[n, f, m*ty + a, m*tx + b] = O[a][b][f, n, ty, tx], cropped,
//           plus the convolution's init (its bias).
//
// The coefficients of a stage come from a constant table indexed by the
// plane, zeros included: a stage costs a (6) multiply-adds an element where
// the zeros skipped would leave 3 to 5, against F for the products that
// read each tap element. The phase and scatter copies are strided, scalar
// loops.
//
// Rounding: the transforms' constants are exact in binary except G's
// sixths and twenty-fourths; F(4x4) stays within 1e-5 of a float64
// reference relative to the output's range on random data (test/e2e).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "dialects/graph/ConstantData.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln {

using namespace kiln::cpu;

namespace {

/// The transform matrices of F(m x m, 3 x 3), row-major: B^T (a x a),
/// G (a x 3), A^T (m x a), with interpolation points 0, 1, -1 (m = 2) and
/// 0, 1, -1, 2, -2 (m = 4), and infinity.
struct WinogradMatrices {
  int64_t m, a;
  ArrayRef<double> bt, g, at;
  double b(int64_t i, int64_t j) const { return bt[i * a + j]; }
  double gAt(int64_t i, int64_t k) const { return g[i * 3 + k]; }
  double atAt(int64_t i, int64_t j) const { return at[i * a + j]; }
};

std::optional<WinogradMatrices> getMatrices(int64_t m) {
  static const double bt2[] = {1, 0,  -1, 0, 0, 1, 1, 0,
                               0, -1, 1,  0, 0, 1, 0, -1};
  static const double g2[] = {1, 0, 0, .5, .5, .5, .5, -.5, .5, 0, 0, 1};
  static const double at2[] = {1, 1, 1, 0, 0, 1, -1, -1};
  static const double bt4[] = {4, 0, -5, 0,  1, 0, 0, -4, -4, 1,  1, 0,
                               0, 4, -4, -1, 1, 0, 0, -2, -1, 2,  1, 0,
                               0, 2, -1, -2, 1, 0, 0, 4,  0,  -5, 0, 1};
  static const double g4[] = {1. / 4,  0,       0,       -1. / 6,  -1. / 6,
                              -1. / 6, -1. / 6, 1. / 6,  -1. / 6,  1. / 24,
                              1. / 12, 1. / 6,  1. / 24, -1. / 12, 1. / 6,
                              0,       0,       1};
  static const double at4[] = {1, 1, 1, 1, 1, 0, 0, 1, -1, 2, -2, 0,
                               0, 1, 1, 4, 4, 0, 0, 1, -1, 8, -8, 1};
  if (m == 2)
    return WinogradMatrices{2, 4, bt2, g2, at2};
  if (m == 4)
    return WinogradMatrices{4, 6, bt4, g4, at4};
  return std::nullopt;
}

/// The slices `input(b, loc, k, i)` gives for output `k`.
using StageInput =
    llvm::function_ref<Value(OpBuilder &, Location, Value, int64_t)>;

/// One transform stage, as an scf.forall over its `count` outputs (on
/// threads, and one op however many outputs: the bufferization analysis
/// of a chain of inserts grows with its square):
///   dest[k] = sum_i coeffs[k * terms + i] * input(k, i),  i < terms,
/// elementwise, the inputs read through `inMap` and the slot (the leading
/// `slotShape` of dest[k]) written through `outMap`. The coefficients are
/// read from a constant table by k.
Value stage(OpBuilder &b, Location loc, int64_t count, int64_t terms,
            ArrayRef<double> coeffs, StageInput input, Value dest,
            ArrayRef<int64_t> slotShape, AffineMap inMap, AffineMap outMap) {
  auto destType = cast<RankedTensorType>(dest.getType());
  Type f32 = destType.getElementType();
  int64_t rank = destType.getRank();
  auto tableType = RankedTensorType::get({count, terms}, f32);
  SmallVector<float> table(coeffs.begin(), coeffs.end());
  Value tableConst = arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(tableType, ArrayRef<float>(table)));
  auto slotType = RankedTensorType::get(slotShape, f32);
  auto forall = scf::ForallOp::create(
      b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(count)}, ValueRange{dest},
      std::nullopt, [&](OpBuilder &nb, Location l, ValueRange args) {
        Value k = args[0], acc = args[1];
        SmallVector<OpFoldResult> offsets(rank, nb.getIndexAttr(0));
        offsets[0] = k;
        SmallVector<OpFoldResult> sizes = {nb.getIndexAttr(1)};
        for (int64_t d : slotType.getShape())
          sizes.push_back(nb.getIndexAttr(d));
        SmallVector<OpFoldResult> unit(rank, nb.getIndexAttr(1));
        Value slot = tensor::ExtractSliceOp::create(nb, l, slotType, acc,
                                                    offsets, sizes, unit);
        SmallVector<Value> ins, cs;
        for (int64_t i = 0; i < terms; ++i) {
          ins.push_back(input(nb, l, k, i));
          cs.push_back(tensor::ExtractOp::create(
              nb, l, tableConst,
              ValueRange{k, arith::ConstantIndexOp::create(nb, l, i)}));
        }
        SmallVector<AffineMap> maps(terms, inMap);
        maps.push_back(outMap);
        Value out =
            linalg::GenericOp::create(
                nb, l, TypeRange{slotType}, ins, ValueRange{slot}, maps,
                SmallVector<utils::IteratorType>(inMap.getNumDims(),
                                                 utils::IteratorType::parallel),
                [&](OpBuilder &bb, Location bl, ValueRange vals) {
                  Value sum = arith::MulFOp::create(bb, bl, cs[0], vals[0]);
                  for (int64_t i = 1; i < terms; ++i)
                    sum = arith::AddFOp::create(
                        bb, bl, sum,
                        arith::MulFOp::create(bb, bl, cs[i], vals[i]));
                  linalg::YieldOp::create(bb, bl, sum);
                })
                .getResult(0);
        auto inParallel = scf::InParallelOp::create(nb, l);
        OpBuilder::InsertionGuard guard(nb);
        nb.setInsertionPointToStart(inParallel.getBody());
        tensor::ParallelInsertSliceOp::create(nb, l, out, acc, offsets, sizes,
                                              unit);
      });
  return forall.getResult(0);
}

/// `v` sliced at `offsets` with `sizes` and `strides`, its leading unit
/// dims dropped (`dropped` of them).
Value sliceOf(OpBuilder &b, Location loc, Value v,
              SmallVector<OpFoldResult> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides, int64_t dropped) {
  Type elt = cast<RankedTensorType>(v.getType()).getElementType();
  auto type = RankedTensorType::get(sizes.drop_front(dropped), elt);
  return tensor::ExtractSliceOp::create(
      b, loc, type, v, offsets, getAsIndexOpFoldResult(b.getContext(), sizes),
      getAsIndexOpFoldResult(b.getContext(), strides));
}

} // namespace

bool cpu::isWinogradConv(linalg::Conv2DNchwFchwOp conv) {
  auto xt = dyn_cast<RankedTensorType>(conv.getInputs()[0].getType());
  auto wt = dyn_cast<RankedTensorType>(conv.getInputs()[1].getType());
  auto ot = dyn_cast<RankedTensorType>(conv.getOutputs()[0].getType());
  if (!xt || !wt || !ot || !xt.hasStaticShape() || !wt.hasStaticShape() ||
      !ot.hasStaticShape() || !ot.getElementType().isF32() ||
      !xt.getElementType().isF32() || !wt.getElementType().isF32())
    return false;
  if (wt.getDimSize(2) != 3 || wt.getDimSize(3) != 3)
    return false;
  auto ones = [](DenseIntElementsAttr attr) {
    return llvm::all_of(attr.getValues<int64_t>(),
                        [](int64_t v) { return v == 1; });
  };
  if (!ones(conv.getStrides()) || !ones(conv.getDilations()))
    return false;
  std::optional<ConstantData> w = getConstantData(conv.getInputs()[1]);
  return w.has_value();
}

int64_t cpu::winogradTiles(linalg::Conv2DNchwFchwOp conv, int64_t m) {
  auto ot = cast<RankedTensorType>(conv.getOutputs()[0].getType());
  return ot.getDimSize(0) * llvm::divideCeil(ot.getDimSize(2), m) *
         llvm::divideCeil(ot.getDimSize(3), m);
}

FailureOr<Operation *> cpu::rewriteConvInWinograd(RewriterBase &rewriter,
                                                  linalg::Conv2DNchwFchwOp conv,
                                                  int64_t m, int64_t panel) {
  std::optional<WinogradMatrices> wm = getMatrices(m);
  if (!wm || !isWinogradConv(conv))
    return rewriter.notifyMatchFailure(
        conv, "needs a static f32 3x3 stride-1 convolution, constant filter");
  int64_t a = wm->a, taps = a * a;
  Value x = conv.getInputs()[0], out = conv.getOutputs()[0];
  auto xt = cast<RankedTensorType>(x.getType());
  auto ot = cast<RankedTensorType>(out.getType());
  std::optional<ConstantData> w = getConstantData(conv.getInputs()[1]);
  int64_t n = ot.getDimSize(0), f = ot.getDimSize(1), oh = ot.getDimSize(2),
          ow = ot.getDimSize(3), c = xt.getDimSize(1);
  int64_t th = llvm::divideCeil(oh, m), tw = llvm::divideCeil(ow, m);
  int64_t tiles = n * th * tw;
  // Rows to the last tile's end; columns to a whole phase past it.
  int64_t hx = m * th + 2, wx = m * (tw + 1);
  Type f32 = rewriter.getF32Type();
  Location loc = conv.getLoc();
  MLIRContext *ctx = rewriter.getContext();
  rewriter.setInsertionPoint(conv);
  auto empty = [&](ArrayRef<int64_t> shape) -> Value {
    return tensor::EmptyOp::create(rewriter, loc, shape, f32);
  };
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));

  // With few tiles (fewer than four register tiles of columns, but two
  // vectors' worth of rows) the products take them as rows and the channels
  // as vector columns, the transformed weights packed in panels of `panel`
  // channels (see PixelRowProduct.cpp): the products of [P, Q] are then
  // [tiles, f], else [f, tiles]. 128 channels at 28x28 (49 tiles): 0.90 ms
  // a convolution in a chain against 1.05; 256 at 14x14 (16 tiles, two
  // rows of register tiles): 1.34 against 1.04.
  bool pixelRows =
      panel > 0 && f % panel == 0 && tiles < 4 * panel && tiles >= panel;
  if (!pixelRows)
    panel = f;
  int64_t panels = f / panel;
  int64_t rowsP = pixelRows ? tiles : f, colsQ = pixelRows ? f : tiles;
  // U[xi][f][c] = (G g[f][c] G^T)[i][j], xi = i * a + j; pixel rows store
  // U[xi][f / panel][c][f % panel].
  auto uIndex = [&](int64_t xi, int64_t fi, int64_t ci) {
    if (!pixelRows)
      return (xi * f + fi) * c + ci;
    return ((xi * panels + fi / panel) * c + ci) * panel + fi % panel;
  };
  std::vector<double> u(taps * f * c);
  for (int64_t fi = 0; fi < f; ++fi)
    for (int64_t ci = 0; ci < c; ++ci) {
      double g[3][3], gg[6][3];
      for (int64_t k = 0; k < 9; ++k)
        g[k / 3][k % 3] = w->getDouble(((fi * c + ci) * 3 + k / 3) * 3 + k % 3);
      for (int64_t i = 0; i < a; ++i)
        for (int64_t l = 0; l < 3; ++l)
          gg[i][l] = wm->gAt(i, 0) * g[0][l] + wm->gAt(i, 1) * g[1][l] +
                     wm->gAt(i, 2) * g[2][l];
      for (int64_t i = 0; i < a; ++i)
        for (int64_t j = 0; j < a; ++j)
          u[uIndex(i * a + j, fi, ci)] = gg[i][0] * wm->gAt(j, 0) +
                                         gg[i][1] * wm->gAt(j, 1) +
                                         gg[i][2] * wm->gAt(j, 2);
    }
  auto uType = pixelRows ? RankedTensorType::get({taps, panels, c, panel}, f32)
                         : RankedTensorType::get({taps, f, c}, f32);
  ElementsAttr uAttr = createFloatConstantAttr(uType, u, "winograd_filter");
  Value uConst =
      arith::ConstantOp::create(rewriter, loc, cast<TypedAttr>(uAttr));

  // The input, zero-padded to whole tiles and phases. An input that is
  // already a zero-padded tensor (the convolution's own pads) is padded
  // once: what it pads goes straight into the larger buffer, which its
  // producer then writes in place. Padding the padded tensor again copied
  // all of it (DenseNet-121's 128 channels at 58x58 into 58x60: 37 us a
  // layer on one thread).
  Value xp = x;
  if (xt.getDimSize(2) != hx || xt.getDimSize(3) != wx) {
    Value inner = x;
    SmallVector<int64_t> at(4, 0);
    if (auto pad = x.getDefiningOp<tensor::InsertSliceOp>()) {
      if (isZeroFill(pad.getDest()) && pad.hasUnitStride() &&
          pad.getSourceType().hasStaticShape() &&
          pad.getSourceType().getRank() == 4 &&
          !ShapedType::isDynamicShape(pad.getStaticOffsets())) {
        inner = pad.getSource();
        at.assign(pad.getStaticOffsets().begin(), pad.getStaticOffsets().end());
      }
    }
    Value zeros =
        linalg::FillOp::create(rewriter, loc, zero, empty({n, c, hx, wx}))
            .getResult(0);
    xp = tensor::InsertSliceOp::create(
        rewriter, loc, inner, zeros,
        getAsIndexOpFoldResult(rewriter.getContext(), at),
        getAsIndexOpFoldResult(
            rewriter.getContext(),
            cast<RankedTensorType>(inner.getType()).getShape()),
        getAsIndexOpFoldResult(rewriter.getContext(), {1, 1, 1, 1}));
  }

  AffineExpr d0, d1, d2, d3, d4, d5;
  bindDims(ctx, d0, d1, d2, d3, d4, d5);
  AffineMap id4 = AffineMap::getMultiDimIdentityMap(4, ctx);
  SmallVector<utils::IteratorType> par4(4, utils::IteratorType::parallel);

  auto idx = [&](OpBuilder &b, int64_t v) -> OpFoldResult {
    return b.getIndexAttr(v);
  };

  // Phases: D[r][n, c, h, q] = xp[n, c, h, m q + r] (a strided copy).
  Value phases = stage(
      rewriter, loc, m, 1, SmallVector<double>(m, 1.0),
      [&](OpBuilder &b, Location l, Value r, int64_t) {
        return sliceOf(
            b, l, xp,
            SmallVector<OpFoldResult>({idx(b, 0), idx(b, 0), idx(b, 0), r}),
            {n, c, hx, tw + 1}, {1, 1, 1, m}, 0);
      },
      empty({m, n, c, hx, tw + 1}), {n, c, hx, tw + 1}, id4, id4);

  // Rows: R[j'] = sum_j B^T[j'][j] * column j of every tile; tile tx's
  // column j is phase j mod m at q = tx + j / m.
  SmallVector<double> bt(wm->bt.begin(), wm->bt.end());
  Value rows = stage(
      rewriter, loc, a, a, bt,
      [&](OpBuilder &b, Location l, Value, int64_t j) {
        return sliceOf(
            b, l, phases,
            SmallVector<OpFoldResult>({idx(b, j % m), idx(b, 0), idx(b, 0),
                                       idx(b, 0), idx(b, j / m)}),
            {1, n, c, hx, tw}, {1, 1, 1, 1, 1}, 1);
      },
      empty({a, n, c, hx, tw}), {n, c, hx, tw}, id4, id4);

  // Taps: V[i' a + j'][c, n, ty, tx] = sum_i B^T[i'][i] R[j'][n, c, m ty + i,
  // tx]. The tap planes are one row longer than they need: at power-of-two
  // strides (256 channels x 16 tiles: 16 KiB) the planes the products read
  // one after the other would share a few cache sets.
  SmallVector<double> tapCoeffs;
  for (int64_t k = 0; k < taps; ++k)
    for (int64_t i = 0; i < a; ++i)
      tapCoeffs.push_back(wm->b(k / a, i));
  AffineMap toCnht = AffineMap::get(4, 0, {d1, d0, d2, d3}, ctx);
  Value vPadded = stage(
      rewriter, loc, taps, a, tapCoeffs,
      [&](OpBuilder &b, Location l, Value k, int64_t i) {
        Value jp = affine::AffineApplyOp::create(
            b, l, AffineMap::get(1, 0, d0 % a), k);
        return sliceOf(b, l, rows,
                       SmallVector<OpFoldResult>(
                           {jp, idx(b, 0), idx(b, 0), idx(b, i), idx(b, 0)}),
                       {1, n, c, th, tw}, {1, 1, 1, m, 1}, 1);
      },
      empty({taps, c + 1, n, th, tw}), {c, n, th, tw}, id4, toCnht);
  Value v = tensor::ExtractSliceOp::create(
      rewriter, loc, vPadded,
      getAsIndexOpFoldResult(rewriter.getContext(), {0, 0, 0, 0, 0}),
      getAsIndexOpFoldResult(rewriter.getContext(), {taps, c, n, th, tw}),
      getAsIndexOpFoldResult(rewriter.getContext(), {1, 1, 1, 1, 1}));
  Value v3 = tensor::CollapseShapeOp::create(
      rewriter, loc, v, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3, 4}});

  // One contraction per tap (and panel), on threads across them.
  SavedSchedule saved = saveSchedule(conv);
  Operation *contraction = nullptr;
  AffineExpr dm, dn, dk;
  bindDims(ctx, dm, dn, dk);
  // Pixel rows read V[xi] ([c, tiles]) transposed.
  Attribute transposedA = rewriter.getAffineMapArrayAttr(
      {AffineMap::get(3, 0, {dk, dm}, ctx), AffineMap::get(3, 0, {dk, dn}, ctx),
       AffineMap::get(3, 0, {dm, dn}, ctx)});
  auto forall = scf::ForallOp::create(
      rewriter, loc,
      ArrayRef<OpFoldResult>{rewriter.getIndexAttr(taps),
                             rewriter.getIndexAttr(panels)},
      ValueRange{empty({taps, rowsP + 1, colsQ})}, std::nullopt,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value xi = args[0], j = args[1], acc = args[2];
        auto zeroIndex = b.getIndexAttr(0);
        Value v2 = tensor::ExtractSliceOp::create(
            b, l, RankedTensorType::get({c, tiles}, f32), v3,
            SmallVector<OpFoldResult>{xi, zeroIndex, zeroIndex},
            getAsIndexOpFoldResult(b.getContext(), {1, c, tiles}),
            getAsIndexOpFoldResult(b.getContext(), {1, 1, 1}));
        SmallVector<OpFoldResult> accOffsets = {xi, zeroIndex, zeroIndex};
        SmallVector<OpFoldResult> accSizes = getAsIndexOpFoldResult(
            b.getContext(), {1, rowsP, pixelRows ? panel : colsQ});
        Value u2;
        if (pixelRows) {
          accOffsets[2] = affine::AffineApplyOp::create(
                              b, l, AffineMap::get(1, 0, dm * panel), j)
                              .getResult();
          u2 = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get({c, panel}, f32), uConst,
              SmallVector<OpFoldResult>{xi, j, zeroIndex, zeroIndex},
              getAsIndexOpFoldResult(b.getContext(), {1, 1, c, panel}),
              getAsIndexOpFoldResult(b.getContext(), {1, 1, 1, 1}));
        } else {
          u2 = tensor::ExtractSliceOp::create(
              b, l, RankedTensorType::get({f, c}, f32), uConst,
              SmallVector<OpFoldResult>{xi, zeroIndex, zeroIndex},
              getAsIndexOpFoldResult(b.getContext(), {1, f, c}),
              getAsIndexOpFoldResult(b.getContext(), {1, 1, 1}));
        }
        auto accType =
            RankedTensorType::get({rowsP, pixelRows ? panel : colsQ}, f32);
        Value slot = tensor::ExtractSliceOp::create(
            b, l, accType, acc, accOffsets, accSizes,
            getAsIndexOpFoldResult(b.getContext(), {1, 1, 1}));
        Value init = linalg::FillOp::create(b, l, zero, slot).getResult(0);
        if (pixelRows)
          contraction = linalg::MatmulOp::create(
              b, l, TypeRange{accType}, ValueRange{v2, u2}, ValueRange{init},
              ArrayRef<NamedAttribute>{
                  b.getNamedAttr("indexing_maps", transposedA)});
        else
          contraction = linalg::MatmulOp::create(
              b, l, TypeRange{accType}, ValueRange{u2, v2}, ValueRange{init});
        restoreSchedule(saved, contraction);
        auto inParallel = scf::InParallelOp::create(b, l);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(inParallel.getBody());
        tensor::ParallelInsertSliceOp::create(
            b, l, contraction->getResult(0), acc, accOffsets, accSizes,
            getAsIndexOpFoldResult(b.getContext(), {1, 1, 1}));
      });
  Value products = forall.getResult(0);

  // Columns: S[a' a + j] = sum_i A^T[a'][i] M[i a + j], over (f, tile) or
  // (tile, f).
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<double> colCoeffs, outCoeffs;
  for (int64_t k = 0; k < m * a; ++k)
    for (int64_t i = 0; i < a; ++i)
      colCoeffs.push_back(wm->atAt(k / a, i));
  Value cols = stage(
      rewriter, loc, m * a, a, colCoeffs,
      [&](OpBuilder &b, Location l, Value k, int64_t i) {
        Value xi = affine::AffineApplyOp::create(
            b, l, AffineMap::get(1, 0, d0 % a + i * a), k);
        return sliceOf(b, l, products,
                       SmallVector<OpFoldResult>({xi, idx(b, 0), idx(b, 0)}),
                       {1, rowsP, colsQ}, {1, 1, 1}, 1);
      },
      empty({m * a, rowsP, colsQ}), {rowsP, colsQ}, id2, id2);

  // Outputs: O[a' m + b'] = sum_j A^T[b'][j] S[a' a + j].
  for (int64_t k = 0; k < m * m; ++k)
    for (int64_t j = 0; j < a; ++j)
      outCoeffs.push_back(wm->atAt(k % m, j));
  Value oPadded = stage(
      rewriter, loc, m * m, a, outCoeffs,
      [&](OpBuilder &b, Location l, Value k, int64_t j) {
        Value sj = affine::AffineApplyOp::create(
            b, l, AffineMap::get(1, 0, d0.floorDiv(m) * a + j), k);
        return sliceOf(b, l, cols,
                       SmallVector<OpFoldResult>({sj, idx(b, 0), idx(b, 0)}),
                       {1, rowsP, colsQ}, {1, 1, 1}, 1);
      },
      empty({m * m, rowsP + 1, colsQ}), {rowsP, colsQ}, id2, id2);
  Value o = tensor::ExtractSliceOp::create(
      rewriter, loc, oPadded,
      getAsIndexOpFoldResult(rewriter.getContext(), {0, 0, 0}),
      getAsIndexOpFoldResult(rewriter.getContext(), {m * m, rowsP, colsQ}),
      getAsIndexOpFoldResult(rewriter.getContext(), {1, 1, 1}));

  // Scatter: y[n, f, m ty + a', m tx + b'] = O[a'][b'][f, (n, ty, tx)].
  Value o6 =
      pixelRows
          ? tensor::ExpandShapeOp::create(
                rewriter, loc, RankedTensorType::get({m, m, n, th, tw, f}, f32),
                o, SmallVector<ReassociationIndices>{{0, 1}, {2, 3, 4}, {5}})
          : tensor::ExpandShapeOp::create(
                rewriter, loc, RankedTensorType::get({m, m, f, n, th, tw}, f32),
                o, SmallVector<ReassociationIndices>{{0, 1}, {2}, {3, 4, 5}});
  AffineMap scatterMap =
      pixelRows ? AffineMap::get(6, 0, {d3, d5, d0, d2, d4, d1}, ctx)
                : AffineMap::get(6, 0, {d3, d5, d1, d0, d2, d4}, ctx);
  SmallVector<utils::IteratorType> par6(6, utils::IteratorType::parallel);
  Value full6 = linalg::GenericOp::create(
                    rewriter, loc,
                    TypeRange{RankedTensorType::get({n, f, th, m, tw, m}, f32)},
                    ValueRange{o6}, ValueRange{empty({n, f, th, m, tw, m})},
                    ArrayRef<AffineMap>{
                        scatterMap, AffineMap::getMultiDimIdentityMap(6, ctx)},
                    par6,
                    [](OpBuilder &nb, Location nl, ValueRange args) {
                      linalg::YieldOp::create(nb, nl, args[0]);
                    })
                    .getResult(0);
  Value full = tensor::CollapseShapeOp::create(
      rewriter, loc, full6,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
  Value cropped = full;
  if (m * th != oh || m * tw != ow)
    cropped = tensor::ExtractSliceOp::create(
        rewriter, loc, ot, full,
        getAsIndexOpFoldResult(rewriter.getContext(), {0, 0, 0, 0}),
        getAsIndexOpFoldResult(rewriter.getContext(), ot.getShape()),
        getAsIndexOpFoldResult(rewriter.getContext(), {1, 1, 1, 1}));
  // The convolution accumulates into its init (the bias, or zeros). A
  // per-channel bias broadcast or a fill is read as it is, into a fresh
  // output: accumulating in place, each short row's masked store stalled
  // the next row's masked load of the same line (256 x 13 x 13: 17 us
  // for the add, against 4 for the scatter before it). Either way the
  // body's second argument is the init.
  SmallVector<Value> ins = {cropped};
  SmallVector<AffineMap> maps = {id4};
  if (Value bias = perChannelInit(out)) {
    ins.push_back(bias);
    maps.push_back(AffineMap::get(4, 0, {d1}, ctx));
  } else if (auto fill = out.getDefiningOp<linalg::FillOp>()) {
    ins.push_back(fill.getInputs()[0]);
    maps.push_back(AffineMap::get(4, 0, {}, ctx));
  }
  Value dest = ins.size() > 1 ? empty(ot.getShape()) : out;
  maps.push_back(id4);
  Value result =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{ot}, ins, ValueRange{dest}, maps, par4,
          [](OpBuilder &nb, Location nl, ValueRange args) {
            linalg::YieldOp::create(
                nb, nl,
                arith::AddFOp::create(nb, nl, args[1], args[0]).getResult());
          })
          .getResult(0);
  rewriter.replaceOp(conv, result);
  return contraction;
}

} // namespace kiln
