//===- ShapeInference.cpp - Inference for elementwise and NN ops ----------===//
//
// Inference for elementwise, linear-algebra, convolution, pooling and
// normalization ops. Data-movement ops are in TensorShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ShapeInference.h"
#include "dialects/graph/Activation.h"
#include "dialects/graph/ElementTypes.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln::graph {

static constexpr int64_t kDyn = ShapedType::kDynamic;

bool areCompatibleTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    if (l == r)
      continue;
    auto ls = dyn_cast<ShapedType>(l), rs = dyn_cast<ShapedType>(r);
    if (!ls || !rs || ls.getElementType() != rs.getElementType())
      return false;
    if (failed(verifyCompatibleShape(ls, rs)))
      return false;
  }
  return true;
}

std::optional<SmallVector<int64_t>> getConstantInts(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (!attr.getElementType().isInteger())
    return std::nullopt;
  SmallVector<int64_t> out;
  auto values = attr.tryGetValues<APInt>();
  if (!values)
    return std::nullopt;
  for (const APInt &i : *values)
    out.push_back(i.getSExtValue());
  return out;
}

std::optional<SmallVector<double>> getConstantFloats(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  if (!isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  auto values = attr.tryGetValues<APFloat>();
  if (!values)
    return std::nullopt;
  SmallVector<double> out;
  for (const APFloat &f : *values)
    out.push_back(f.convertToDouble());
  return out;
}

std::optional<SmallVector<double>> getConstantNumbers(Value v) {
  if (auto f = getConstantFloats(v))
    return f;
  auto i = getConstantInts(v);
  if (!i)
    return std::nullopt;
  bool isUnsigned = getElementTypeOrSelf(v.getType()).isUnsignedInteger();
  SmallVector<double> out;
  for (int64_t x : *i)
    out.push_back(isUnsigned ? double(uint64_t(x)) : double(x));
  return out;
}

FailureOr<int64_t> normalizeAxis(Loc loc, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return emitOptionalError(loc, "axis ", axis, " is out of range for rank ",
                             rank);
  return axis < 0 ? axis + rank : axis;
}

LogicalResult inferSameAs(Value v, Types &types) {
  types.push_back(v.getType());
  return success();
}

LogicalResult inferSameShape(Value v, Type elt, Types &types) {
  types.push_back(cast<TensorType>(v.getType()).clone(elt));
  return success();
}

FailureOr<SmallVector<int64_t>> broadcastShapes(Loc loc, ArrayRef<int64_t> a,
                                                ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db)
      out[i] = da;
    else if (da == 1)
      out[i] = db;
    else if (db == 1)
      out[i] = da;
    else if (da == kDyn)
      out[i] = db;
    else if (db == kDyn)
      out[i] = da;
    else
      return emitOptionalError(loc, "shapes [", a, "] and [", b,
                               "] are not broadcast-compatible");
  }
  return out;
}

LogicalResult inferBroadcast(Loc loc, ArrayRef<Value> operands, Type resultElt,
                             Types &types, int firstSameElt) {
  if (firstSameElt >= 0) {
    Type elt = getElementTypeOrSelf(operands[firstSameElt].getType());
    for (Value v : operands.drop_front(firstSameElt))
      if (getElementTypeOrSelf(v.getType()) != elt)
        return emitOptionalError(loc, "operand element types differ: ", elt,
                                 " vs ", getElementTypeOrSelf(v.getType()));
    if (!resultElt)
      resultElt = elt;
  }
  SmallVector<int64_t> shape;
  for (Value v : operands) {
    auto t = rankedOrNull(v);
    if (!t) {
      types.push_back(UnrankedTensorType::get(resultElt));
      return success();
    }
    auto b = broadcastShapes(loc, shape, t.getShape());
    if (failed(b))
      return failure();
    shape = *b;
  }
  types.push_back(RankedTensorType::get(shape, resultElt));
  return success();
}

LogicalResult inferCast(Loc loc, CastOp::Adaptor op, Types &types) {
  Type elt = getElementTypeForOnnxCode(op.getInput().getContext(), op.getTo());
  if (!elt)
    return emitOptionalError(loc, "unsupported Cast target type ",
                             getOnnxTypeName(op.getTo()));
  auto t = cast<TensorType>(op.getInput().getType());
  types.push_back(t.clone(elt));
  return success();
}

