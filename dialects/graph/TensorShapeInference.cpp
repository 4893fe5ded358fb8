//===- TensorShapeInference.cpp - Inference for data-movement ops ---------===//

#include "dialects/graph/ShapeInference.h"

#include "mlir/IR/Diagnostics.h"

#include <cmath>
#include <limits>

using namespace mlir;

namespace kiln::graph {

static constexpr int64_t kDyn = ShapedType::kDynamic;

static LogicalResult pushRanked(Types &types, ArrayRef<int64_t> shape,
                                Type elt) {
  types.push_back(RankedTensorType::get(shape, elt));
  return success();
}

static LogicalResult pushUnranked(Types &types, Value like) {
  types.push_back(
      UnrankedTensorType::get(getElementTypeOrSelf(like.getType())));
  return success();
}

/// Static length of a 1-D shape-like operand, or kDyn.
static int64_t vectorLength(Value v) {
  auto t = rankedOrNull(v);
  return t && t.getRank() == 1 ? t.getDimSize(0) : kDyn;
}

std::pair<int64_t, int64_t> getShapeRange(int64_t rank,
                                          std::optional<int64_t> start,
                                          std::optional<int64_t> end) {
  auto clampDim = [&](int64_t d) {
    return std::clamp<int64_t>(d < 0 ? d + rank : d, 0, rank);
  };
  return {clampDim(start.value_or(0)), clampDim(end.value_or(rank))};
}

LogicalResult inferShape(Loc loc, ShapeOp::Adaptor op, Types &types) {
  auto t = rankedOrNull(op.getData());
  Type i64 = IntegerType::get(op.getData().getContext(), 64);
  if (!t)
    return pushRanked(types, {kDyn}, i64);
  auto [start, end] = getShapeRange(t.getRank(), op.getStart(), op.getEnd());
  return pushRanked(types, {std::max<int64_t>(0, end - start)}, i64);
}

LogicalResult inferReshape(Loc loc, ReshapeOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getData());
  Type elt = getElementTypeOrSelf(op.getData().getType());
  auto shape = getConstantInts(op.getShape());
  if (!shape) {
    int64_t n = vectorLength(op.getShape());
    if (n == kDyn)
      return pushUnranked(types, op.getData());
    return pushRanked(types, SmallVector<int64_t>(n, kDyn), elt);
  }
  SmallVector<int64_t> out(*shape);
  int64_t inferIdx = -1, known = 1;
  bool dynamic = false;
  for (auto [i, d] : llvm::enumerate(out)) {
    if (d == 0 && !op.getAllowzero()) {
      if (!in || (int64_t)i >= in.getRank())
        return in ? emitOptionalError(loc, "Reshape copies dim ", i,
                                      " which the input does not have")
                  : pushRanked(types, SmallVector<int64_t>(out.size(), kDyn),
                               elt);
      d = in.getDimSize(i);
    }
    if (d == -1) {
      if (inferIdx >= 0)
        return emitOptionalError(loc, "Reshape shape has more than one -1");
      inferIdx = i;
    } else if (d == kDyn) {
      dynamic = true;
    } else if (d < 0) {
      return emitOptionalError(loc, "Reshape shape has invalid dim ", d);
    } else if (__builtin_mul_overflow(known, d, &known)) {
      return emitOptionalError(loc, "Reshape shape [", *shape,
                               "] has too many elements");
    }
  }
  if (inferIdx >= 0) {
    out[inferIdx] = kDyn;
    if (in && in.hasStaticShape() && !dynamic) {
      if (known == 0 || in.getNumElements() % known != 0)
        return emitOptionalError(loc, "Reshape cannot infer -1: ",
                                 in.getNumElements(), " elements into ", known);
      out[inferIdx] = in.getNumElements() / known;
    }
  } else if (in && in.hasStaticShape() && !dynamic &&
             in.getNumElements() != known) {
    return emitOptionalError(loc, "Reshape of ", in.getNumElements(),
                             " elements into shape [", out, "] of ", known);
  }
  return pushRanked(types, out, elt);
}

LogicalResult inferFlatten(Loc loc, FlattenOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getInput());
  Type elt = getElementTypeOrSelf(op.getInput().getType());
  if (!in)
    return pushRanked(types, {kDyn, kDyn}, elt);
  int64_t r = in.getRank(), axis = op.getAxis();
  if (axis < -r || axis > r)
    return emitOptionalError(loc, "Flatten axis ", axis, " out of range");
  if (axis < 0)
    axis += r;
  auto prod = [](ArrayRef<int64_t> dims) {
    int64_t p = 1;
    for (int64_t d : dims)
      if (d == kDyn)
        return kDyn;
      else
        p *= d;
    return p;
  };
  return pushRanked(types,
                    {prod(in.getShape().take_front(axis)),
                     prod(in.getShape().drop_front(axis))},
                    elt);
}

