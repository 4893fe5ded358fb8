//===- GridSample.cpp - kiln.graph GridSample to linalg -------------------===//
//
// One generic over the output [N, C, H_out, W_out]: the body reads the grid
// point, maps it to source coordinates (align_corners; border clamps,
// reflection mirrors), and reads X at the nearest pixel, at the 2x2 around it
// with bilinear weights, or at the 4x4 with cubic weights (A = -0.75).
// Pixels outside X read 0 with zeros padding; bicubic pads each tap. This is
// the definition torch's grid_sample has and the ONNX tests come from.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/GraphOps.h"
#include "lowering/to-linalg/DataMovement.h"
#include "lowering/to-linalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
namespace {

/// Scalar arithmetic in the element type, with the padding rules.
struct Sampler {
  OpBuilder &b;
  Location l;
  Type t;
  bool alignCorners;
  StringRef padding;

  Value c(double v) { return createScalarConstant(b, l, t, v); }
  Value add(Value x, Value y) { return arith::AddFOp::create(b, l, x, y); }
  Value sub(Value x, Value y) { return arith::SubFOp::create(b, l, x, y); }
  Value mul(Value x, Value y) { return arith::MulFOp::create(b, l, x, y); }
  Value div(Value x, Value y) { return arith::DivFOp::create(b, l, x, y); }
  Value clamp(Value x, Value lo, Value hi) {
    return arith::MinimumFOp::create(
        b, l, arith::MaximumFOp::create(b, l, x, lo), hi);
  }

  /// [-1, 1] to pixel coordinates of an extent `size` (a float).
  Value unnormalize(Value g, Value size) {
    if (alignCorners)
      return mul(div(add(g, c(1)), c(2)), sub(size, c(1)));
    return div(sub(mul(add(g, c(1)), size), c(1)), c(2));
  }

  /// Mirrors `x` into [low, high] = [twiceLow / 2, twiceHigh / 2].
  Value reflect(Value x, double twiceLow, Value twiceHigh) {
    Value lo = c(twiceLow / 2);
    Value span = div(sub(twiceHigh, c(twiceLow)), c(2));
    Value in = math::AbsFOp::create(b, l, sub(x, lo));
    Value extra = arith::RemFOp::create(b, l, in, span);
    Value flips = math::FloorOp::create(b, l, div(in, span));
    Value even =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                              arith::RemFOp::create(b, l, flips, c(2)), c(0));
    Value r = arith::SelectOp::create(b, l, even, add(extra, lo),
                                      add(sub(span, extra), lo));
    // A zero span (extent 1) mirrors everything onto 0.
    Value empty =
        arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, span, c(0));
    return arith::SelectOp::create(b, l, empty, c(0), r);
  }

  /// Padding applied to a coordinate: border clamps, reflection mirrors then
  /// clamps; zeros leaves it (reads outside give 0).
  Value pad(Value x, Value size) {
    Value last = sub(size, c(1));
    if (padding == "border")
      return clamp(x, c(0), last);
    if (padding == "reflection") {
      Value r = alignCorners ? reflect(x, 0, mul(c(2), last))
                             : reflect(x, -1, sub(mul(c(2), size), c(1)));
      return clamp(r, c(0), last);
    }
    return x;
  }
};