LogicalResult inferMatMul(Loc loc, MatMulOp::Adaptor op, Types &types) {
  auto a = rankedOrNull(op.getA()), b = rankedOrNull(op.getB());
  Type elt = getElementTypeOrSelf(op.getA().getType());
  if (elt != getElementTypeOrSelf(op.getB().getType()))
    return emitOptionalError(loc, "MatMul operand element types differ");
  if (!a || !b) {
    types.push_back(UnrankedTensorType::get(elt));
    return success();
  }
  if (a.getRank() == 0 || b.getRank() == 0)
    return emitOptionalError(loc, "MatMul operands must have rank >= 1");
  SmallVector<int64_t> as(a.getShape()), bs(b.getShape());
  bool vecA = as.size() == 1, vecB = bs.size() == 1;
  if (vecA)
    as.insert(as.begin(), 1);
  if (vecB)
    bs.push_back(1);
  int64_t ka = as.back(), kb = bs[bs.size() - 2];
  if (ka != kDyn && kb != kDyn && ka != kb)
    return emitOptionalError(loc, "MatMul contraction dims differ: ", ka,
                             " vs ", kb);
  auto batch = broadcastShapes(loc, ArrayRef(as).drop_back(2),
                               ArrayRef(bs).drop_back(2));
  if (failed(batch))
    return failure();
  SmallVector<int64_t> out = *batch;
  if (!vecA)
    out.push_back(as[as.size() - 2]);
  if (!vecB)
    out.push_back(bs.back());
  types.push_back(RankedTensorType::get(out, elt));
  return success();
}

LogicalResult inferGemm(Loc loc, GemmOp::Adaptor op, Types &types) {
  auto a = rankedOrNull(op.getA()), b = rankedOrNull(op.getB());
  if (!a || !b || a.getRank() != 2 || b.getRank() != 2)
    return emitOptionalError(loc, "Gemm operands must be rank-2 tensors");
  int64_t m = a.getDimSize(op.getTransA() ? 1 : 0);
  int64_t ka = a.getDimSize(op.getTransA() ? 0 : 1);
  int64_t kb = b.getDimSize(op.getTransB() ? 1 : 0);
  int64_t n = b.getDimSize(op.getTransB() ? 0 : 1);
  if (ka != kDyn && kb != kDyn && ka != kb)
    return emitOptionalError(loc, "Gemm contraction dims differ: ", ka, " vs ",
                             kb);
  if (a.getElementType() != b.getElementType())
    return emitOptionalError(loc, "Gemm operand element types differ");
  // C broadcasts unidirectionally to [M, N].
  if (auto c = rankedOrNull(op.getC())) {
    int64_t mn[2] = {m, n};
    bool ok = c.getRank() <= 2;
    for (int64_t i = 0; ok && i < c.getRank(); ++i) {
      int64_t d = c.getDimSize(c.getRank() - 1 - i), want = mn[1 - i];
      ok = d == 1 || d == kDyn || want == kDyn || d == want;
    }
    if (!ok)
      return emitOptionalError(loc, "Gemm C of shape [", c.getShape(),
                               "] is not broadcastable to [", m, ", ", n, "]");
  }
  types.push_back(RankedTensorType::get({m, n}, a.getElementType()));
  return success();
}