LogicalResult inferTranspose(Loc loc, TransposeOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getData());
  if (!in)
    return pushUnranked(types, op.getData());
  int64_t r = in.getRank();
  SmallVector<int64_t> perm;
  if (auto p = op.getPerm())
    perm.assign(p->begin(), p->end());
  else
    for (int64_t i = r - 1; i >= 0; --i)
      perm.push_back(i);
  if ((int64_t)perm.size() != r)
    return emitOptionalError(loc, "Transpose perm has ", perm.size(),
                             " entries for rank ", r);
  SmallVector<bool> seen(r, false);
  SmallVector<int64_t> out;
  for (int64_t p : perm) {
    if (p < 0 || p >= r || seen[p])
      return emitOptionalError(loc, "Transpose perm is not a permutation");
    seen[p] = true;
    out.push_back(in.getDimSize(p));
  }
  return pushRanked(types, out, in.getElementType());
}

LogicalResult inferConcat(Loc loc, ConcatOp::Adaptor op, Types &types) {
  if (op.getInputs().empty())
    return emitOptionalError(loc, "Concat needs at least one input");
  Value first = op.getInputs().front();
  Type elt = getElementTypeOrSelf(first.getType());
  RankedTensorType ref;
  for (Value v : op.getInputs()) {
    if (getElementTypeOrSelf(v.getType()) != elt)
      return emitOptionalError(loc, "Concat inputs have different types");
    if (!ref)
      ref = rankedOrNull(v);
  }
  if (!ref)
    return pushUnranked(types, first);
  auto axis = normalizeAxis(loc, op.getAxis(), ref.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(ref.getShape());
  out[*axis] = 0;
  for (Value v : op.getInputs()) {
    auto t = rankedOrNull(v);
    if (!t) {
      out[*axis] = kDyn;
      continue;
    }
    if (t.getRank() != ref.getRank())
      return emitOptionalError(loc, "Concat inputs have different ranks");
    for (int64_t i = 0; i < t.getRank(); ++i) {
      int64_t d = t.getDimSize(i);
      if (i == *axis) {
        out[i] = (out[i] == kDyn || d == kDyn) ? kDyn : out[i] + d;
      } else if (d != kDyn) {
        if (out[i] != kDyn && out[i] != d)
          return emitOptionalError(loc, "Concat inputs differ in dim ", i, ": ",
                                   out[i], " vs ", d);
        out[i] = d;
      }
    }
  }
  return pushRanked(types, out, elt);
}

LogicalResult inferSplit(Loc loc, SplitOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getInput());
  Type elt = getElementTypeOrSelf(op.getInput().getType());
  std::optional<SmallVector<int64_t>> sizes;
  int64_t count;
  if (!isNoValue(op.getSplit()) && op.getNumOutputs())
    return emitOptionalError(loc, "Split takes 'split' or 'num_outputs', not "
                                  "both");
  if (!isNoValue(op.getSplit())) {
    sizes = getConstantInts(op.getSplit());
    count = vectorLength(op.getSplit());
    if (count == kDyn)
      return emitOptionalError(loc, "Split needs a 1-D 'split' of static "
                                    "length");
  } else if (auto n = op.getNumOutputs()) {
    count = *n;
  } else {
    return emitOptionalError(loc, "Split needs 'split' or 'num_outputs'");
  }
  if (count <= 0)
    return emitOptionalError(loc, "Split must have at least one output");
  if (!in) {
    for (int64_t i = 0; i < count; ++i)
      (void)pushUnranked(types, op.getInput());
    return success();
  }
  auto axis = normalizeAxis(loc, op.getAxis(), in.getRank());
  if (failed(axis))
    return failure();
  int64_t dim = in.getDimSize(*axis);
  if (!sizes && isNoValue(op.getSplit()) && dim != kDyn) {
    // ONNX: chunks of ceil(dim / count), only the last one smaller.
    int64_t chunk = (dim + count - 1) / count;
    int64_t last = dim - chunk * (count - 1);
    if (last < 0)
      return emitOptionalError(loc, "Split of a dim of ", dim, " into ", count,
                               " outputs leaves no last chunk");
    sizes.emplace(count - 1, chunk);
    sizes->push_back(last);
  }
  if (sizes) {
    int64_t total = 0;
    for (int64_t s : *sizes) {
      if (s < 0)
        return emitOptionalError(loc, "Split sizes must be non-negative");
      total += s;
    }
    if (dim != kDyn && total != dim)
      return emitOptionalError(loc, "Split sizes sum to ", total,
                               " but the axis has ", dim);
  }
  for (int64_t i = 0; i < count; ++i) {
    SmallVector<int64_t> out(in.getShape());
    out[*axis] = sizes ? (*sizes)[i] : kDyn;
    types.push_back(RankedTensorType::get(out, elt));
  }
  return success();
}