struct GridSampleLowering : OpConversionPattern<g::GridSampleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(g::GridSampleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getX(), grid = adaptor.getGrid();
    auto xt = dyn_cast<RankedTensorType>(x.getType());
    auto type = dyn_cast_or_null<RankedTensorType>(
        getTypeConverter()->convertType(op.getY().getType()));
    if (!xt || !type || xt.getRank() != 4 ||
        !isa<RankedTensorType>(grid.getType()))
      return rewriter.notifyMatchFailure(op, "needs 4-D ranked tensors");
    Location loc = op.getLoc();
    Type elt = xt.getElementType();
    StringRef mode = op.getMode();
    SmallVector<Value> dyn;
    for (int64_t i = 0; i < 4; ++i)
      if (type.isDynamicDim(i))
        dyn.push_back(i < 2 ? dimValue(rewriter, loc, x, i)
                            : dimValue(rewriter, loc, grid, i - 1));
    Value hIdx = dimValue(rewriter, loc, x, 2),
          wIdx = dimValue(rewriter, loc, x, 3);
    Value init =
        tensor::EmptyOp::create(rewriter, loc, type.getShape(), elt, dyn);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, type, ValueRange{}, init,
        rewriter.getMultiDimIdentityMap(4),
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [&](OpBuilder &b, Location l, ValueRange) {
          Sampler s{b, l, elt, op.getAlignCorners() != 0, op.getPaddingMode()};
          SmallVector<Value> ivs;
          for (int64_t i = 0; i < 4; ++i)
            ivs.push_back(linalg::IndexOp::create(b, l, i));
          auto toFloat = [&](Value idx) -> Value {
            Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), idx);
            return arith::SIToFPOp::create(b, l, elt, i);
          };
          Value hf = toFloat(hIdx), wf = toFloat(wIdx);
          auto gridAt = [&](int64_t k) -> Value {
            return tensor::ExtractOp::create(
                b, l, grid,
                ValueRange{ivs[0], ivs[2], ivs[3], indexConstant(b, l, k)});
          };
          Value gx = s.unnormalize(gridAt(0), wf);
          Value gy = s.unnormalize(gridAt(1), hf);
          // X at float pixel (y, x), 0 outside the image.
          auto pixel = [&](Value py, Value px) -> Value {
            Value inside = arith::AndIOp::create(
                b, l,
                arith::AndIOp::create(
                    b, l,
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, px,
                                          s.c(0)),
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, px,
                                          s.sub(wf, s.c(1)))),
                arith::AndIOp::create(
                    b, l,
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGE, py,
                                          s.c(0)),
                    arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLE, py,
                                          s.sub(hf, s.c(1)))));
            auto safe = [&](Value v, Value last) -> Value {
              Value cl = s.clamp(v, s.c(0), last);
              Value i = arith::FPToSIOp::create(b, l, b.getI64Type(), cl);
              return arith::IndexCastOp::create(b, l, b.getIndexType(), i);
            };
            Value v = tensor::ExtractOp::create(
                b, l, x,
                ValueRange{ivs[0], ivs[1], safe(py, s.sub(hf, s.c(1))),
                           safe(px, s.sub(wf, s.c(1)))});
            return arith::SelectOp::create(b, l, inside, v, s.c(0));
          };
          Value result;
          if (mode == "nearest") {
            result = pixel(math::RoundEvenOp::create(b, l, s.pad(gy, hf)),
                           math::RoundEvenOp::create(b, l, s.pad(gx, wf)));
          } else if (mode == "bilinear") {
            Value px = s.pad(gx, wf), py = s.pad(gy, hf);
            Value x0 = math::FloorOp::create(b, l, px);
            Value y0 = math::FloorOp::create(b, l, py);
            Value x1 = s.add(x0, s.c(1)), y1 = s.add(y0, s.c(1));
            Value wx1 = s.sub(px, x0), wx0 = s.sub(s.c(1), wx1);
            Value wy1 = s.sub(py, y0), wy0 = s.sub(s.c(1), wy1);
            result = s.add(s.add(s.mul(s.mul(wy0, wx0), pixel(y0, x0)),
                                 s.mul(s.mul(wy0, wx1), pixel(y0, x1))),
                           s.add(s.mul(s.mul(wy1, wx0), pixel(y1, x0)),
                                 s.mul(s.mul(wy1, wx1), pixel(y1, x1))));
          } else {
            // Bicubic: unpadded coordinates; each tap is padded.
            Value x0 = math::FloorOp::create(b, l, gx);
            Value y0 = math::FloorOp::create(b, l, gy);
            Value tx = s.sub(gx, x0), ty = s.sub(gy, y0);
            SmallVector<Value, 4> wx = cubicWeights(b, l, tx, -0.75);
            SmallVector<Value, 4> wy = cubicWeights(b, l, ty, -0.75);
            result = s.c(0);
            for (int64_t i = 0; i < 4; ++i) {
              Value py = s.pad(s.add(y0, s.c(double(i - 1))), hf);
              Value row = s.c(0);
              for (int64_t j = 0; j < 4; ++j) {
                Value px = s.pad(s.add(x0, s.c(double(j - 1))), wf);
                row = s.add(row, s.mul(wx[j], pixel(py, px)));
              }
              result = s.add(result, s.mul(wy[i], row));
            }
          }
          linalg::YieldOp::create(b, l, result);
        });
    rewriter.replaceOp(op, generic.getResult(0));
    return success();
  }
};

} // namespace

void populateGridSamplePatterns(GraphTypeConverter &converter,
                                RewritePatternSet &patterns) {
  patterns.add<GridSampleLowering>(converter, patterns.getContext());
}

} // namespace kiln
