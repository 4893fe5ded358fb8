//===- Resize.cpp - kiln.graph Resize to linalg ---------------------------===//
//
// Resize becomes a linalg.generic over the output: per resized axis the body
// maps the output index to a source coordinate (coordinate_transformation_mode,
// in f64 as the ONNX reference computes it), then either rounds it (nearest)
// or reads the 2^k surrounding elements and blends them (linear), or the 4^k
// around it with cubic weights (cubic). Indices
// outside the input are clamped, which equals the reference's edge padding.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Run-time description of one resized axis.
struct AxisInfo {
  int64_t axis;
  Value inLen, outLen;    // index
  Value scale;            // f64
  Value roiStart, roiEnd; // f64, tf_crop_and_resize only
};

static int64_t vectorLength(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.getRank() == 1 ? t.getDimSize(0) : ShapedType::kDynamic;
}

/// Nearest upsampling by integer factors with asymmetric coordinates and
/// floor rounding (what PaddleOCR's FPN exports) reads in[o div s]: a
/// broadcast of the input into [..., in_i, s_i, ...] viewed as the output,
/// i.e. plain data movement instead of per-element coordinate arithmetic.
/// Null when the Resize is not of that form.
static Value upsampleByFactors(OpBuilder &b, g::ResizeOp op, Value x,
                               RankedTensorType in, RankedTensorType type) {
  if (op.getMode() != "nearest" || op.getNearestMode() != "floor" ||
      op.getCoordinateTransformationMode() != "asymmetric" || op.getAxes() ||
      !in.hasStaticShape() || !type.hasStaticShape() ||
      in.getRank() != type.getRank())
    return {};
  SmallVector<int64_t> factors;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t n = in.getDimSize(i), m = type.getDimSize(i);
    if (n == 0 || m % n != 0)
      return {};
    factors.push_back(m / n);
  }
  if (!g::isNoValue(op.getScales()) && vectorLength(op.getScales()) != 0) {
    auto scales = g::getConstantFloats(op.getScales());
    if (!scales || scales->size() != factors.size())
      return {};
    for (auto [scale, f] : llvm::zip(*scales, factors))
      if (scale != (double)f)
        return {};
  } else if (op.getKeepAspectRatioPolicy() != "stretch") {
    return {};
  }
  SmallVector<int64_t> expanded, dims;
  SmallVector<ReassociationIndices> re;
  for (auto [i, f] : llvm::enumerate(factors)) {
    re.push_back({(int64_t)expanded.size()});
    expanded.push_back(in.getDimSize(i));
    if (f == 1)
      continue;
    re.back().push_back(expanded.size());
    dims.push_back(expanded.size());
    expanded.push_back(f);
  }
  Location loc = op.getLoc();
  Value empty =
      tensor::EmptyOp::create(b, loc, expanded, type.getElementType());
  Value spread =
      linalg::BroadcastOp::create(b, loc, x, empty, dims).getResult()[0];
  return tensor::CollapseShapeOp::create(b, loc, type, spread, re);
}