/// Slice bounds along every axis. Fails (with a diagnostic) on malformed
/// constant parameters; nullopt when a parameter is not constant, or when a
/// dynamic dim is sliced and `allowDynamic` is false (else its size is kDyn).
static FailureOr<std::optional<SliceBounds>>
sliceBounds(Loc loc, SliceOp::Adaptor op, bool allowDynamic) {
  auto in = rankedOrNull(op.getData());
  auto starts = getConstantInts(op.getStarts());
  auto ends = getConstantInts(op.getEnds());
  std::optional<SmallVector<int64_t>> axes, steps;
  if (isNoValue(op.getAxes()) && starts)
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  else if (!isNoValue(op.getAxes()))
    axes = getConstantInts(op.getAxes());
  if (isNoValue(op.getSteps()) && starts)
    steps = SmallVector<int64_t>(starts->size(), 1);
  else if (!isNoValue(op.getSteps()))
    steps = getConstantInts(op.getSteps());
  if (!in || !starts || !ends || !axes || !steps)
    return std::optional<SliceBounds>();
  if (axes->size() != starts->size() || ends->size() != starts->size() ||
      steps->size() != starts->size())
    return emitOptionalError(loc, "Slice starts/ends/axes/steps lengths "
                                  "differ");
  int64_t r = in.getRank();
  SliceBounds b;
  b.starts.assign(r, 0);
  b.steps.assign(r, 1);
  b.sizes.assign(in.getShape().begin(), in.getShape().end());
  SmallVector<bool> seen(r, false);
  bool partialDynamic = false;
  for (size_t i = 0; i < axes->size(); ++i) {
    auto axis = normalizeAxis(loc, (*axes)[i], r);
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return emitOptionalError(loc, "Slice axis ", *axis, " repeated");
    seen[*axis] = true;
    int64_t dim = in.getDimSize(*axis), step = (*steps)[i];
    int64_t s = (*starts)[i], e = (*ends)[i];
    if (step == 0)
      return emitOptionalError(loc, "Slice step must not be 0");
    if (dim == kDyn) {
      // Only the full-range slice of a dynamic dim keeps it known.
      bool full =
          step == 1 && s == 0 && e >= std::numeric_limits<int32_t>::max();
      partialDynamic |= !full;
      continue;
    }
    if (s < 0)
      s += dim;
    if (e < 0)
      e += dim;
    if (step > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
    }
    // ceil((e - s) / step), as a count of visited indices.
    int64_t n =
        step > 0 ? (e - s + step - 1) / step : (s - e - step - 1) / -step;
    b.starts[*axis] = s;
    b.steps[*axis] = step;
    b.sizes[*axis] = std::max<int64_t>(0, n);
  }
  if (partialDynamic && !allowDynamic)
    return std::optional<SliceBounds>();
  return std::optional<SliceBounds>(std::move(b));
}

FailureOr<SliceBounds> computeSliceBounds(Loc loc, SliceOp::Adaptor op) {
  auto b = sliceBounds(loc, op, /*allowDynamic=*/false);
  if (failed(b) || !*b)
    return failure();
  return std::move(**b);
}

LogicalResult inferSlice(Loc loc, SliceOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getData());
  if (!in)
    return pushUnranked(types, op.getData());
  auto bounds = sliceBounds(loc, op, /*allowDynamic=*/true);
  if (failed(bounds))
    return failure();
  if (*bounds)
    return pushRanked(types, (*bounds)->sizes, in.getElementType());
  // Non-constant parameters: the sliced axes become dynamic when known,
  // all of them otherwise.
  SmallVector<int64_t> out(in.getRank(), kDyn);
  std::optional<SmallVector<int64_t>> axes;
  if (isNoValue(op.getAxes()) && vectorLength(op.getStarts()) != kDyn)
    axes = llvm::to_vector(llvm::seq<int64_t>(0, vectorLength(op.getStarts())));
  else if (!isNoValue(op.getAxes()))
    axes = getConstantInts(op.getAxes());
  if (axes) {
    out.assign(in.getShape().begin(), in.getShape().end());
    for (int64_t a : *axes) {
      auto n = normalizeAxis(loc, a, in.getRank());
      if (failed(n))
        return failure();
      out[*n] = kDyn;
    }
  }
  return pushRanked(types, out, in.getElementType());
}

