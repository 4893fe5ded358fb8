//===- WindowUtils.h - Helpers shared by Conv and pooling -------*- C++ -*-===//
#ifndef KILN_LOWERING_TOLINALG_WINDOWUTILS_H
#define KILN_LOWERING_TOLINALG_WINDOWUTILS_H

#include "dialects/graph/ShapeInference.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace kiln {
namespace window {

using namespace mlir;

using IteratorTypes = llvm::SmallVector<mlir::utils::IteratorType>;

/// Resolved geometry of a window op over the spatial dims.
struct Window {
  SmallVector<int64_t> kernel, strides, dilations, lo, hi;
  size_t rank() const { return kernel.size(); }
};

inline SmallVector<int64_t> orOnes(std::optional<ArrayRef<int64_t>> v,
                                   size_t n) {
  return v ? SmallVector<int64_t>(*v) : SmallVector<int64_t>(n, 1);
}

/// Checks that only the batch dim of `t` is dynamic.
inline bool staticButBatch(RankedTensorType t) {
  return llvm::none_of(t.getShape().drop_front(), ShapedType::isDynamic);
}

inline FailureOr<Window> getWindow(RankedTensorType x, ArrayRef<int64_t> kernel,
                                   StringRef autoPad,
                                   std::optional<ArrayRef<int64_t>> strides,
                                   std::optional<ArrayRef<int64_t>> dilations,
                                   std::optional<ArrayRef<int64_t>> pads) {
  ArrayRef<int64_t> spatial = x.getShape().drop_front(2);
  graph::WindowParams p{autoPad, kernel, strides, dilations, pads, false};
  auto resolved = graph::resolvePads(std::nullopt, spatial, p);
  if (failed(resolved))
    return failure();
  size_t n = spatial.size();
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  w.strides = orOnes(strides, n);
  w.dilations = orOnes(dilations, n);
  w.lo.assign(resolved->begin(), resolved->begin() + n);
  w.hi.assign(resolved->begin() + n, resolved->end());
  return w;
}

/// Grows the end padding so that every output window of `out` (spatial
/// extents) fits; ceil_mode windows may run past the explicit padding.
inline void padForOutput(Window &w, ArrayRef<int64_t> in,
                         ArrayRef<int64_t> out) {
  for (size_t i = 0; i < w.rank(); ++i) {
    int64_t need =
        (out[i] - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1;
    int64_t have = in[i] + w.lo[i] + w.hi[i];
    if (need > have)
      w.hi[i] += need - have;
  }
}

/// `tensor.empty` of `type` whose only possibly dynamic dim, the batch, has
/// the extent of `x`'s dim 0.
inline Value emptyWithBatch(OpBuilder &b, Location loc, RankedTensorType type,
                            Value x) {
  SmallVector<Value> dyn;
  if (type.isDynamicDim(0))
    dyn.push_back(tensor::DimOp::create(b, loc, x, 0));
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dyn);
}

/// An empty [N, C, spatial...] result of a window op over `x`: the batch
/// from `x`, each dynamic spatial extent (in + lo + hi - window) / stride + 1
/// computed at run time from `x`'s.
inline Value emptyWindowResult(OpBuilder &b, Location loc,
                               RankedTensorType type, Value x,
                               const Window &w) {
  SmallVector<Value> dyn;
  if (type.isDynamicDim(0))
    dyn.push_back(tensor::DimOp::create(b, loc, x, 0));
  for (int64_t d = 2; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      continue;
    size_t i = d - 2;
    int64_t window = (w.kernel[i] - 1) * w.dilations[i] + 1;
    auto c = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value extent = tensor::DimOp::create(b, loc, x, d);
    Value span =
        arith::AddIOp::create(b, loc, extent, c(w.lo[i] + w.hi[i] - window));
    Value steps = arith::FloorDivSIOp::create(b, loc, span, c(w.strides[i]));
    dyn.push_back(arith::AddIOp::create(b, loc, steps, c(1)));
  }
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(),
                                 dyn);
}

/// Static except the batch and spatial dims (channels known).
inline bool staticChannels(RankedTensorType t) {
  return t.getRank() >= 2 && !t.isDynamicDim(1);
}

