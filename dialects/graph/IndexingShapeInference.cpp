//===- IndexingShapeInference.cpp - Inference for IndexingOps.td ----------===//
//
// Result types of the gather/scatter, generator and block-rearrangement ops.
// Dims that depend on values of non-constant inputs are dynamic.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ElementTypes.h"
#include "dialects/graph/ShapeInference.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>

using namespace mlir;

namespace kiln::graph {

static constexpr int64_t kDyn = ShapedType::kDynamic;

static LogicalResult push(Types &types, std::optional<ArrayRef<int64_t>> shape,
                          Type elt) {
  if (shape)
    types.push_back(RankedTensorType::get(*shape, elt));
  else
    types.push_back(UnrankedTensorType::get(elt));
  return success();
}

static Type eltOf(Value v) { return getElementTypeOrSelf(v.getType()); }

LogicalResult inferGatherElements(Loc loc, GatherElementsOp::Adaptor op,
                                  Types &types) {
  auto data = rankedOrNull(op.getData());
  auto indices = rankedOrNull(op.getIndices());
  if (data && indices) {
    if (data.getRank() != indices.getRank())
      return emitOptionalError(loc, "indices have rank ", indices.getRank(),
                               " but data has rank ", data.getRank());
    if (failed(normalizeAxis(loc, op.getAxis(), data.getRank())))
      return failure();
  }
  if (!indices)
    return push(types, std::nullopt, eltOf(op.getData()));
  return push(types, indices.getShape(), eltOf(op.getData()));
}

LogicalResult inferGatherND(Loc loc, GatherNDOp::Adaptor op, Types &types) {
  auto data = rankedOrNull(op.getData());
  auto indices = rankedOrNull(op.getIndices());
  Type elt = eltOf(op.getData());
  if (!data || !indices)
    return push(types, std::nullopt, elt);
  int64_t r = data.getRank(), q = indices.getRank();
  int64_t b = op.getBatchDims();
  if (q < 1 || b < 0 || b >= std::min(r, q))
    return emitOptionalError(loc, "batch_dims ", b,
                             " must be below the ranks of data (", r,
                             ") and indices (", q, ")");
  int64_t k = indices.getDimSize(q - 1);
  if (ShapedType::isDynamic(k))
    return emitOptionalError(loc, "the last dim of indices must be static");
  if (k < 1 || b + k > r)
    return emitOptionalError(loc, "indices address ", k,
                             " dims, but data has rank ", r);
  SmallVector<int64_t> shape(data.getShape().take_front(b));
  llvm::append_range(shape, indices.getShape().slice(b, q - 1 - b));
  llvm::append_range(shape, data.getShape().drop_front(b + k));
  return push(types, shape, elt);
}

LogicalResult inferOneHot(Loc loc, OneHotOp::Adaptor op, Types &types) {
  auto indices = rankedOrNull(op.getIndices());
  Type elt = eltOf(op.getValues());
  if (auto values = rankedOrNull(op.getValues()))
    if (values.getRank() != 1 ||
        (!values.isDynamicDim(0) && values.getDimSize(0) != 2))
      return emitOptionalError(loc, "values must hold [off, on]");
  if (!indices)
    return push(types, std::nullopt, elt);
  int64_t rank = indices.getRank() + 1;
  auto axis = normalizeAxis(loc, op.getAxis(), rank);
  if (failed(axis))
    return failure();
  int64_t depth = kDyn;
  if (auto d = getConstantNumbers(op.getDepth()); d && d->size() == 1) {
    depth = int64_t((*d)[0]);
    if (depth < 1)
      return emitOptionalError(loc, "depth must be positive, got ", depth);
  }
  SmallVector<int64_t> shape(indices.getShape());
  shape.insert(shape.begin() + *axis, depth);
  return push(types, shape, elt);
}

LogicalResult inferEyeLike(Loc loc, EyeLikeOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getInput());
  Type elt = eltOf(op.getInput());
  if (std::optional<int64_t> code = op.getDtype()) {
    elt = getElementTypeForOnnxCode(op.getInput().getContext(), *code);
    if (!elt)
      return emitOptionalError(loc, "unsupported dtype ", *code);
  }
  if (in && in.getRank() != 2)
    return emitOptionalError(loc, "input must be 2-D, got rank ", in.getRank());
  if (!in)
    return push(types, std::nullopt, elt);
  return push(types, in.getShape(), elt);
}