FailureOr<SmallVector<int64_t>> resolvePads(Loc loc, ArrayRef<int64_t> in,
                                            const WindowParams &p) {
  size_t n = in.size();
  if (p.kernel.size() != n)
    return emitOptionalError(loc, "kernel has ", p.kernel.size(),
                             " spatial dims, input has ", n);
  auto check = [&](std::optional<ArrayRef<int64_t>> v, size_t want,
                   StringRef name) -> LogicalResult {
    if (v && v->size() != want)
      return emitOptionalError(loc, "'", name, "' must have ", want,
                               " values, got ", v->size());
    if (v && llvm::any_of(*v, [&](int64_t x) {
          return name == "pads" ? x < 0 : x <= 0;
        }))
      return emitOptionalError(loc, "'", name, "' must be ",
                               name == "pads" ? "non-negative" : "positive");
    return success();
  };
  if (llvm::any_of(p.kernel, [](int64_t k) { return k <= 0 && k != kDyn; }))
    return emitOptionalError(loc, "kernel dims must be positive");
  if (failed(check(p.strides, n, "strides")) ||
      failed(check(p.dilations, n, "dilations")) ||
      failed(check(p.pads, 2 * n, "pads")))
    return failure();
  SmallVector<int64_t> pads(2 * n, 0);
  if (p.autoPad == "NOTSET") {
    if (p.pads)
      pads.assign(p.pads->begin(), p.pads->end());
    return pads;
  }
  if (p.autoPad == "VALID")
    return pads;
  if (p.autoPad != "SAME_UPPER" && p.autoPad != "SAME_LOWER")
    return emitOptionalError(loc, "unknown auto_pad '", p.autoPad, "'");
  for (size_t i = 0; i < n; ++i) {
    if (in[i] == kDyn || p.kernel[i] == kDyn)
      return emitOptionalError(loc, "auto_pad ", p.autoPad,
                               " needs static spatial and kernel dims");
    int64_t s = p.strides ? (*p.strides)[i] : 1;
    int64_t d = p.dilations ? (*p.dilations)[i] : 1;
    int64_t out = (in[i] + s - 1) / s;
    int64_t total =
        std::max<int64_t>(0, (out - 1) * s + (p.kernel[i] - 1) * d + 1 - in[i]);
    int64_t small = total / 2, big = total - small;
    pads[i] = p.autoPad == "SAME_UPPER" ? small : big;
    pads[i + n] = p.autoPad == "SAME_UPPER" ? big : small;
  }
  return pads;
}

FailureOr<SmallVector<int64_t>> inferWindowOutput(Loc loc, ArrayRef<int64_t> in,
                                                  const WindowParams &p) {
  // SAME_* pads depend on the extents, but the output does not: resolve pads
  // only where they are computable and validate the attributes once.
  bool same = p.autoPad == "SAME_UPPER" || p.autoPad == "SAME_LOWER";
  bool allStatic = llvm::none_of(in, ShapedType::isDynamic) &&
                   llvm::none_of(p.kernel, ShapedType::isDynamic);
  WindowParams checked = p;
  if (same && !allStatic)
    checked.autoPad = "VALID";
  auto pads = resolvePads(loc, in, checked);
  if (failed(pads))
    return failure();
  size_t n = in.size();
  SmallVector<int64_t> out(n, kDyn);
  for (size_t i = 0; i < n; ++i) {
    int64_t s = p.strides ? (*p.strides)[i] : 1;
    int64_t d = p.dilations ? (*p.dilations)[i] : 1;
    if (same && in[i] != kDyn) {
      out[i] = (in[i] + s - 1) / s;
      continue;
    }
    if (in[i] == kDyn || p.kernel[i] == kDyn)
      continue;
    int64_t padded = in[i] + (*pads)[i] + (*pads)[i + n];
    int64_t window = (p.kernel[i] - 1) * d + 1;
    if (padded < window)
      return emitOptionalError(loc, "window of size ", window,
                               " is larger than the padded input (", padded,
                               ") along spatial dim ", i);
    int64_t span = padded - window;
    int64_t o = (p.ceilMode ? (span + s - 1) / s : span / s) + 1;
    // A window that would start inside the end padding is dropped.
    if (p.ceilMode && (o - 1) * s >= in[i] + (*pads)[i])
      --o;
    out[i] = o;
  }
  return out;
}