LogicalResult inferGather(Loc loc, GatherOp::Adaptor op, Types &types) {
  auto data = rankedOrNull(op.getData()), idx = rankedOrNull(op.getIndices());
  if (!data || !idx)
    return pushUnranked(types, op.getData());
  auto axis = normalizeAxis(loc, op.getAxis(), data.getRank());
  if (failed(axis))
    return failure();
  SmallVector<int64_t> out(data.getShape().take_front(*axis));
  out.append(idx.getShape().begin(), idx.getShape().end());
  out.append(data.getShape().begin() + *axis + 1, data.getShape().end());
  return pushRanked(types, out, data.getElementType());
}

LogicalResult inferSqueeze(Loc loc, SqueezeOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getData());
  if (!in)
    return pushUnranked(types, op.getData());
  int64_t r = in.getRank();
  SmallVector<bool> drop(r, false);
  if (isNoValue(op.getAxes())) {
    for (int64_t i = 0; i < r; ++i) {
      if (in.getDimSize(i) == kDyn)
        return pushUnranked(types, op.getData());
      drop[i] = in.getDimSize(i) == 1;
    }
  } else if (auto axes = getConstantInts(op.getAxes())) {
    for (int64_t a : *axes) {
      auto n = normalizeAxis(loc, a, r);
      if (failed(n))
        return failure();
      if (in.getDimSize(*n) != 1 && in.getDimSize(*n) != kDyn)
        return emitOptionalError(loc, "Squeeze of dim ", *n, " with extent ",
                                 in.getDimSize(*n));
      drop[*n] = true;
    }
  } else {
    return pushUnranked(types, op.getData());
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < r; ++i)
    if (!drop[i])
      out.push_back(in.getDimSize(i));
  return pushRanked(types, out, in.getElementType());
}

LogicalResult inferUnsqueeze(Loc loc, UnsqueezeOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getData());
  auto axes = getConstantInts(op.getAxes());
  if (in && !axes && vectorLength(op.getAxes()) != kDyn)
    return pushRanked(
        types,
        SmallVector<int64_t>(in.getRank() + vectorLength(op.getAxes()), kDyn),
        in.getElementType());
  if (!in || !axes)
    return pushUnranked(types, op.getData());
  int64_t r = in.getRank() + axes->size();
  SmallVector<bool> inserted(r, false);
  for (int64_t a : *axes) {
    auto n = normalizeAxis(loc, a, r);
    if (failed(n))
      return failure();
    if (inserted[*n])
      return emitOptionalError(loc, "Unsqueeze axis repeated");
    inserted[*n] = true;
  }
  SmallVector<int64_t> out;
  int64_t src = 0;
  for (int64_t i = 0; i < r; ++i)
    out.push_back(inserted[i] ? 1 : in.getDimSize(src++));
  return pushRanked(types, out, in.getElementType());
}

LogicalResult inferExpand(Loc loc, ExpandOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getInput());
  Type elt = getElementTypeOrSelf(op.getInput().getType());
  auto shape = getConstantInts(op.getShape());
  if (!in)
    return pushUnranked(types, op.getInput());
  if (!shape) {
    int64_t n = vectorLength(op.getShape());
    if (n == kDyn)
      return pushUnranked(types, op.getInput());
    return pushRanked(
        types, SmallVector<int64_t>(std::max(n, in.getRank()), kDyn), elt);
  }
  auto out = broadcastShapes(loc, in.getShape(), *shape);
  if (failed(out))
    return failure();
  return pushRanked(types, *out, elt);
}

LogicalResult inferPad(Loc loc, PadOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getData());
  if (!in)
    return pushUnranked(types, op.getData());
  StringRef mode = op.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOptionalError(loc, "unknown Pad mode '", mode, "'");
  int64_t r = in.getRank();
  auto pads = getConstantInts(op.getPads());
  SmallVector<int64_t> axes;
  if (isNoValue(op.getAxes())) {
    for (int64_t i = 0; i < r; ++i)
      axes.push_back(i);
  } else if (auto a = getConstantInts(op.getAxes())) {
    for (int64_t x : *a) {
      auto n = normalizeAxis(loc, x, r);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    pads.reset();
  }
  if (!pads)
    return pushRanked(types, SmallVector<int64_t>(r, kDyn),
                      in.getElementType());
  int64_t n = axes.size();
  if ((int64_t)pads->size() != 2 * n)
    return emitOptionalError(loc, "Pad needs ", 2 * n, " pads, got ",
                             pads->size());
  SmallVector<int64_t> out(in.getShape());
  for (int64_t i = 0; i < n; ++i) {
    int64_t &d = out[axes[i]];
    if (d == kDyn)
      continue;
    d += (*pads)[i] + (*pads)[i + n];
    if (d < 0)
      return emitOptionalError(loc, "Pad makes dim ", axes[i], " negative");
  }
  return pushRanked(types, out, in.getElementType());
}