struct ResizeLowering : OpConversionPattern<g::ResizeOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(g::ResizeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX();
    auto in = dyn_cast<RankedTensorType>(x.getType());
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    if (!in || !type)
      return rewriter.notifyMatchFailure(op, "needs ranked types");
    StringRef mode = op.getMode(), ctm = op.getCoordinateTransformationMode();
    if (mode != "nearest" && mode != "linear" && mode != "cubic")
      return rewriter.notifyMatchFailure(op, "unsupported mode");
    if (mode != "nearest" && !isa<FloatType>(type.getElementType()))
      return rewriter.notifyMatchFailure(op, "linear/cubic need a float type");
    if (op.getAntialias() && mode != "nearest")
      return rewriter.notifyMatchFailure(op, "antialias is unsupported");
    if (ctm != "half_pixel" && ctm != "half_pixel_symmetric" &&
        ctm != "pytorch_half_pixel" && ctm != "align_corners" &&
        ctm != "asymmetric" && ctm != "tf_half_pixel_for_nn" &&
        ctm != "tf_crop_and_resize")
      return rewriter.notifyMatchFailure(op, "unsupported transformation");
    StringRef nearestMode = op.getNearestMode();
    if (mode == "nearest" && nearestMode != "round_prefer_floor" &&
        nearestMode != "round_prefer_ceil" && nearestMode != "floor" &&
        nearestMode != "ceil")
      return rewriter.notifyMatchFailure(op, "unsupported nearest_mode");
    if (Value up = upsampleByFactors(rewriter, op, x, in, type)) {
      rewriter.replaceOp(op, up);
      return success();
    }

    int64_t r = in.getRank();
    SmallVector<int64_t> axes;
    if (auto a = op.getAxes())
      for (int64_t v : *a)
        axes.push_back(v < 0 ? v + r : v);
    else
      axes = llvm::to_vector(llvm::seq<int64_t>(0, r));
    int64_t n = axes.size();
    bool hasSizes =
        !g::isNoValue(op.getSizes()) && vectorLength(op.getSizes()) != 0;
    bool hasScales =
        !g::isNoValue(op.getScales()) && vectorLength(op.getScales()) != 0;
    if (hasSizes == hasScales)
      return rewriter.notifyMatchFailure(op, "needs scales or sizes");

    Location loc = op.getLoc();
    Type f64 = rewriter.getF64Type(), f32 = rewriter.getF32Type();
    auto toF = [&](Value idx, Type t) {
      Value i =
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), idx);
      return arith::SIToFPOp::create(rewriter, loc, t, i).getResult();
    };

    // A common scale for all axes under keep_aspect_ratio_policy.
    std::optional<double> commonScale;
    if (hasSizes && op.getKeepAspectRatioPolicy() != "stretch") {
      auto sizes = g::getConstantInts(op.getSizes());
      if (!sizes || (int64_t)sizes->size() != n)
        return rewriter.notifyMatchFailure(op, "needs constant sizes");
      bool notLarger = op.getKeepAspectRatioPolicy() == "not_larger";
      float s = notLarger ? std::numeric_limits<float>::max() : 0.0f;
      for (int64_t k = 0; k < n; ++k) {
        if (in.isDynamicDim(axes[k]))
          return rewriter.notifyMatchFailure(op, "needs static extents");
        float q = (float)(*sizes)[k] / (float)in.getDimSize(axes[k]);
        s = notLarger ? std::min(s, q) : std::max(s, q);
      }
      commonScale = s;
    }
    bool crop = ctm == "tf_crop_and_resize";
    if (crop) {
      auto roiType = dyn_cast<RankedTensorType>(adaptor.getRoi().getType());
      if (!roiType || roiType.getRank() != 1 || roiType.getDimSize(0) != 2 * n)
        return rewriter.notifyMatchFailure(op, "needs a roi per axis");
    }

    SmallVector<AxisInfo> infos;
    SmallVector<Value> outDims;
    for (int64_t i = 0; i < r; ++i)
      outDims.push_back(dimValue(rewriter, loc, x, i));
    for (int64_t k = 0; k < n; ++k) {
      AxisInfo info;
      info.axis = axes[k];
      info.inLen = outDims[info.axis];
      Value outLen;
      if (!type.isDynamicDim(info.axis))
        outLen = indexConstant(rewriter, loc, type.getDimSize(info.axis));
      if (commonScale) {
        info.scale = arith::ConstantOp::create(
            rewriter, loc, rewriter.getF64FloatAttr(*commonScale));
      } else if (hasScales) {
        Value s = tensor::ExtractOp::create(
            rewriter, loc, adaptor.getScales(),
            ValueRange{indexConstant(rewriter, loc, k)});
        info.scale = arith::ExtFOp::create(rewriter, loc, f64, s);
        if (!outLen) {
          // floor(in * scale) in single precision, as shape inference does.
          Value p = arith::MulFOp::create(
              rewriter, loc, toF(info.inLen, f32),
              arith::TruncFOp::create(rewriter, loc, f32, info.scale));
          p = math::FloorOp::create(rewriter, loc, p);
          p = arith::FPToSIOp::create(rewriter, loc, rewriter.getI64Type(), p);
          outLen = arith::IndexCastOp::create(rewriter, loc,
                                              rewriter.getIndexType(), p);
        }
      } else {
        if (!outLen)
          outLen = extractIndex(rewriter, loc, adaptor.getSizes(), k);
        info.scale = arith::DivFOp::create(rewriter, loc, toF(outLen, f64),
                                           toF(info.inLen, f64));
      }
      info.outLen = outLen;
      outDims[info.axis] = outLen;
      if (crop) {
        auto roiAt = [&](int64_t i) {
          Value v = tensor::ExtractOp::create(
              rewriter, loc, adaptor.getRoi(),
              ValueRange{indexConstant(rewriter, loc, i)});
          return castScalar(rewriter, loc, v, f64);
        };
        info.roiStart = roiAt(k);
        info.roiEnd = roiAt(k + n);
      }
      // Extent 1 in and out reads index 0 whatever the scale (every tap
      // clamps there, and the weights sum to 1).
      if (!crop && !in.isDynamicDim(info.axis) &&
          in.getDimSize(info.axis) == 1 && type.getDimSize(info.axis) == 1)
        continue;
      // Same extent and unit scale: the identity on this axis.
      if (!crop && !in.isDynamicDim(info.axis) &&
          in.getDimSize(info.axis) == type.getDimSize(info.axis) &&
          (!hasScales || (g::getConstantFloats(op.getScales()) &&
                          (*g::getConstantFloats(op.getScales()))[k] == 1.0)))
        continue;
      infos.push_back(info);
    }
    if ((mode == "linear" && infos.size() > 4) ||
        (mode == "cubic" && infos.size() > 3))
      return rewriter.notifyMatchFailure(op, "too many interpolated axes");

    SmallVector<Value> dyn;
    for (int64_t i = 0; i < r; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(outDims[i]);
    Value init = tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                         type.getElementType(), dyn);
    SmallVector<utils::IteratorType> iters(r, utils::IteratorType::parallel);
    double extrapolation = op.getExtrapolationValue().convertToDouble();
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        rewriter.getMultiDimIdentityMap(r), iters,
        [&](OpBuilder &b, Location l, ValueRange) {
          SmallVector<Value> ivs;
          for (int64_t i = 0; i < r; ++i)
            ivs.push_back(linalg::IndexOp::create(b, l, i));
          Value outside;
          SmallVector<Value> coords;
          for (const AxisInfo &info : infos) {
            Value c = sourceCoordinate(b, l, ctm, ivs[info.axis], info);
            coords.push_back(c);
            if (ctm != "tf_crop_and_resize")
              continue;
            Value last = arith::SubFOp::create(
                b, l, toFloat(b, l, info.inLen),
                arith::ConstantOp::create(b, l, b.getF64FloatAttr(1.0)));
            Value lo = arith::CmpFOp::create(
                b, l, arith::CmpFPredicate::OLT, c,
                arith::ConstantOp::create(b, l, b.getF64FloatAttr(0.0)));
            Value hi =
                arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, c, last);
            Value o = arith::OrIOp::create(b, l, lo, hi);
            outside = outside ? arith::OrIOp::create(b, l, outside, o) : o;
          }
          Value v = mode == "nearest"
                        ? nearest(b, l, x, ivs, coords, infos, nearestMode)
                    : mode == "linear"
                        ? linear(b, l, x, ivs, coords, infos)
                        : cubic(b, l, x, ivs, coords, infos,
                                op.getCubicCoeffA().convertToDouble(),
                                op.getExcludeOutside() != 0);
          if (outside)
            v = arith::SelectOp::create(
                b, l, outside,
                createScalarConstant(b, l, v.getType(), extrapolation), v);
          linalg::YieldOp::create(b, l, v);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }

  static Value toFloat(OpBuilder &b, Location l, Value idx) {
    Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), idx);
    return arith::SIToFPOp::create(b, l, b.getF64Type(), i);
  }

  static Value cst(OpBuilder &b, Location l, double v) {
    return arith::ConstantOp::create(b, l, b.getF64FloatAttr(v));
  }

  /// The source coordinate of output index `o` along `info.axis`.
  Value sourceCoordinate(OpBuilder &b, Location l, StringRef ctm, Value o,
                         const AxisInfo &info) const {
    Value x = toFloat(b, l, o);
    // The reference uses the unrounded output length scale * in, except for
    // the symmetric adjustment.
    Value inLen = toFloat(b, l, info.inLen);
    Value outInt = toFloat(b, l, info.outLen);
    Value outLen = arith::MulFOp::create(b, l, info.scale, inLen);
    Value one = cst(b, l, 1.0), half = cst(b, l, 0.5), zero = cst(b, l, 0.0);
    auto add = [&](Value a, Value c) {
      return arith::AddFOp::create(b, l, a, c);
    };
    auto sub = [&](Value a, Value c) {
      return arith::SubFOp::create(b, l, a, c);
    };
    auto mul = [&](Value a, Value c) {
      return arith::MulFOp::create(b, l, a, c);
    };
    auto div = [&](Value a, Value c) {
      return arith::DivFOp::create(b, l, a, c);
    };
    Value outGtOne =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, outLen, one);
    Value halfPixel = sub(div(add(x, half), info.scale), half);
    if (ctm == "half_pixel")
      return halfPixel;
    if (ctm == "half_pixel_symmetric") {
      Value adj = div(outInt, outLen);
      Value center = div(inLen, cst(b, l, 2.0));
      Value offset = mul(center, sub(one, adj));
      return add(offset, halfPixel);
    }
    if (ctm == "pytorch_half_pixel")
      return arith::SelectOp::create(b, l, outGtOne, halfPixel, zero);
    if (ctm == "asymmetric")
      return div(x, info.scale);
    if (ctm == "tf_half_pixel_for_nn")
      return div(add(x, half), info.scale);
    Value inLast = sub(inLen, one), outLast = sub(outLen, one);
    if (ctm == "align_corners")
      return arith::SelectOp::create(b, l, outGtOne,
                                     div(mul(x, inLast), outLast), zero);
    // tf_crop_and_resize
    Value s = info.roiStart, e = info.roiEnd;
    Value span = sub(e, s);
    Value many = add(mul(s, inLast), div(mul(mul(x, span), inLast), outLast));
    Value single = mul(mul(half, add(s, e)), inLast);
    return arith::SelectOp::create(b, l, outGtOne, many, single);
  }

  Value clampToIndex(OpBuilder &b, Location l, Value f, Value len) const {
    Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), f);
    i = arith::IndexCastOp::create(b, l, b.getIndexType(), i);
    Value last = arith::SubIOp::create(b, l, len, indexConstant(b, l, 1));
    return arith::MinSIOp::create(
        b, l, arith::MaxSIOp::create(b, l, i, indexConstant(b, l, 0)), last);
  }

  Value nearest(OpBuilder &b, Location l, Value x, ValueRange ivs,
                ArrayRef<Value> coords, ArrayRef<AxisInfo> infos,
                StringRef nearestMode) const {
    SmallVector<Value> idx(ivs);
    for (auto [k, c] : llvm::enumerate(coords)) {
      Value fl = math::FloorOp::create(b, l, c);
      Value rounded;
      if (nearestMode == "floor") {
        rounded = fl;
      } else if (nearestMode == "ceil") {
        rounded = math::CeilOp::create(b, l, c);
      } else {
        Value tie = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                          arith::SubFOp::create(b, l, c, fl),
                                          cst(b, l, 0.5));
        Value up = arith::AddFOp::create(b, l, fl, cst(b, l, 1.0));
        Value nearestV = math::FloorOp::create(
            b, l, arith::AddFOp::create(b, l, c, cst(b, l, 0.5)));
        rounded = arith::SelectOp::create(
            b, l, tie, nearestMode == "round_prefer_floor" ? fl : up, nearestV);
      }
      const AxisInfo &info = infos[k];
      idx[info.axis] = clampToIndex(b, l, rounded, info.inLen);
    }
    return tensor::ExtractOp::create(b, l, x, idx);
  }

  Value linear(OpBuilder &b, Location l, Value x, ValueRange ivs,
               ArrayRef<Value> coords, ArrayRef<AxisInfo> infos) const {
    int64_t k = coords.size();
    SmallVector<Value> lo, hi, w;
    for (int64_t j = 0; j < k; ++j) {
      const AxisInfo &info = infos[j];
      Value fl = math::FloorOp::create(b, l, coords[j]);
      w.push_back(arith::SubFOp::create(b, l, coords[j], fl));
      lo.push_back(clampToIndex(b, l, fl, info.inLen));
      hi.push_back(clampToIndex(
          b, l, arith::AddFOp::create(b, l, fl, cst(b, l, 1.0)), info.inLen));
    }
    Type elt = cast<RankedTensorType>(x.getType()).getElementType();
    Value acc = cst(b, l, 0.0);
    for (int64_t corner = 0; corner < (1 << k); ++corner) {
      SmallVector<Value> idx(ivs);
      Value weight = cst(b, l, 1.0);
      for (int64_t j = 0; j < k; ++j) {
        bool up = corner & (1 << j);
        idx[infos[j].axis] = up ? hi[j] : lo[j];
        Value wj =
            up ? w[j] : arith::SubFOp::create(b, l, cst(b, l, 1.0), w[j]);
        weight = arith::MulFOp::create(b, l, weight, wj);
      }
      Value v = tensor::ExtractOp::create(b, l, x, idx);
      v = castScalar(b, l, v, b.getF64Type());
      acc = arith::AddFOp::create(b, l, acc,
                                  arith::MulFOp::create(b, l, weight, v));
    }
    return castScalar(b, l, acc, elt);
  }

  /// Keys' cubic convolution over 4 taps per axis (coefficient `a`), as the
  /// ONNX reference: taps past the edges read the edge element, or with
  /// `excludeOutside` get weight 0 and the others are renormalized.
  Value cubic(OpBuilder &b, Location l, Value x, ValueRange ivs,
              ArrayRef<Value> coords, ArrayRef<AxisInfo> infos, double a,
              bool excludeOutside) const {
    int64_t k = coords.size();
    auto mul = [&](Value p, Value q) -> Value {
      return arith::MulFOp::create(b, l, p, q);
    };
    auto add = [&](Value p, Value q) -> Value {
      return arith::AddFOp::create(b, l, p, q);
    };
    auto sub = [&](Value p, Value q) -> Value {
      return arith::SubFOp::create(b, l, p, q);
    };
    Value one = cst(b, l, 1.0);
    SmallVector<SmallVector<Value, 4>> taps(k), weights(k);
    for (int64_t j = 0; j < k; ++j) {
      const AxisInfo &info = infos[j];
      Value fl = math::FloorOp::create(b, l, coords[j]);
      weights[j] = cubicWeights(b, l, sub(coords[j], fl), a);
      Value sum;
      for (int64_t m = 0; m < 4; ++m) {
        Value pos = add(fl, cst(b, l, double(m - 1)));
        taps[j].push_back(clampToIndex(b, l, pos, info.inLen));
        if (!excludeOutside)
          continue;
        Value inside = arith::AndIOp::create(
            b, l,
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, pos,
                                  cst(b, l, 0.0)),
            arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT, pos,
                                  toFloat(b, l, info.inLen)));
        weights[j][m] = arith::SelectOp::create(b, l, inside, weights[j][m],
                                                cst(b, l, 0.0));
        sum = sum ? add(sum, weights[j][m]) : weights[j][m];
      }
      if (excludeOutside)
        for (Value &w : weights[j])
          w = arith::DivFOp::create(b, l, w, sum);
    }
    Type elt = cast<RankedTensorType>(x.getType()).getElementType();
    Value acc = cst(b, l, 0.0);
    int64_t count = 1;
    for (int64_t j = 0; j < k; ++j)
      count *= 4;
    for (int64_t tap = 0; tap < count; ++tap) {
      SmallVector<Value> idx(ivs);
      Value weight = one;
      for (int64_t j = 0, rest = tap; j < k; ++j, rest /= 4) {
        idx[infos[j].axis] = taps[j][rest % 4];
        weight = mul(weight, weights[j][rest % 4]);
      }
      Value v = castScalar(b, l, tensor::ExtractOp::create(b, l, x, idx),
                           b.getF64Type());
      acc = add(acc, mul(weight, v));
    }
    return castScalar(b, l, acc, elt);
  }
};

} // namespace

void populateResizePatterns(GraphTypeConverter &converter,
                            RewritePatternSet &patterns) {
  patterns.add<ResizeLowering>(converter, patterns.getContext());
}

} // namespace kiln
