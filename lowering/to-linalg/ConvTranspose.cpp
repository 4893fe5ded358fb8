//===- ConvTranspose.cpp - ConvTranspose to linalg
//-------------------------===//
//
// Ungrouped ConvTranspose is a GEMM of the weight taps with the input pixels
// followed by col2im (an interleave where taps do not overlap); grouped ones
// a convolution over the zero-inserted input with the flipped kernel. Over
// run-time image extents (explicit pads): a 1x1 convolution and an
// interleave where taps do not overlap, else a gather per output element.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/ConvUtils.h"
#include "lowering/to-linalg/LoweringUtils.h"
#include "lowering/to-linalg/WindowUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace mlir;
using namespace kiln::window;
namespace g = kiln::graph;

namespace kiln {
namespace {
using namespace conv;

/// The ConvTranspose weight [G, Cg, Mg, K...] as a convolution weight
/// [G, Mg, Cg, K...], spatially flipped.
Value flipKernel(OpBuilder &b, Location loc, Value w) {
  auto t = cast<RankedTensorType>(w.getType());
  MLIRContext *ctx = b.getContext();
  int64_t rank = t.getRank();
  SmallVector<int64_t> shape(t.getShape());
  std::swap(shape[1], shape[2]);
  SmallVector<AffineExpr> inE = {getAffineDimExpr(0, ctx),
                                 getAffineDimExpr(2, ctx),
                                 getAffineDimExpr(1, ctx)};
  for (int64_t i = 3; i < rank; ++i)
    inE.push_back((t.getDimSize(i) - 1) - getAffineDimExpr(i, ctx));
  auto type = t.clone(shape);
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rank, 0, inE, ctx),
                                 b.getMultiDimIdentityMap(rank)};
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{w}, ValueRange{empty}, maps,
             IteratorTypes(rank, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nl, ValueRange a) {
               linalg::YieldOp::create(nb, nl, a[0]);
             })
      .getResult(0);
}

/// Geometry of a ConvTranspose: the window and, per spatial dim, the number
/// of leading positions of the full (unpadded) output that are cut off
/// (`begin`; negative when output_shape asks for more than the full extent).
struct TransposeGeometry {
  Window win;
  SmallVector<int64_t> begin;
};

TransposeGeometry getTransposeGeometry(g::ConvTransposeOp op,
                                       RankedTensorType xt, RankedTensorType wt,
                                       RankedTensorType yt) {
  size_t n = xt.getRank() - 2;
  TransposeGeometry geo;
  Window &win = geo.win;
  win.kernel.assign(wt.getShape().begin() + 2, wt.getShape().end());
  win.strides = orOnes(op.getStrides(), n);
  win.dilations = orOnes(op.getDilations(), n);
  StringRef autoPad = op.getAutoPad();
  SmallVector<int64_t> outPad(n, 0);
  if (auto p = op.getOutputPadding())
    outPad.assign(p->begin(), p->end());
  geo.begin.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t in = xt.getDimSize(i + 2), s = win.strides[i];
    int64_t full =
        s * (in - 1) + outPad[i] + (win.kernel[i] - 1) * win.dilations[i] + 1;
    if (op.getOutputShape() || autoPad == "SAME_UPPER" ||
        autoPad == "SAME_LOWER") {
      // Floor division: a negative total (output_shape beyond the full
      // extent) pads at the end, as in the ONNX reference.
      int64_t total = full - yt.getDimSize(i + 2);
      int64_t half = llvm::divideFloorSigned(total, 2);
      geo.begin[i] = autoPad == "SAME_UPPER" ? half : total - half;
    } else if (autoPad == "NOTSET" && op.getPads()) {
      geo.begin[i] = (*op.getPads())[i];
    }
  }
  return geo;
}