/// A computed Resize dim (already floored) as an int64, or an error where it
/// is not one (huge or NaN scales): converting such a float is undefined.
static FailureOr<int64_t> resizeDim(Loc loc, float dim) {
  if (!(dim >= 0 && dim < 0x1p63f))
    return emitOptionalError(loc, "Resize output dim ", dim, " out of range");
  return static_cast<int64_t>(dim);
}

LogicalResult inferResize(Loc loc, ResizeOp::Adaptor op, Types &types) {
  auto in = rankedOrNull(op.getX());
  if (!in)
    return pushUnranked(types, op.getX());
  int64_t r = in.getRank();
  SmallVector<int64_t> axes;
  if (auto a = op.getAxes()) {
    for (int64_t x : *a) {
      auto n = normalizeAxis(loc, x, r);
      if (failed(n))
        return failure();
      axes.push_back(*n);
    }
  } else {
    for (int64_t i = 0; i < r; ++i)
      axes.push_back(i);
  }
  SmallVector<int64_t> out(in.getShape());
  bool hasSizes = !isNoValue(op.getSizes()) && vectorLength(op.getSizes()) != 0;
  bool hasScales =
      !isNoValue(op.getScales()) && vectorLength(op.getScales()) != 0;
  // An empty scales or sizes tensor means "absent" (opset 11-12 style).
  if (hasSizes && hasScales)
    return emitOptionalError(loc, "Resize takes 'scales' or 'sizes', not both");
  std::optional<SmallVector<int64_t>> sizes;
  std::optional<SmallVector<double>> scales;
  if (hasSizes)
    sizes = getConstantInts(op.getSizes());
  if (hasScales)
    scales = getConstantFloats(op.getScales());
  StringRef policy = op.getKeepAspectRatioPolicy();
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return emitOptionalError(loc, "unknown keep_aspect_ratio_policy '", policy,
                             "'");
  if (sizes && policy != "stretch") {
    if (sizes->size() != axes.size())
      return emitOptionalError(loc, "Resize sizes has ", sizes->size(),
                               " values for ", axes.size(), " axes");
    // One scale for all axes, then out = round(scale * in) (ONNX round_int).
    float scale =
        policy == "not_larger" ? std::numeric_limits<float>::max() : 0.0f;
    bool known = true;
    for (size_t i = 0; i < axes.size(); ++i) {
      int64_t d = in.getDimSize(axes[i]);
      known &= d != kDyn && d != 0;
      if (!known)
        break;
      float s = static_cast<float>((*sizes)[i]) / static_cast<float>(d);
      scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
    }
    for (int64_t a : axes) {
      if (!known) {
        out[a] = kDyn;
        continue;
      }
      auto d =
          resizeDim(loc, std::floor(scale * static_cast<float>(out[a]) + 0.5f));
      if (failed(d))
        return failure();
      out[a] = *d;
    }
  } else if (sizes) {
    if (sizes->size() != axes.size())
      return emitOptionalError(loc, "Resize sizes has ", sizes->size(),
                               " values for ", axes.size(), " axes");
    for (size_t i = 0; i < axes.size(); ++i)
      out[axes[i]] = (*sizes)[i];
  } else if (scales) {
    if (scales->size() != axes.size())
      return emitOptionalError(loc, "Resize scales has ", scales->size(),
                               " values for ", axes.size(), " axes");
    for (size_t i = 0; i < axes.size(); ++i) {
      if (!((*scales)[i] > 0)) // NaN too
        return emitOptionalError(loc, "Resize scales must be positive");
      // floor(in * scale) in single precision, as ONNX computes it.
      int64_t &d = out[axes[i]];
      if (d == kDyn)
        continue;
      auto scaled =
          resizeDim(loc, std::floor(static_cast<float>(d) *
                                    static_cast<float>((*scales)[i])));
      if (failed(scaled))
        return failure();
      d = *scaled;
    }
  } else if (hasSizes || hasScales) {
    for (int64_t a : axes)
      out[a] = kDyn;
  } else {
    return emitOptionalError(loc, "Resize needs 'scales' or 'sizes'");
  }
  return pushRanked(types, out, in.getElementType());
}

} // namespace kiln::graph
