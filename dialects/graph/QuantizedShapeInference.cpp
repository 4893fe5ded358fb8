//===- QuantizedShapeInference.cpp - Integer contraction result types -----===//
//
// QuantizedConv and QuantizedMatMul (FusedOps.td): graph fusion creates them
// from ops whose types were already inferred, so these check what the
// lowering relies on (8-bit operands, static weights, parameter counts) and
// compute the result with explicit pads, strides and dilations.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ShapeInference.h"

using namespace mlir;

namespace kiln::graph {

static constexpr int64_t kDyn = ShapedType::kDynamic;

static bool isInt8(Type t) { return t.isInteger(8); }

/// The result element type: f32, or `quantized` (an 8-bit integer type).
static FailureOr<Type> resultElement(Loc loc, MLIRContext *ctx,
                                     std::optional<Type> quantized) {
  if (!quantized)
    return Type(Float32Type::get(ctx));
  if (!isInt8(*quantized))
    return emitOptionalError(loc, "quantized_type must be ui8 or i8");
  return *quantized;
}

/// Checks shared by both ops: 8-bit X and W, one scale per tensor or per
/// output channel, an f32 bias of `outChannels` entries.
template <typename Adaptor>
static LogicalResult checkOperands(Loc loc, Adaptor op, RankedTensorType x,
                                   RankedTensorType w, int64_t outChannels) {
  if (!isInt8(x.getElementType()) || !w.getElementType().isSignlessInteger(8))
    return emitOptionalError(loc, "X must be ui8 or i8 and W i8");
  if (!w.hasStaticShape())
    return emitOptionalError(loc, "W must have a static shape");
  size_t scales = op.getWScales().size();
  if (scales != 1 && (int64_t)scales != outChannels)
    return emitOptionalError(loc, "w_scales needs 1 or ", outChannels,
                             " entries, got ", scales);
  if (auto b = rankedOrNull(op.getB()))
    if (b.getRank() != 1 || !b.getElementType().isF32() ||
        b.getDimSize(0) != outChannels)
      return emitOptionalError(loc, "B must be f32 with ", outChannels,
                               " entries");
  return success();
}

LogicalResult inferQuantizedConv(Loc loc, QuantizedConvOp::Adaptor op,
                                 Types &types) {
  auto x = rankedOrNull(op.getX()), w = rankedOrNull(op.getW());
  if (!x || !w || x.getRank() != 4 || w.getRank() != 4)
    return emitOptionalError(loc, "QuantizedConv needs 4-D X and W");
  if (failed(checkOperands(loc, op, x, w, w.getDimSize(0))))
    return failure();
  if (op.getStrides().size() != 2 || op.getDilations().size() != 2 ||
      op.getPads().size() != 4)
    return emitOptionalError(loc, "QuantizedConv needs 2 strides, 2 "
                                  "dilations and 4 pads");
  bool last = op.getChannelsLast();
  int64_t c = x.getDimSize(last ? 3 : 1);
  if (c != kDyn && c != w.getDimSize(1))
    return emitOptionalError(loc, "X has ", c, " channels, W expects ",
                             w.getDimSize(1));
  SmallVector<int64_t> spatial;
  for (int d = 0; d < 2; ++d) {
    int64_t in = x.getDimSize(last ? 1 + d : 2 + d);
    int64_t window = (w.getDimSize(2 + d) - 1) * op.getDilations()[d] + 1;
    if (in == kDyn) {
      spatial.push_back(kDyn);
      continue;
    }
    int64_t padded = in + op.getPads()[d] + op.getPads()[d + 2];
    if (padded < window || op.getStrides()[d] <= 0)
      return emitOptionalError(loc, "QuantizedConv window larger than its "
                                    "padded input");
    spatial.push_back((padded - window) / op.getStrides()[d] + 1);
  }
  FailureOr<Type> elt =
      resultElement(loc, x.getContext(), op.getQuantizedType());
  if (failed(elt))
    return failure();
  int64_t n = x.getDimSize(0), f = w.getDimSize(0);
  SmallVector<int64_t> shape =
      last ? SmallVector<int64_t>{n, spatial[0], spatial[1], f}
           : SmallVector<int64_t>{n, f, spatial[0], spatial[1]};
  types.push_back(RankedTensorType::get(shape, *elt));
  return success();
}

LogicalResult inferQuantizedMatMul(Loc loc, QuantizedMatMulOp::Adaptor op,
                                   Types &types) {
  auto x = rankedOrNull(op.getX()), w = rankedOrNull(op.getW());
  if (!x || !w || x.getRank() < 1 || w.getRank() != 2)
    return emitOptionalError(loc, "QuantizedMatMul needs X of rank >= 1 "
                                  "and a 2-D W");
  if (failed(checkOperands(loc, op, x, w, w.getDimSize(1))))
    return failure();
  int64_t k = x.getShape().back();
  if (k != kDyn && k != w.getDimSize(0))
    return emitOptionalError(loc, "X has ", k, " columns, W has ",
                             w.getDimSize(0), " rows");
  FailureOr<Type> elt =
      resultElement(loc, x.getContext(), op.getQuantizedType());
  if (failed(elt))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  shape.back() = w.getDimSize(1);
  types.push_back(RankedTensorType::get(shape, *elt));
  return success();
}

} // namespace kiln::graph