int64_t getRangeLength(double start, double limit, double delta) {
  if (delta == 0)
    return 0;
  return std::max<int64_t>(int64_t(std::ceil((limit - start) / delta)), 0);
}

LogicalResult inferRange(Loc loc, RangeOp::Adaptor op, Types &types) {
  for (Value v : {op.getStart(), op.getLimit(), op.getDelta()}) {
    auto t = rankedOrNull(v);
    if (t && t.getNumElements() != 1)
      return emitOptionalError(loc, "start, limit and delta must be scalars");
    if (eltOf(v) != eltOf(op.getStart()))
      return emitOptionalError(loc,
                               "start, limit and delta must share one type");
  }
  int64_t n = kDyn;
  auto s = getConstantNumbers(op.getStart());
  auto l = getConstantNumbers(op.getLimit());
  auto d = getConstantNumbers(op.getDelta());
  if (s && l && d && s->size() == 1 && l->size() == 1 && d->size() == 1) {
    if ((*d)[0] == 0)
      return emitOptionalError(loc, "delta must not be 0");
    n = getRangeLength((*s)[0], (*l)[0], (*d)[0]);
  }
  return push(types, ArrayRef<int64_t>{n}, eltOf(op.getStart()));
}

LogicalResult inferConstantOfShape(Loc loc, ConstantOfShapeOp::Adaptor op,
                                   Types &types) {
  Type elt = Float32Type::get(op.getInput().getContext());
  if (ElementsAttr value = op.getValueAttr()) {
    if (value.getNumElements() != 1)
      return emitOptionalError(loc, "value must hold one element");
    elt = value.getElementType();
  }
  if (auto dims = getConstantInts(op.getInput())) {
    for (int64_t d : *dims)
      if (d < 0)
        return emitOptionalError(loc, "negative dim ", d, " in the shape");
    return push(types, ArrayRef<int64_t>(*dims), elt);
  }
  auto in = rankedOrNull(op.getInput());
  if (!in || in.getRank() != 1 || in.isDynamicDim(0))
    return push(types, std::nullopt, elt);
  SmallVector<int64_t> shape(in.getDimSize(0), kDyn);
  return push(types, shape, elt);
}

LogicalResult inferBlockRearrange(Loc loc, Value x, int64_t bs, bool toSpace,
                                  Types &types) {
  auto t = rankedOrNull(x);
  if (bs < 1)
    return emitOptionalError(loc, "blocksize must be positive, got ", bs);
  if (!t)
    return push(types, std::nullopt, eltOf(x));
  if (t.getRank() != 4)
    return emitOptionalError(loc, "input must be 4-D (NCHW), got rank ",
                             t.getRank());
  auto scale = [&](int64_t d, bool up) -> FailureOr<int64_t> {
    if (ShapedType::isDynamic(d))
      return kDyn;
    if (up)
      return d * bs;
    if (d % bs)
      return emitOptionalError(loc, "dim ", d, " is not a multiple of ", bs);
    return d / bs;
  };
  SmallVector<int64_t> shape{t.getDimSize(0)};
  int64_t c = t.getDimSize(1);
  if (toSpace) {
    if (!ShapedType::isDynamic(c) && c % (bs * bs))
      return emitOptionalError(loc, "channels ", c,
                               " are not a multiple of blocksize^2");
    shape.push_back(ShapedType::isDynamic(c) ? kDyn : c / (bs * bs));
  } else {
    shape.push_back(ShapedType::isDynamic(c) ? kDyn : c * bs * bs);
  }
  for (int64_t i = 2; i < 4; ++i) {
    auto d = scale(t.getDimSize(i), toSpace);
    if (failed(d))
      return failure();
    shape.push_back(*d);
  }
  return push(types, shape, eltOf(x));
}

LogicalResult inferTile(Loc loc, TileOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getInput());
  if (!in)
    return push(types, std::nullopt, eltOf(op.getInput()));
  auto repeats = getConstantInts(op.getRepeats());
  auto rt = rankedOrNull(op.getRepeats());
  if (rt && rt.getRank() == 1 && !rt.isDynamicDim(0) &&
      rt.getDimSize(0) != in.getRank())
    return emitOptionalError(loc, "repeats has ", rt.getDimSize(0),
                             " values for rank ", in.getRank());
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < in.getRank(); ++i) {
    int64_t d = in.getDimSize(i);
    if (!repeats || ShapedType::isDynamic(d)) {
      shape.push_back(kDyn);
      continue;
    }
    if ((*repeats)[i] < 0)
      return emitOptionalError(loc, "negative repeat ", (*repeats)[i]);
    shape.push_back(d * (*repeats)[i]);
  }
  return push(types, shape, eltOf(op.getInput()));
}