template <typename Adaptor>
static LogicalResult inferConvLike(Loc loc, Adaptor op, Types &types) {
  auto x = rankedOrNull(op.getX()), w = rankedOrNull(op.getW());
  if (!x || !w || x.getRank() < 3 || x.getRank() != w.getRank())
    return emitOptionalError(loc, "Conv needs ranked X and W of equal rank "
                                  ">= 3");
  if (x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "Conv X and W element types differ");
  int64_t group = op.getGroup();
  int64_t c = x.getDimSize(1), wc = w.getDimSize(1), m = w.getDimSize(0);
  if (group <= 0)
    return emitOptionalError(loc, "group must be positive");
  if (c != kDyn && wc != kDyn && c != wc * group)
    return emitOptionalError(loc, "Conv input channels (", c,
                             ") != W channels (", wc, ") * group (", group,
                             ")");
  if (m != kDyn && m % group != 0)
    return emitOptionalError(loc, "Conv output channels (", m,
                             ") not divisible by group (", group, ")");
  if (auto b = rankedOrNull(op.getB()))
    if (b.getRank() != 1 ||
        (m != kDyn && b.getDimSize(0) != kDyn && b.getDimSize(0) != m))
      return emitOptionalError(loc, "Conv bias must be 1-D of size ", m);
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (auto ks = op.getKernelShape()) {
    bool match = ks->size() == kernel.size();
    for (size_t i = 0; match && i < kernel.size(); ++i)
      match = kernel[i] == kDyn || kernel[i] == (*ks)[i];
    if (!match)
      return emitOptionalError(loc, "kernel_shape does not match W");
    kernel.assign(ks->begin(), ks->end());
  }
  WindowParams p{op.getAutoPad(),   kernel,       op.getStrides(),
                 op.getDilations(), op.getPads(), false};
  auto spatial = inferWindowOutput(loc, x.getShape().drop_front(2), p);
  if (failed(spatial))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), m};
  out.append(*spatial);
  types.push_back(RankedTensorType::get(out, x.getElementType()));
  return success();
}

LogicalResult inferConv(Loc loc, ConvOp::Adaptor op, Types &types) {
  return inferConvLike(loc, op, types);
}

/// Checks a fused op's activation name and parameter count.
static LogicalResult checkActivation(Loc loc, StringRef name,
                                     ArrayRef<float> params) {
  std::optional<Activation> act = parseActivation(name);
  if (!act)
    return emitOptionalError(loc, "unknown fused activation '", name, "'");
  if (params.size() != getNumActivationParams(*act))
    return emitOptionalError(loc, "activation '", name, "' takes ",
                             getNumActivationParams(*act),
                             " activation_params, got ", params.size());
  return success();
}

LogicalResult inferFusedConv(Loc loc, FusedConvOp::Adaptor op, Types &types) {
  if (failed(
          checkActivation(loc, op.getActivation(), op.getActivationParams())))
    return failure();
  if (*parseActivation(op.getActivation()) == Activation::None)
    return emitOptionalError(loc, "FusedConv needs an activation");
  return inferConvLike(loc, op, types);
}

LogicalResult inferFusedMatMul(Loc loc, FusedMatMulOp::Adaptor op,
                               Types &types) {
  if (failed(
          checkActivation(loc, op.getActivation(), op.getActivationParams())))
    return failure();
  MatMulOp::Adaptor matmul(ValueRange{op.getA(), op.getB()});
  if (failed(inferMatMul(loc, matmul, types)))
    return failure();
  auto y = dyn_cast<RankedTensorType>(types.back());
  if (auto bias = rankedOrNull(op.getBias())) {
    if (bias.getElementType() != getElementTypeOrSelf(types.back()))
      return emitOptionalError(loc, "FusedMatMul Bias element type differs");
    int64_t n = y && y.getRank() > 0 ? y.getShape().back() : kDyn;
    if (bias.getRank() != 1 ||
        (n != kDyn && bias.getDimSize(0) != kDyn && bias.getDimSize(0) != n))
      return emitOptionalError(loc, "FusedMatMul Bias must be 1-D of size ", n);
  }
  return success();
}