/// The constant [R, C] matrix defining `w` transposed into `type` ([C, R]),
/// or null when `w` is not a constant whose bytes are at hand.
ElementsAttr transposeConstant(Value w, RankedTensorType type) {
  ElementsAttr attr;
  if (!matchPattern(w, m_Constant(&attr)))
    return {};
  std::optional<ConstantData> data = getConstantData(attr);
  if (!data || data->getNumElements() != type.getNumElements())
    return {};
  int64_t rows = type.getDimSize(1), cols = type.getDimSize(0);
  size_t eltBytes = data->elementBytes;
  SmallVector<char> bytes(rows * cols * eltBytes);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      std::memcpy(&bytes[(c * rows + r) * eltBytes],
                  data->getElement(r * cols + c), eltBytes);
  return createConstantAttr(type, bytes, deriveBlobName(attr, "t"));
}

/// The ConvTranspose weight [C, M, K...] as the GEMM's left operand
/// [M * prod(K), C]; built at compile time when the weight is a constant.
Value gemmWeight(OpBuilder &b, Location loc, Value w) {
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t c = wt.getDimSize(0), m = wt.getNumElements() / c;
  auto type = RankedTensorType::get({m, c}, wt.getElementType());
  if (ElementsAttr t = transposeConstant(w, type))
    return arith::ConstantOp::create(b, loc, type, cast<TypedAttr>(t));
  SmallVector<ReassociationIndices> re = {{0}, {}};
  for (int64_t i = 1; i < wt.getRank(); ++i)
    re[1].push_back(i);
  Value flat = tensor::CollapseShapeOp::create(b, loc, w, re);
  Value empty =
      tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::TransposeOp::create(b, loc, flat, empty,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

/// Every input pixel times every weight tap:
/// cols[n, m, k..., i...] = sum_c W[c, m, k...] * x[n, c, i...]. One image
/// is a named matmul ([M*K, C] x [C, I]) for the register-tiled kernel; more
/// images are a generic whose innermost loop streams the pixels.
Value transposeColumns(OpBuilder &b, Location loc, Value x, Value w) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t n = xt.getRank() - 2;
  Type elt = xt.getElementType();
  int64_t pixels = 1;
  for (int64_t d : xt.getShape().drop_front(2))
    pixels *= d;
  Value a = gemmWeight(b, loc, w);
  int64_t rows = cast<RankedTensorType>(a.getType()).getDimSize(0);
  Value zero = createScalarConstant(b, loc, elt, 0.0);
  SmallVector<int64_t> colsShape = {xt.getDimSize(0)};
  colsShape.append(wt.getShape().begin() + 1, wt.getShape().end());
  colsShape.append(xt.getShape().begin() + 2, xt.getShape().end());
  ReassociationIndices spatial;
  for (int64_t i = 0; i < n; ++i)
    spatial.push_back(i + 2);

  if (xt.getDimSize(0) == 1) {
    ReassociationIndices first = {0, 1};
    Value x2 = tensor::CollapseShapeOp::create(
        b, loc, x, SmallVector<ReassociationIndices>{first, spatial});
    Value init = fillTensor(
        b, loc, tensor::EmptyOp::create(b, loc, {rows, pixels}, elt), zero);
    Value cols =
        linalg::MatmulOp::create(b, loc, ValueRange{a, x2}, ValueRange{init})
            .getResult(0);
    SmallVector<ReassociationIndices> re(2);
    for (int64_t i = 0; i < n + 2; ++i)
      re[0].push_back(i);
    for (int64_t i = 0; i < n; ++i)
      re[1].push_back(n + 2 + i);
    return tensor::ExpandShapeOp::create(b, loc, xt.clone(colsShape), cols, re);
  }

  Value x3 = tensor::CollapseShapeOp::create(
      b, loc, x, SmallVector<ReassociationIndices>{{0}, {1}, spatial});
  auto accType = RankedTensorType::get({xt.getDimSize(0), rows, pixels}, elt);
  Value init = fillTensor(b, loc, emptyWithBatch(b, loc, accType, x), zero);
  // Loops (n, m, c, p): the reduction sits outside the pixel loop.
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  SmallVector<AffineMap> maps = {AffineMap::get(4, 0, {d(1), d(2)}, ctx),
                                 AffineMap::get(4, 0, {d(0), d(2), d(3)}, ctx),
                                 AffineMap::get(4, 0, {d(0), d(1), d(3)}, ctx)};
  IteratorTypes iters = {
      utils::IteratorType::parallel, utils::IteratorType::parallel,
      utils::IteratorType::reduction, utils::IteratorType::parallel};
  Value cols =
      linalg::GenericOp::create(
          b, loc, accType, ValueRange{a, x3}, ValueRange{init}, maps, iters,
          [](OpBuilder &nb, Location nl, ValueRange v) {
            Value mul = arith::MulFOp::create(nb, nl, v[0], v[1]);
            linalg::YieldOp::create(
                nb, nl, arith::AddFOp::create(nb, nl, v[2], mul).getResult());
          })
          .getResult(0);
  SmallVector<ReassociationIndices> re = {{0}, {}, {}};
  for (int64_t i = 0; i < n + 1; ++i)
    re[1].push_back(1 + i);
  for (int64_t i = 0; i < n; ++i)
    re[2].push_back(n + 2 + i);
  return tensor::ExpandShapeOp::create(b, loc, xt.clone(colsShape), cols, re);
}

/// A new tensor like `empty` holding `cols` read through `colsMap` over its
/// loops, plus the bias along loop 1 where there is one: taps moved to their
/// output pixels.
Value moveTaps(OpBuilder &b, Location loc, Value cols, AffineMap colsMap,
               Value bias, Value empty) {
  auto type = cast<RankedTensorType>(empty.getType());
  unsigned loops = type.getRank();
  SmallVector<Value> ins = {cols};
  SmallVector<AffineMap> maps = {colsMap};
  if (!isAbsent(bias)) {
    ins.push_back(bias);
    maps.push_back(
        AffineMap::get(loops, 0, {b.getAffineDimExpr(1)}, b.getContext()));
  }
  maps.push_back(b.getMultiDimIdentityMap(loops));
  return linalg::GenericOp::create(
             b, loc, type, ins, ValueRange{empty}, maps,
             IteratorTypes(loops, utils::IteratorType::parallel),
             [](OpBuilder &nb, Location nl, ValueRange v) {
               Value r =
                   v.size() == 3
                       ? arith::AddFOp::create(nb, nl, v[0], v[1]).getResult()
                       : v[0];
               linalg::YieldOp::create(nb, nl, r);
             })
      .getResult(0);
}

/// col2im when every output pixel is one tap of one input pixel (stride ==
/// kernel, no dilation, the output inside the full extent): a permutation of
/// cols [N, M, K..., I...] to [N, M, I1, K1, ...] (plus the bias), collapsed
/// and sliced.
Value interleaveColumns(OpBuilder &b, Location loc, Value cols, Value bias,
                        RankedTensorType yt, ArrayRef<int64_t> begin) {
  auto ct = cast<RankedTensorType>(cols.getType());
  MLIRContext *ctx = b.getContext();
  int64_t n = (ct.getRank() - 2) / 2;
  unsigned numLoops = ct.getRank();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  // Loop dims follow the output: (n, m, i1, k1, i2, k2, ...).
  SmallVector<int64_t> shape(ct.getShape().take_front(2));
  SmallVector<AffineExpr> colsE = {d(0), d(1)};
  for (int64_t i = 0; i < n; ++i) {
    shape.push_back(ct.getDimSize(2 + n + i));
    shape.push_back(ct.getDimSize(2 + i));
    colsE.push_back(d(3 + 2 * i));
  }
  for (int64_t i = 0; i < n; ++i)
    colsE.push_back(d(2 + 2 * i));
  auto type = ct.clone(shape);
  Value out = moveTaps(b, loc, cols, AffineMap::get(numLoops, 0, colsE, ctx),
                       bias, emptyWithBatch(b, loc, type, cols));
  SmallVector<ReassociationIndices> re = {{0}, {1}};
  for (int64_t i = 0; i < n; ++i)
    re.push_back({2 + 2 * i, 3 + 2 * i});
  out = tensor::CollapseShapeOp::create(b, loc, out, re);
  auto full = cast<RankedTensorType>(out.getType());
  if (full.getShape().drop_front() == yt.getShape().drop_front())
    return out;
  SmallVector<OpFoldResult> offs(2, b.getIndexAttr(0)), sizes, ones;
  sizes.push_back(tensor::getMixedSize(b, loc, out, 0));
  for (int64_t i = 1; i < yt.getRank(); ++i)
    sizes.push_back(b.getIndexAttr(yt.getDimSize(i)));
  for (int64_t i = 0; i < n; ++i)
    offs.push_back(b.getIndexAttr(begin[i]));
  ones.assign(yt.getRank(), b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(b, loc, yt, out, offs, sizes, ones);
}

/// General col2im: each kernel tap's [N, M, I...] block of cols is added to
/// the output at offset k*d - begin with stride s, clipped to the output.
Value accumulateColumns(OpBuilder &b, Location loc, Value cols, Value out,
                        const TransposeGeometry &geo) {
  auto ct = cast<RankedTensorType>(cols.getType());
  auto ot = cast<RankedTensorType>(out.getType());
  const Window &win = geo.win;
  int64_t n = win.rank();
  OpFoldResult batch = tensor::getMixedSize(b, loc, out, 0);
  SmallVector<int64_t> tap(n, 0);
  int64_t taps = 1;
  for (int64_t k : win.kernel)
    taps *= k;
  for (int64_t t = 0; t < taps; ++t) {
    for (int64_t i = n - 1, r = t; i >= 0; --i) {
      tap[i] = r % win.kernel[i];
      r /= win.kernel[i];
    }
    // Input pixels [i0, i1) land at i*s + k*d - begin inside [0, O).
    SmallVector<int64_t> i0(n), count(n), o0(n);
    bool empty = false;
    for (int64_t i = 0; i < n; ++i) {
      int64_t s = win.strides[i],
              shift = tap[i] * win.dilations[i] - geo.begin[i];
      int64_t lo = std::max<int64_t>(0, llvm::divideCeilSigned(-shift, s));
      int64_t hi = std::min(
          ct.getDimSize(2 + n + i),
          llvm::divideFloorSigned(ot.getDimSize(2 + i) - 1 - shift, s) + 1);
      empty |= hi <= lo;
      i0[i] = lo;
      count[i] = hi - lo;
      o0[i] = lo * s + shift;
    }
    if (empty)
      continue;
    SmallVector<int64_t> blockShape = {ot.getDimSize(0), ot.getDimSize(1)};
    blockShape.append(count);
    auto blockType = ot.clone(blockShape);
    SmallVector<OpFoldResult> srcOff(2, b.getIndexAttr(0)),
        dstOff = srcOff, srcSize = {batch, b.getIndexAttr(ct.getDimSize(1))},
        dstSize, srcStride(ct.getRank(), b.getIndexAttr(1)),
        dstStride(2, b.getIndexAttr(1));
    for (int64_t i = 0; i < n; ++i) {
      srcOff.push_back(b.getIndexAttr(tap[i]));
      srcSize.push_back(b.getIndexAttr(1));
    }
    dstSize = srcSize;
    dstSize.resize(2);
    for (int64_t i = 0; i < n; ++i) {
      srcOff.push_back(b.getIndexAttr(i0[i]));
      srcSize.push_back(b.getIndexAttr(count[i]));
      dstOff.push_back(b.getIndexAttr(o0[i]));
      dstSize.push_back(b.getIndexAttr(count[i]));
      dstStride.push_back(b.getIndexAttr(win.strides[i]));
    }
    Value src = tensor::ExtractSliceOp::create(b, loc, blockType, cols, srcOff,
                                               srcSize, srcStride);
    Value dst = tensor::ExtractSliceOp::create(b, loc, blockType, out, dstOff,
                                               dstSize, dstStride);
    unsigned rank = blockType.getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    Value sum =
        linalg::GenericOp::create(
            b, loc, blockType, ValueRange{src}, ValueRange{dst},
            SmallVector<AffineMap>{id, id},
            IteratorTypes(rank, utils::IteratorType::parallel),
            [](OpBuilder &nb, Location nl, ValueRange v) {
              linalg::YieldOp::create(
                  nb, nl,
                  arith::AddFOp::create(nb, nl, v[1], v[0]).getResult());
            })
            .getResult(0);
    out = tensor::InsertSliceOp::create(b, loc, sum, out, dstOff, dstSize,
                                        dstStride);
  }
  return out;
}

/// Ungrouped ConvTranspose as a GEMM followed by col2im: no multiplications
/// by inserted zeros, and the GEMM is the tiled contraction kernel's.
Value lowerTransposeAsGemm(OpBuilder &b, Location loc, Value x, Value w,
                           Value bias, RankedTensorType yt,
                           const TransposeGeometry &geo) {
  Value cols = transposeColumns(b, loc, x, w);
  auto ct = cast<RankedTensorType>(cols.getType());
  const Window &win = geo.win;
  int64_t n = win.rank();
  bool interleaved = true;
  for (int64_t i = 0; i < n; ++i) {
    int64_t extent = ct.getDimSize(2 + n + i) * win.kernel[i];
    interleaved &= win.dilations[i] == 1 && win.strides[i] == win.kernel[i] &&
                   geo.begin[i] >= 0 &&
                   geo.begin[i] + yt.getDimSize(2 + i) <= extent;
  }
  if (interleaved)
    return interleaveColumns(b, loc, cols, bias, yt, geo.begin);
  Value init = convInit(b, loc, yt, x, bias);
  return accumulateColumns(b, loc, cols, init, geo);
}

/// 2-D ConvTranspose over run-time image extents whose taps do not overlap
/// (ungrouped, stride == kernel, no dilation, no pads or output padding:
/// FPN-style upsampling): a 1x1 convolution to the taps [N, M*Kh*Kw, H, W],
/// which the run-time-size tiling takes, then each tap moved to its output
/// pixel y[n, m, h*Kh + a, w*Kw + c] (plus the bias).
Value interleavedTranspose(OpBuilder &b, Location loc, Value x, Value w,
                           Value bias, RankedTensorType yt) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  Type elt = xt.getElementType();
  int64_t c = wt.getDimSize(0), m = wt.getDimSize(1), kh = wt.getDimSize(2),
          kw = wt.getDimSize(3), rows = m * kh * kw;
  Value a = gemmWeight(b, loc, w); // [M*Kh*Kw, C]
  Value filter = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({rows, c, 1, 1}, elt), a,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
  SmallVector<Value> dyn;
  for (int64_t d : {0, 2, 3})
    if (xt.isDynamicDim(d))
      dyn.push_back(tensor::DimOp::create(b, loc, x, d));
  auto colsType = RankedTensorType::get(
      {xt.getDimSize(0), rows, xt.getDimSize(2), xt.getDimSize(3)}, elt);
  Value init = fillTensor(
      b, loc, tensor::EmptyOp::create(b, loc, colsType.getShape(), elt, dyn),
      createScalarConstant(b, loc, elt, 0.0));
  Value cols =
      linalg::Conv2DNchwFchwOp::create(
          b, loc, TypeRange{colsType}, ValueRange{x, filter}, ValueRange{init},
          b.getI64TensorAttr({1, 1}), b.getI64TensorAttr({1, 1}))
          .getResult(0);
  // [N, M, Kh, Kw, H, W] -> [N, M, H, Kh, W, Kw], then [N, M, H*Kh, W*Kw].
  auto taps6 = RankedTensorType::get(
      {xt.getDimSize(0), m, kh, kw, xt.getDimSize(2), xt.getDimSize(3)}, elt);
  Value taps = tensor::ExpandShapeOp::create(
      b, loc, taps6, cols,
      SmallVector<ReassociationIndices>{{0}, {1, 2, 3}, {4}, {5}});
  auto out6 = RankedTensorType::get(
      {xt.getDimSize(0), m, xt.getDimSize(2), kh, xt.getDimSize(3), kw}, elt);
  Value empty = tensor::EmptyOp::create(b, loc, out6.getShape(), elt, dyn);
  MLIRContext *ctx = b.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  Value out =
      moveTaps(b, loc, taps,
               AffineMap::get(6, 0, {d(0), d(1), d(3), d(5), d(2), d(4)}, ctx),
               bias, empty);
  out = tensor::CollapseShapeOp::create(
      b, loc, out, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
  if (out.getType() == yt)
    return out;
  return tensor::CastOp::create(b, loc, yt, out);
}

/// ConvTranspose over dynamic image extents (explicit pads, no
/// output_shape): every output element gathers the input taps that reach it,
/// y[n, g*Mg + m, o] = b + sum_{c, k} x[n, g*Cg + c, i] * W[g*Cg + c, m, k]
/// with o + pad = i * s + k * d, as one generic (reduction over c and k;
/// taps off the stride grid or outside the input add nothing).
Value gatherTranspose(OpBuilder &b, Location loc, Value x, Value w, Value bias,
                      RankedTensorType yt, const Window &win,
                      ArrayRef<int64_t> outPad, int64_t group) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto wt = cast<RankedTensorType>(w.getType());
  int64_t n = win.rank(), cg = wt.getDimSize(0) / group, mg = wt.getDimSize(1);
  MLIRContext *ctx = b.getContext();
  // The output extents: (in - 1) * s + outPad + (k - 1) * d + 1 - pads.
  SmallVector<Value> dyn;
  if (yt.isDynamicDim(0))
    dyn.push_back(tensor::DimOp::create(b, loc, x, 0));
  for (int64_t i = 0; i < n; ++i) {
    if (!yt.isDynamicDim(i + 2))
      continue;
    Value in = tensor::DimOp::create(b, loc, x, i + 2);
    int64_t extra = outPad[i] + (win.kernel[i] - 1) * win.dilations[i] + 1 -
                    win.lo[i] - win.hi[i] - win.strides[i];
    Value scaled = arith::MulIOp::create(
        b, loc, in, arith::ConstantIndexOp::create(b, loc, win.strides[i]));
    dyn.push_back(arith::AddIOp::create(
        b, loc, scaled, arith::ConstantIndexOp::create(b, loc, extra)));
  }
  Value empty =
      tensor::EmptyOp::create(b, loc, yt.getShape(), yt.getElementType(), dyn);
  Value init = empty;
  if (isAbsent(bias)) {
    init = fillTensor(b, loc, empty,
                      createScalarConstant(b, loc, yt.getElementType(), 0.0));
  } else {
    SmallVector<int64_t> dims = {0};
    for (int64_t i = 2; i < yt.getRank(); ++i)
      dims.push_back(i);
    init =
        linalg::BroadcastOp::create(b, loc, bias, empty, dims).getResult()[0];
  }
  // Loops: (n, m, o..., c, k...). An empty [Cg, K...] operand gives the
  // reduction loops their extents; the weight is read in the body at
  // [g*Cg + c, m % Mg, k...] (a map over m / Mg would not be invertible).
  int64_t rank = yt.getRank(), loops = rank + 1 + n;
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  SmallVector<int64_t> tapShape = {cg};
  SmallVector<AffineExpr> tapE = {d(rank)};
  for (int64_t i = 0; i < n; ++i) {
    tapShape.push_back(win.kernel[i]);
    tapE.push_back(d(rank + 1 + i));
  }
  Value taps = tensor::EmptyOp::create(b, loc, tapShape, yt.getElementType());
  SmallVector<AffineExpr> yE;
  for (int64_t i = 0; i < rank; ++i)
    yE.push_back(d(i));
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, tapE, ctx),
                                 AffineMap::get(loops, 0, yE, ctx)};
  IteratorTypes iters(rank, utils::IteratorType::parallel);
  iters.append(1 + n, utils::IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{taps}, ValueRange{init}, maps,
             iters,
             [&](OpBuilder &nb, Location nl, ValueRange a) {
               auto idx = [&](int64_t i) {
                 return linalg::IndexOp::create(nb, nl, i).getResult();
               };
               auto cst = [&](int64_t v) {
                 return arith::ConstantIndexOp::create(nb, nl, v).getResult();
               };
               Value ok =
                   arith::ConstantOp::create(nb, nl, nb.getBoolAttr(true));
               SmallVector<Value> at = {idx(0)};
               // Input channel g*Cg + c, g = m / Mg.
               Value g = arith::DivUIOp::create(nb, nl, idx(1), cst(mg));
               at.push_back(arith::AddIOp::create(
                   nb, nl, arith::MulIOp::create(nb, nl, g, cst(cg)),
                   idx(rank)));
               for (int64_t i = 0; i < n; ++i) {
                 // o + lo - k * d = i * s, 0 <= i < in.
                 Value t = arith::SubIOp::create(
                     nb, nl,
                     arith::AddIOp::create(nb, nl, idx(2 + i), cst(win.lo[i])),
                     arith::MulIOp::create(nb, nl, idx(rank + 1 + i),
                                           cst(win.dilations[i])));
                 Value q = arith::FloorDivSIOp::create(nb, nl, t,
                                                       cst(win.strides[i]));
                 Value onGrid = arith::CmpIOp::create(
                     nb, nl, arith::CmpIPredicate::eq,
                     arith::MulIOp::create(nb, nl, q, cst(win.strides[i])), t);
                 Value inside = arith::AndIOp::create(
                     nb, nl,
                     arith::CmpIOp::create(nb, nl, arith::CmpIPredicate::sge, q,
                                           cst(0)),
                     arith::CmpIOp::create(
                         nb, nl, arith::CmpIPredicate::slt, q,
                         tensor::DimOp::create(nb, nl, x, 2 + i)));
                 ok = arith::AndIOp::create(
                     nb, nl, ok, arith::AndIOp::create(nb, nl, onGrid, inside));
                 // Clamped so that the read stays in bounds; ok masks it.
                 at.push_back(
                     arith::SelectOp::create(nb, nl, inside, q, cst(0)));
               }
               Value v = tensor::ExtractOp::create(nb, nl, x, at);
               SmallVector<Value> wAt = {
                   at[1], arith::RemUIOp::create(nb, nl, idx(1), cst(mg))};
               for (int64_t i = 0; i < n; ++i)
                 wAt.push_back(idx(rank + 1 + i));
               Value wv = tensor::ExtractOp::create(nb, nl, w, wAt);
               Value zero =
                   createScalarConstant(nb, nl, xt.getElementType(), 0.0);
               Value term = arith::SelectOp::create(
                   nb, nl, ok, arith::MulFOp::create(nb, nl, v, wv), zero);
               linalg::YieldOp::create(
                   nb, nl,
                   arith::AddFOp::create(nb, nl, a[1], term).getResult());
             })
      .getResult(0);
}