LogicalResult inferRecurrent(Loc loc, Value x, Value r, StringRef direction,
                             std::optional<uint64_t> hiddenSize, int64_t layout,
                             int numStates, Types &types) {
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return emitOptionalError(loc, "unknown direction '", direction, "'");
  if (layout != 0 && layout != 1)
    return emitOptionalError(loc, "layout must be 0 or 1");
  auto xt = rankedOrNull(x);
  auto rt = rankedOrNull(r);
  Type elt = eltOf(x);
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  int64_t hidden = hiddenSize ? int64_t(*hiddenSize) : kDyn;
  if (rt && rt.getRank() == 3 && !rt.isDynamicDim(2)) {
    if (hiddenSize && rt.getDimSize(2) != hidden)
      return emitOptionalError(loc, "hidden_size ", hidden,
                               " does not match R's last dim ",
                               rt.getDimSize(2));
    hidden = rt.getDimSize(2);
  }
  if (xt && xt.getRank() != 3)
    return emitOptionalError(loc, "X must be 3-D, got rank ", xt.getRank());
  int64_t seq = kDyn, batch = kDyn;
  if (xt) {
    seq = xt.getDimSize(layout == 0 ? 0 : 1);
    batch = xt.getDimSize(layout == 0 ? 1 : 0);
  }
  SmallVector<int64_t> y = layout == 0
                               ? SmallVector<int64_t>{seq, dirs, batch, hidden}
                               : SmallVector<int64_t>{batch, seq, dirs, hidden};
  SmallVector<int64_t> h = layout == 0
                               ? SmallVector<int64_t>{dirs, batch, hidden}
                               : SmallVector<int64_t>{batch, dirs, hidden};
  push(types, ArrayRef<int64_t>(y), elt);
  for (int i = 0; i < numStates; ++i)
    push(types, ArrayRef<int64_t>(h), elt);
  return success();
}

LogicalResult inferGridSample(Loc loc, GridSampleOp::Adaptor op, Types &types) {
  auto x = rankedOrNull(op.getX()), grid = rankedOrNull(op.getGrid());
  if (!x || !grid)
    return push(types, std::nullopt, eltOf(op.getX()));
  if (x.getRank() != 4 || grid.getRank() != 4 ||
      (!grid.isDynamicDim(3) && grid.getDimSize(3) != 2))
    return emitOptionalError(loc, "GridSample needs X [N, C, H, W] and grid "
                                  "[N, H_out, W_out, 2]");
  StringRef mode = op.getMode(), pad = op.getPaddingMode();
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return emitOptionalError(loc, "unknown mode '", mode, "'");
  if (pad != "zeros" && pad != "border" && pad != "reflection")
    return emitOptionalError(loc, "unknown padding_mode '", pad, "'");
  SmallVector<int64_t> shape{x.getDimSize(0), x.getDimSize(1),
                             grid.getDimSize(1), grid.getDimSize(2)};
  return push(types, ArrayRef<int64_t>(shape), eltOf(op.getX()));
}

LogicalResult inferTopK(Loc loc, TopKOp::Adaptor op, Types &types) {
  auto x = rankedOrNull(op.getX());
  Type elt = eltOf(op.getX());
  Type i64 = IntegerType::get(op.getX().getContext(), 64);
  if (!x) {
    push(types, std::nullopt, elt);
    return push(types, std::nullopt, i64);
  }
  auto axis = normalizeAxis(loc, op.getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> shape(x.getShape());
  shape[*axis] = kDyn;
  if (auto k = getConstantInts(op.getK()); k && k->size() == 1) {
    int64_t n = x.getDimSize(*axis);
    if ((*k)[0] < 0 || (!ShapedType::isDynamic(n) && (*k)[0] > n))
      return emitOptionalError(loc, "K = ", (*k)[0], " is out of range for ", n,
                               " elements");
    shape[*axis] = (*k)[0];
  }
  push(types, ArrayRef<int64_t>(shape), elt);
  return push(types, ArrayRef<int64_t>(shape), i64);
}

} // namespace kiln::graph