LogicalResult inferConvTranspose(Loc loc, ConvTransposeOp::Adaptor op,
                                 Types &types) {
  auto x = rankedOrNull(op.getX()), w = rankedOrNull(op.getW());
  if (!x || !w || x.getRank() < 3 || x.getRank() != w.getRank())
    return emitOptionalError(loc, "ConvTranspose needs ranked X and W of "
                                  "equal rank >= 3");
  if (x.getElementType() != w.getElementType())
    return emitOptionalError(loc, "ConvTranspose X and W element types "
                                  "differ");
  int64_t group = op.getGroup();
  if (group <= 0)
    return emitOptionalError(loc, "group must be positive");
  int64_t c = x.getDimSize(1);
  if (c != kDyn && w.getDimSize(0) != kDyn && c != w.getDimSize(0))
    return emitOptionalError(loc, "ConvTranspose input channels (", c,
                             ") != W dim 0 (", w.getDimSize(0), ")");
  size_t n = x.getRank() - 2;
  SmallVector<int64_t> kernel(w.getShape().drop_front(2));
  if (auto ks = op.getKernelShape())
    kernel.assign(ks->begin(), ks->end());
  StringRef autoPad = op.getAutoPad();
  if (autoPad != "NOTSET" && autoPad != "VALID" && autoPad != "SAME_UPPER" &&
      autoPad != "SAME_LOWER")
    return emitOptionalError(loc, "unknown auto_pad '", autoPad, "'");
  auto check = [&](std::optional<ArrayRef<int64_t>> v, size_t want,
                   StringRef name, int64_t min) -> LogicalResult {
    if (v && v->size() != want)
      return emitOptionalError(loc, "'", name, "' must have ", want,
                               " values, got ", v->size());
    if (v && llvm::any_of(*v, [&](int64_t e) { return e < min && e != kDyn; }))
      return emitOptionalError(loc, "'", name, "' values must be >= ", min);
    return success();
  };
  if (failed(check(kernel, n, "kernel_shape", 1)) ||
      failed(check(op.getStrides(), n, "strides", 1)) ||
      failed(check(op.getDilations(), n, "dilations", 1)) ||
      failed(check(op.getPads(), 2 * n, "pads", 0)) ||
      failed(check(op.getOutputPadding(), n, "output_padding", 0)) ||
      failed(check(op.getOutputShape(), n, "output_shape", 0)))
    return failure();
  auto get = [&](std::optional<ArrayRef<int64_t>> v, size_t i, int64_t def) {
    return v ? (*v)[i] : def;
  };
  int64_t m = w.getDimSize(1) == kDyn ? kDyn : w.getDimSize(1) * group;
  SmallVector<int64_t> out{x.getDimSize(0), m};
  for (size_t i = 0; i < n; ++i) {
    int64_t in = x.getDimSize(i + 2);
    int64_t s = get(op.getStrides(), i, 1), d = get(op.getDilations(), i, 1);
    int64_t outPad = get(op.getOutputPadding(), i, 0);
    if (outPad >= s && outPad >= d)
      return emitOptionalError(loc, "output_padding must be smaller than "
                                    "the stride or the dilation");
    if (auto os = op.getOutputShape()) {
      out.push_back((*os)[i]);
    } else if (in == kDyn || kernel[i] == kDyn) {
      out.push_back(kDyn);
    } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
      out.push_back(in * s);
    } else {
      int64_t pads = 0;
      if (autoPad == "NOTSET")
        pads = get(op.getPads(), i, 0) + get(op.getPads(), i + n, 0);
      int64_t o = s * (in - 1) + outPad + (kernel[i] - 1) * d + 1 - pads;
      if (o <= 0)
        return emitOptionalError(loc, "ConvTranspose output dim ", i,
                                 " is not positive");
      out.push_back(o);
    }
  }
  types.push_back(RankedTensorType::get(out, x.getElementType()));
  return success();
}

LogicalResult inferPoolImpl(Loc loc, Value xv, const WindowParams &p,
                            Types &types) {
  auto x = rankedOrNull(xv);
  if (!x || x.getRank() < 3)
    return emitOptionalError(loc, "pooling needs a ranked input of rank >= 3");
  auto spatial = inferWindowOutput(loc, x.getShape().drop_front(2), p);
  if (failed(spatial))
    return failure();
  SmallVector<int64_t> out{x.getDimSize(0), x.getDimSize(1)};
  out.append(*spatial);
  types.push_back(RankedTensorType::get(out, x.getElementType()));
  return success();
}

LogicalResult inferGlobalPool(Loc loc, Value xv, Types &types) {
  auto x = rankedOrNull(xv);
  if (!x || x.getRank() < 3)
    return emitOptionalError(loc, "pooling needs a ranked input of rank >= 3");
  SmallVector<int64_t> out(x.getShape());
  std::fill(out.begin() + 2, out.end(), 1);
  types.push_back(RankedTensorType::get(out, x.getElementType()));
  return success();
}