/// ConvTranspose, ungrouped, as a GEMM and col2im (see lowerTransposeAsGemm).
/// Grouped ones run as a stride-1 convolution over the input with stride-1
/// zeros inserted between elements and padded by (K-1)*d - pad, using the
/// spatially flipped kernel with its channel dims swapped.
struct ConvTransposeLowering : OpConversionPattern<g::ConvTransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::ConvTransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value x = adaptor.getX(), w = adaptor.getW();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto wt = dyn_cast<RankedTensorType>(w.getType());
    auto yt = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getType()));
    if (failed(checkConvTypes(xt, wt, yt)) &&
        succeeded(checkConvTypes(xt, wt, yt, /*dynamicSpatial=*/true)) &&
        !op.getOutputShape() && op.getAutoPad() == "NOTSET" &&
        isa<FloatType>(xt.getElementType())) {
      size_t n = xt.getRank() - 2;
      auto win = getWindow(xt, wt.getShape().drop_front(2), "NOTSET",
                           op.getStrides(), op.getDilations(), op.getPads());
      if (failed(win))
        return rewriter.notifyMatchFailure(op, "invalid window attributes");
      SmallVector<int64_t> outPad(n, 0);
      if (auto p = op.getOutputPadding())
        outPad.assign(p->begin(), p->end());
      bool interleaved = n == 2 && op.getGroup() == 1;
      for (size_t i = 0; i < n && interleaved; ++i)
        interleaved = win->dilations[i] == 1 && win->lo[i] == 0 &&
                      win->hi[i] == 0 && outPad[i] == 0 &&
                      win->strides[i] == win->kernel[i];
      if (interleaved) {
        rewriter.replaceOp(
            op, interleavedTranspose(rewriter, loc, x, w, adaptor.getB(), yt));
        return success();
      }
      rewriter.replaceOp(op,
                         gatherTranspose(rewriter, loc, x, w, adaptor.getB(),
                                         yt, *win, outPad, op.getGroup()));
      return success();
    }
    if (failed(checkConvTypes(xt, wt, yt)))
      return rewriter.notifyMatchFailure(
          op, "needs float operands, a static weight and static non-batch "
              "dims (or, with dynamic image extents, explicit pads)");
    size_t n = xt.getRank() - 2;
    TransposeGeometry geo = getTransposeGeometry(op, xt, wt, yt);
    const Window &win = geo.win;
    int64_t group = op.getGroup();
    if (group == 1) {
      rewriter.replaceOp(op, lowerTransposeAsGemm(rewriter, loc, x, w,
                                                  adaptor.getB(), yt, geo));
      return success();
    }

    // Buffer of extent O + (K-1)*d holding x[i] at lo + i*s, zeros elsewhere.
    Type elt = xt.getElementType();
    SmallVector<int64_t> bufShape(xt.getShape().take_front(2));
    SmallVector<OpFoldResult> srcOff(2, rewriter.getIndexAttr(0)), srcSize,
        dstOff = srcOff, dstStride;
    srcSize.push_back(tensor::getMixedSize(rewriter, loc, x, 0));
    srcSize.push_back(rewriter.getIndexAttr(xt.getDimSize(1)));
    dstStride.assign(2, rewriter.getIndexAttr(1));
    for (size_t i = 0; i < n; ++i) {
      int64_t in = xt.getDimSize(i + 2), s = win.strides[i];
      int64_t span = (win.kernel[i] - 1) * win.dilations[i];
      int64_t len = yt.getDimSize(i + 2) + span;
      int64_t lo = span - geo.begin[i];
      int64_t i0 = lo < 0 ? (-lo + s - 1) / s : 0;
      int64_t i1 = std::min(in, (len - 1 - lo) / s + 1);
      if (len - 1 - lo < 0 || i1 <= i0)
        return rewriter.notifyMatchFailure(op, "output sees no input");
      bufShape.push_back(len);
      srcOff.push_back(rewriter.getIndexAttr(i0));
      srcSize.push_back(rewriter.getIndexAttr(i1 - i0));
      dstOff.push_back(rewriter.getIndexAttr(lo + i0 * s));
      dstStride.push_back(rewriter.getIndexAttr(s));
    }
    SmallVector<OpFoldResult> ones(xt.getRank(), rewriter.getIndexAttr(1));
    Value src =
        tensor::ExtractSliceOp::create(rewriter, loc, x, srcOff, srcSize, ones);
    Value zero = createScalarConstant(rewriter, loc, elt, 0.0);
    Value buf =
        fillTensor(rewriter, loc,
                   emptyWithBatch(rewriter, loc, xt.clone(bufShape), x), zero);
    buf = tensor::InsertSliceOp::create(rewriter, loc, src, buf, dstOff,
                                        srcSize, dstStride);

    Value init = convInit(rewriter, loc, yt, x, adaptor.getB());
    Value wf = mergeDims(
        rewriter, loc,
        flipKernel(rewriter, loc, splitDim(rewriter, loc, w, 0, group)), 0);
    rewriter.replaceOp(op, emitConv(rewriter, loc, buf, wf, init, win,
                                    SmallVector<int64_t>(n, 1), group));
    return success();
  }
};

} // namespace

void populateConvTransposeLoweringPatterns(GraphTypeConverter &converter,
                                           RewritePatternSet &patterns) {
  patterns.add<ConvTransposeLowering>(converter, patterns.getContext());
}

} // namespace kiln