/// `x` ([N, C, spatial...], static but the batch) padded by `lo`/`hi` on the
/// spatial dims, as a filled tensor with `x` inserted into its interior
/// rather than a tensor.pad: bufferization then lets the producer of `x`
/// write straight into the padded buffer (empty-tensor elimination) instead
/// of into a buffer of its own that is then copied.
inline Value padSpatial(OpBuilder &b, Location loc, Value x,
                        ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                        Value padValue) {
  if (llvm::all_of(lo, [](int64_t v) { return v == 0; }) &&
      llvm::all_of(hi, [](int64_t v) { return v == 0; }))
    return x;
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(t.getShape());
  SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0)), sizes, strides;
  SmallVector<Value> dyn;
  if (t.isDynamicDim(0))
    dyn.push_back(tensor::DimOp::create(b, loc, x, 0));
  for (size_t i = 0; i < lo.size(); ++i) {
    if (t.isDynamicDim(i + 2))
      dyn.push_back(arith::AddIOp::create(
          b, loc, tensor::DimOp::create(b, loc, x, i + 2),
          arith::ConstantIndexOp::create(b, loc, lo[i] + hi[i])));
    else
      shape[i + 2] += lo[i] + hi[i];
    offsets.push_back(b.getIndexAttr(lo[i]));
  }
  for (int64_t d = 0; d < t.getRank(); ++d) {
    sizes.push_back(t.isDynamicDim(d)
                        ? OpFoldResult(tensor::DimOp::create(b, loc, x, d))
                        : OpFoldResult(b.getIndexAttr(t.getDimSize(d))));
    strides.push_back(b.getIndexAttr(1));
  }
  Value empty = tensor::EmptyOp::create(b, loc, shape, t.getElementType(), dyn);
  Value filled = linalg::FillOp::create(b, loc, padValue, empty).getResult(0);
  return tensor::InsertSliceOp::create(b, loc, x, filled, offsets, sizes,
                                       strides);
}

/// `x` [N, H, W, C] (static H and W) padded with `pads` [top, left, bottom,
/// right] of `padValue` (0 when null) as a tensor.pad; `x` itself when all
/// pads are 0.
inline Value padNhwc(OpBuilder &b, Location loc, Value x,
                     ArrayRef<int64_t> pads, Value padValue = {}) {
  if (llvm::all_of(pads, [](int64_t p) { return p == 0; }))
    return x;
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(t.getShape());
  shape[1] += pads[0] + pads[2];
  shape[2] += pads[1] + pads[3];
  if (!padValue)
    padValue = createScalarConstant(b, loc, t.getElementType(), 0.0);
  auto idx = [&](int64_t v) { return b.getIndexAttr(v); };
  return tensor::PadOp::create(
      b, loc, t.clone(shape), x,
      ArrayRef<OpFoldResult>{idx(0), idx(pads[0]), idx(pads[1]), idx(0)},
      ArrayRef<OpFoldResult>{idx(0), idx(pads[2]), idx(pads[3]), idx(0)},
      padValue);
}

/// The identity of max for `elt`: -inf, or the least value of the integer
/// type read as unsigned or signed. It pads and seeds max pooling.
inline Value createLowestValue(OpBuilder &b, Location loc, Type elt,
                               bool isUnsigned) {
  if (auto ft = dyn_cast<FloatType>(elt))
    return arith::ConstantOp::create(
        b, loc,
        b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(),
                                           /*Negative=*/true)));
  unsigned width = elt.getIntOrFloatBitWidth();
  return arith::ConstantOp::create(
      b, loc,
      b.getIntegerAttr(elt, isUnsigned ? APInt::getMinValue(width)
                                       : APInt::getSignedMinValue(width)));
}

inline Value fillTensor(OpBuilder &b, Location loc, Value empty, Value scalar) {
  return linalg::FillOp::create(b, loc, scalar, empty).getResult(0);
}

} // namespace window

/// MaxPool, AveragePool and GlobalAveragePool; part of
/// populateConvPoolLoweringPatterns.
void populatePoolingLoweringPatterns(GraphTypeConverter &converter,
                                     mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_WINDOWUTILS_H