LogicalResult inferBatchNorm(Loc loc, BatchNormalizationOp::Adaptor op,
                             Types &types) {
  if (op.getTrainingMode() != 0)
    return emitOptionalError(loc, "BatchNormalization training mode is not "
                                  "supported");
  auto x = rankedOrNull(op.getX());
  if (!x || x.getRank() < 2)
    return emitOptionalError(loc, "BatchNormalization needs rank >= 2");
  int64_t c = x.getDimSize(1);
  for (Value v :
       {op.getScale(), op.getB(), op.getInputMean(), op.getInputVar()}) {
    auto t = rankedOrNull(v);
    if (!t || t.getRank() != 1 ||
        (c != kDyn && t.getDimSize(0) != kDyn && t.getDimSize(0) != c))
      return emitOptionalError(loc,
                               "BatchNormalization parameters must be "
                               "1-D of size C = ",
                               c);
  }
  types.push_back(x);
  return success();
}

LogicalResult inferLayerNorm(Loc loc, LayerNormalizationOp::Adaptor op,
                             Types &types) {
  auto x = rankedOrNull(op.getX());
  if (!x)
    return inferSameAs(op.getX(), types);
  auto axis = normalizeAxis(loc, op.getAxis(), x.getRank());
  if (failed(axis))
    return failure();
  ArrayRef<int64_t> normShape = x.getShape().drop_front(*axis);
  for (Value v : {op.getScale(), op.getB()}) {
    auto t = rankedOrNull(v);
    if (!t)
      continue;
    if (t.getRank() > (int64_t)normShape.size() ||
        failed(broadcastShapes(std::nullopt, normShape, t.getShape())))
      return emitOptionalError(loc, "LayerNormalization scale/bias shape is "
                                    "not broadcastable to the normalized "
                                    "shape");
  }
  types.push_back(x);
  return success();
}

LogicalResult inferAxisPreserving(Loc loc, Value x, int64_t axis,
                                  Types &types) {
  if (auto t = rankedOrNull(x))
    if (failed(normalizeAxis(loc, axis, t.getRank())))
      return failure();
  types.push_back(x.getType());
  return success();
}

LogicalResult inferArgReduce(Loc loc, Value x, int64_t axis, bool keepDims,
                             Types &types) {
  Type i64 = IntegerType::get(x.getContext(), 64);
  auto t = rankedOrNull(x);
  if (!t) {
    types.push_back(UnrankedTensorType::get(i64));
    return success();
  }
  auto a = normalizeAxis(loc, axis, t.getRank());
  if (failed(a))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (i != *a)
      shape.push_back(t.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  types.push_back(RankedTensorType::get(shape, i64));
  return success();
}

LogicalResult inferReduceImpl(Loc loc, Value data, Value axes, bool keepDims,
                              bool noopWithEmptyAxes, Types &types) {
  auto t = rankedOrNull(data);
  Type elt = getElementTypeOrSelf(data.getType());
  if (!t) {
    types.push_back(UnrankedTensorType::get(elt));
    return success();
  }
  int64_t rank = t.getRank();
  SmallVector<bool> reduced(rank, false);
  if (isNoValue(axes)) {
    if (!noopWithEmptyAxes)
      reduced.assign(rank, true);
  } else if (auto vals = getConstantInts(axes)) {
    if (vals->empty() && !noopWithEmptyAxes)
      reduced.assign(rank, true);
    for (int64_t a : *vals) {
      auto n = normalizeAxis(loc, a, rank);
      if (failed(n))
        return failure();
      reduced[*n] = true;
    }
  } else {
    // Unknown axes: only the rank is known, and only with keepdims.
    if (!keepDims) {
      types.push_back(UnrankedTensorType::get(elt));
      return success();
    }
    types.push_back(
        RankedTensorType::get(SmallVector<int64_t>(rank, kDyn), elt));
    return success();
  }
  SmallVector<int64_t> out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      out.push_back(t.getDimSize(i));
    else if (keepDims)
      out.push_back(1);
  }
  types.push_back(RankedTensorType::get(out, elt));
  return success();
}

} // namespace kiln::graph
