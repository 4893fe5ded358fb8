//===- ConvertLayout.cpp - Channels-last convolutions
//----------------------===//
//
// With layout=nhwc, every 2-D Conv or FusedConv that kiln.kernel can run
// channels-last (ungrouped or depthwise) becomes
//   Transpose(NCHW->NHWC) -> kiln_kernel.conv_2d_nhwc -> Transpose(NHWC->NCHW)
// with its weight rearranged into the HWCF/HWC layout at compile time when
// it is a constant. The NHWC->NCHW transposes are then sunk through ops that
// do not care about the layout (elementwise ops, activations, residual adds,
// Concat, GlobalAveragePool) until they meet the NCHW->NHWC transpose of the
// next convolution and cancel. What remains are conversions at the graph's
// inputs and outputs and around ops that only exist in NCHW (pooling with a
// window, Resize, ...). Finally, transposes that only move unit dims (the
// [N, C, 1, 1] tensors of squeeze-and-excitation blocks) become reshapes.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "dialects/graph/ShapeInference.h"
#include "dialects/kernel/KernelDialect.h"
#include "dialects/kernel/KernelOps.h"
#include "lowering/graph/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_CONVERTLAYOUT
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

SmallVector<int64_t> getPerm(g::TransposeOp op) {
  if (std::optional<ArrayRef<int64_t>> p = op.getPerm())
    return SmallVector<int64_t>(*p);
  int64_t rank = cast<RankedTensorType>(op.getData().getType()).getRank();
  return llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
}

SmallVector<int64_t> invert(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inv(perm.size());
  for (auto [d, p] : llvm::enumerate(perm))
    inv[p] = d;
  return inv;
}

bool isIdentity(ArrayRef<int64_t> perm) {
  for (auto [d, p] : llvm::enumerate(perm))
    if ((int64_t)d != p)
      return false;
  return true;
}

/// The transpose of `t` by `perm` (dim d of the result is dim perm[d]).
RankedTensorType permuteType(RankedTensorType t, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(t.getDimSize(p));
  return t.clone(shape);
}

Value createTranspose(OpBuilder &b, Location loc, Value x,
                      ArrayRef<int64_t> perm, Type type = {}) {
  if (!type)
    type = permuteType(cast<RankedTensorType>(x.getType()), perm);
  return g::TransposeOp::create(b, loc, type, x, b.getDenseI64ArrayAttr(perm));
}

/// The ranked transpose defining `v`, if any.
g::TransposeOp getTranspose(Value v) {
  auto t = v.getDefiningOp<g::TransposeOp>();
  if (!t || !isa<RankedTensorType>(t.getData().getType()) ||
      !isa<RankedTensorType>(t.getType()))
    return {};
  return t;
}

/// The NHWC->NCHW transpose defining `v`, if any. Only these are sunk:
/// sinking in both directions would let a residual add bounce between
/// layouts forever.
g::TransposeOp getToNchw(Value v) {
  g::TransposeOp t = getTranspose(v);
  if (!t || getPerm(t) != ArrayRef<int64_t>(kToNchw))
    return {};
  return t;
}

/// The constant `attr`, with leading unit dims added up to perm.size(),
/// transposed by `perm` and given `shape` (same element count, the same
/// order: unit dims may be dropped). Null when the data is not readable.
ElementsAttr permuteConstant(ElementsAttr attr, ArrayRef<int64_t> perm,
                             ArrayRef<int64_t> shape) {
  std::optional<ConstantData> data = getConstantData(attr);
  int64_t rank = perm.size();
  if (!data || data->type.getRank() > rank ||
      ShapedType::getNumElements(shape) != data->getNumElements())
    return {};
  SmallVector<int64_t> in(rank - data->type.getRank(), 1);
  llvm::append_range(in, data->type.getShape());
  SmallVector<int64_t> inStrides(rank);
  for (int64_t d = rank - 1, s = 1; d >= 0; --d) {
    inStrides[d] = s;
    s *= in[d];
  }
  // Walk the result in row-major order; `src` follows in the input.
  SmallVector<int64_t> outShape, coord(rank, 0);
  for (int64_t p : perm)
    outShape.push_back(in[p]);
  size_t width = data->elementBytes;
  std::vector<char> bytes(data->getNumElements() * width);
  for (int64_t i = 0, src = 0, n = data->getNumElements(); i < n; ++i) {
    std::memcpy(bytes.data() + i * width, data->getElement(src), width);
    for (int64_t d = rank - 1; d >= 0; --d) {
      src += inStrides[perm[d]];
      if (++coord[d] < outShape[d])
        break;
      src -= inStrides[perm[d]] * outShape[d];
      coord[d] = 0;
    }
  }
  auto type = RankedTensorType::get(shape, data->type.getElementType());
  return createConstantAttr(type, bytes, deriveBlobName(attr, "nhwc"));
}

Value createConstant(OpBuilder &b, Location loc, ElementsAttr attr) {
  return g::ConstantOp::create(b, loc, attr.getShapedType(), attr);
}

//===----------------------------------------------------------------------===//
// Conv -> kiln_kernel.conv_2d_nhwc
//===----------------------------------------------------------------------===//

/// The activation of a FusedConv (none for a Conv), as kernel attributes.
std::pair<StringAttr, DenseF32ArrayAttr> getActivation(Builder &, g::ConvOp) {
  return {};
}
std::pair<StringAttr, DenseF32ArrayAttr> getActivation(Builder &b,
                                                       g::FusedConvOp op) {
  if (op.getActivation().empty())
    return {};
  return {op.getActivationAttr(),
          b.getDenseF32ArrayAttr(op.getActivationParams())};
}

/// Conv, and FusedConv with its activation as the kernel's epilogue.
template <typename ConvOpT> struct ConvToNhwc : OpRewritePattern<ConvOpT> {
  using OpRewritePattern<ConvOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConvOpT op,
                                PatternRewriter &rewriter) const override {
    auto xt = dyn_cast<RankedTensorType>(op.getX().getType());
    auto wt = dyn_cast<RankedTensorType>(op.getW().getType());
    auto yt = dyn_cast<RankedTensorType>(op.getType());
    if (!xt || !wt || !yt || xt.getRank() != 4 || !wt.hasStaticShape() ||
        wt.getRank() != 4 || !isa<FloatType>(xt.getElementType()))
      return rewriter.notifyMatchFailure(op, "not a 2-D float Conv");
    int64_t m = wt.getDimSize(0), c = xt.getDimSize(1);
    int64_t kh = wt.getDimSize(2), kw = wt.getDimSize(3);
    int64_t group = op.getGroup();
    bool depthwise =
        group != 1 && group == c && m == c && wt.getDimSize(1) == 1;
    if (group != 1 && !depthwise)
      return rewriter.notifyMatchFailure(op, "grouped, not depthwise");
    if (auto k = op.getKernelShape())
      if (*k != wt.getShape().drop_front(2))
        return rewriter.notifyMatchFailure(op, "kernel_shape differs from W");
    g::WindowParams params{op.getAutoPad(), wt.getShape().drop_front(2),
                           op.getStrides(), op.getDilations(), op.getPads()};
    FailureOr<SmallVector<int64_t>> pads =
        g::resolvePads(std::nullopt, xt.getShape().drop_front(2), params);
    if (failed(pads))
      return rewriter.notifyMatchFailure(op, "pads cannot be resolved");

    Location loc = op.getLoc();
    Value x = createTranspose(rewriter, loc, op.getX(), kToNhwc);
    // [M, C, KH, KW] -> HWCF, or [C, 1, KH, KW] -> HWC for depthwise.
    SmallVector<int64_t> wPerm = depthwise ? SmallVector<int64_t>{2, 3, 0, 1}
                                           : SmallVector<int64_t>{2, 3, 1, 0};
    SmallVector<int64_t> wShape = {kh, kw, wt.getDimSize(depthwise ? 0 : 1)};
    if (!depthwise)
      wShape.push_back(m);
    Value w;
    ElementsAttr wAttr;
    if (matchPattern(op.getW(), m_Constant(&wAttr)))
      if (ElementsAttr packed = permuteConstant(wAttr, wPerm, wShape))
        w = createConstant(rewriter, loc, packed);
    if (!w) {
      w = createTranspose(rewriter, loc, op.getW(), wPerm);
      if (depthwise) {
        auto shapeType = RankedTensorType::get({3}, rewriter.getI64Type());
        Value shape = createConstant(
            rewriter, loc, DenseIntElementsAttr::get(shapeType, wShape));
        w = g::ReshapeOp::create(rewriter, loc, wt.clone(wShape), w, shape);
      }
    }

    Value bias = isa<NoneType>(op.getB().getType()) ? Value() : op.getB();
    auto [activation, activationParams] = getActivation(rewriter, op);
    SmallVector<Value> operands = {x, w};
    if (bias)
      operands.push_back(bias);
    auto one = SmallVector<int64_t>{1, 1};
    kernel::Conv2DNhwcOp::Properties props;
    props.setStrides(
        rewriter.getDenseI64ArrayAttr(op.getStrides().value_or(one)));
    props.setDilations(
        rewriter.getDenseI64ArrayAttr(op.getDilations().value_or(one)));
    props.setPads(rewriter.getDenseI64ArrayAttr(*pads));
    props.setGroup(rewriter.getI64IntegerAttr(group));
    SmallVector<Type> types;
    if (failed(kernel::Conv2DNhwcOp::inferReturnTypes(
            rewriter.getContext(), loc,
            kernel::Conv2DNhwcOp::Adaptor(operands, nullptr, props), types)))
      return rewriter.notifyMatchFailure(op, "invalid convolution");
    Value conv = kernel::Conv2DNhwcOp::create(
        rewriter, loc, types.front(), x, w, bias, props.strides,
        props.dilations, props.pads, props.group, activation, activationParams);
    rewriter.replaceOp(op, createTranspose(rewriter, loc, conv, kToNchw, yt));
    return success();
  }
};

/// QuantizedConv reads and writes channels-last: its integer kernel takes
/// rows of channels. Done whatever the layout option, so that consecutive
/// quantized convolutions pass 8-bit NHWC tensors to each other.
struct QuantizedConvToNhwc : OpRewritePattern<g::QuantizedConvOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::QuantizedConvOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getChannelsLast())
      return failure();
    Location loc = op.getLoc();
    SmallVector<Value> operands = {
        createTranspose(rewriter, loc, op.getX(), kToNhwc), op.getW(),
        op.getB()};
    auto props = op.getProperties();
    props.setChannelsLast(rewriter.getBoolAttr(true));
    SmallVector<Type> types;
    if (failed(g::QuantizedConvOp::inferReturnTypes(
            rewriter.getContext(), loc,
            g::QuantizedConvOp::Adaptor(operands, nullptr, props), types)))
      return rewriter.notifyMatchFailure(op, "invalid convolution");
    auto conv = g::QuantizedConvOp::create(rewriter, loc, types, operands,
                                           op->getAttrs());
    conv.setChannelsLast(true);
    rewriter.replaceOp(
        op, createTranspose(rewriter, loc, conv.getY(), kToNchw, op.getType()));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Sinking transposes
//===----------------------------------------------------------------------===//

/// Transpose(Transpose(x, p1), p2) = Transpose(x, p1[p2]), or x.
struct ComposeTransposes : OpRewritePattern<g::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    g::TransposeOp inner = getTranspose(op.getData());
    if (!inner || !isa<RankedTensorType>(op.getType()))
      return failure();
    SmallVector<int64_t> p1 = getPerm(inner), p2 = getPerm(op), perm;
    for (int64_t p : p2)
      perm.push_back(p1[p]);
    Value x = inner.getData();
    if (isIdentity(perm) && x.getType() == op.getType()) {
      rewriter.replaceOp(op, x);
      return success();
    }
    rewriter.replaceOp(
        op, createTranspose(rewriter, op.getLoc(), x, perm, op.getType()));
    return success();
  }
};

/// Clones `op` with `operands` and the attributes changed by `attrs`, its
/// result laid out as the transposed inputs (inverse of `perm`), and
/// replaces `op` by the transpose of the clone by `perm`.
void replaceByTransposedClone(PatternRewriter &rewriter, Operation *op,
                              ValueRange operands, ArrayRef<int64_t> perm,
                              ArrayRef<NamedAttribute> attrs = {}) {
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  NamedAttrList attrList(op->getAttrs());
  for (NamedAttribute a : attrs)
    attrList.set(a.getName(), a.getValue());
  OperationState state(op->getLoc(), op->getName(), operands,
                       {permuteType(type, invert(perm))}, attrList.getAttrs());
  Operation *clone = rewriter.create(state);
  rewriter.replaceOp(op, createTranspose(rewriter, op->getLoc(),
                                         clone->getResult(0), perm, type));
}

/// A transposed-by-`perm` result's operand `v` re-laid so that the op can
/// run on the untransposed inputs: the transpose's input, a constant
/// transposed at compile time, a scalar as is, or an existing inverse
/// transpose of `v` (moved up to `user` if needed). Null otherwise. With
/// `dryRun`, only checks (the IR is not changed, and any non-null value
/// means success).
Value relayOperand(PatternRewriter &rewriter, Operation *user, Value v,
                   ArrayRef<int64_t> perm, bool dryRun) {
  int64_t rank = perm.size();
  if (g::TransposeOp t = getTranspose(v))
    if (getPerm(t) == perm)
      return t.getData();
  auto vt = dyn_cast<RankedTensorType>(v.getType());
  if (!vt || vt.getRank() > rank)
    return {};
  if (vt.hasStaticShape() && vt.getNumElements() == 1)
    return v;
  SmallVector<int64_t> inv = invert(perm);
  ElementsAttr attr;
  if (matchPattern(v, m_Constant(&attr)) && vt.hasStaticShape()) {
    if (!getConstantData(attr))
      return {};
    if (dryRun)
      return v;
    SmallVector<int64_t> ext(rank - vt.getRank(), 1);
    llvm::append_range(ext, vt.getShape());
    RankedTensorType type = permuteType(vt.clone(ext), inv);
    return createConstant(rewriter, v.getLoc(),
                          permuteConstant(attr, inv, type.getShape()));
  }
  if (vt.getRank() != rank)
    return {};
  for (Operation *other : v.getUsers()) {
    auto t = dyn_cast<g::TransposeOp>(other);
    if (!t || t->getBlock() != user->getBlock() || getPerm(t) != inv)
      continue;
    if (!dryRun && !t->isBeforeInBlock(user))
      rewriter.moveOpBefore(t, user);
    return t.getResult();
  }
  return {};
}

/// All of `values` re-laid (see relayOperand), or failure without changing
/// the IR.
FailureOr<SmallVector<Value>> relayOperands(PatternRewriter &rewriter,
                                            Operation *user, ValueRange values,
                                            ArrayRef<int64_t> perm) {
  for (Value v : values)
    if (!relayOperand(rewriter, user, v, perm, /*dryRun=*/true))
      return failure();
  SmallVector<Value> out;
  for (Value v : values)
    out.push_back(relayOperand(rewriter, user, v, perm, /*dryRun=*/false));
  return out;
}

/// Ops computing elementwise on their first operand, the others being
/// scalars: f(Transpose(x)) = Transpose(f(x)).
struct SinkThroughUnary : RewritePattern {
  SinkThroughUnary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<g::ReluOp, g::SigmoidOp, g::TanhOp, g::ExpOp, g::LogOp, g::SqrtOp,
             g::ErfOp, g::NegOp, g::AbsOp, g::LeakyReluOp, g::HardSigmoidOp,
             g::GeluOp, g::ClipOp, g::IdentityOp, g::CastOp,
             g::QuantizeLinearOp, g::DequantizeLinearOp>(op))
      return failure();
    g::TransposeOp t = getToNchw(op->getOperand(0));
    if (!t || !isa<RankedTensorType>(op->getResult(0).getType()))
      return failure();
    for (Value v : op->getOperands().drop_front()) {
      auto vt = dyn_cast<RankedTensorType>(v.getType());
      if (!isa<NoneType>(v.getType()) && (!vt || vt.getRank() != 0))
        return rewriter.notifyMatchFailure(op, "non-scalar extra operand");
    }
    SmallVector<Value> operands(op->getOperands());
    operands[0] = t.getData();
    replaceByTransposedClone(rewriter, op, operands, getPerm(t));
    return success();
  }
};

/// Broadcasting binary ops with a transposed operand whose other operand can
/// be re-laid without adding a transpose (see relayOperand); this covers
/// residual adds and per-channel scales and shifts.
struct SinkThroughBinary : RewritePattern {
  SinkThroughBinary(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!isa<g::AddOp, g::SubOp, g::MulOp, g::DivOp>(op))
      return failure();
    g::TransposeOp t = getToNchw(op->getOperand(0));
    if (!t)
      t = getToNchw(op->getOperand(1));
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!t || !type)
      return failure();
    SmallVector<int64_t> perm = getPerm(t);
    if (type.getRank() != (int64_t)perm.size())
      return failure();
    FailureOr<SmallVector<Value>> operands =
        relayOperands(rewriter, op, op->getOperands(), perm);
    if (failed(operands))
      return rewriter.notifyMatchFailure(op, "operand would need a transpose");
    replaceByTransposedClone(rewriter, op, *operands, perm);
    return success();
  }
};

struct SinkThroughConcat : OpRewritePattern<g::ConcatOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::ConcatOp op,
                                PatternRewriter &rewriter) const override {
    g::TransposeOp t;
    for (Value v : op.getInputs())
      if ((t = getToNchw(v)))
        break;
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!t || !type)
      return failure();
    SmallVector<int64_t> perm = getPerm(t);
    int64_t rank = perm.size(), axis = op.getAxis();
    if (type.getRank() != rank || axis < -rank || axis >= rank)
      return failure();
    // Concat does not broadcast: every input has the result's rank.
    for (Value v : op.getInputs())
      if (cast<RankedTensorType>(v.getType()).getRank() != rank)
        return failure();
    FailureOr<SmallVector<Value>> operands =
        relayOperands(rewriter, op, op.getInputs(), perm);
    if (failed(operands))
      return rewriter.notifyMatchFailure(op, "input would need a transpose");
    axis = perm[axis < 0 ? axis + rank : axis];
    replaceByTransposedClone(
        rewriter, op, *operands, perm,
        {rewriter.getNamedAttr("axis", rewriter.getIntegerAttr(
                                           op.getAxisAttr().getType(), axis))});
    return success();
  }
};

/// GlobalAveragePool(Transpose(y)) = Transpose(ReduceMean(y)) over the dims
/// of y that become the spatial ones, kept as unit dims.
struct SinkThroughGlobalAveragePool : OpRewritePattern<g::GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::GlobalAveragePoolOp op,
                                PatternRewriter &rewriter) const override {
    g::TransposeOp t = getToNchw(op.getX());
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!t || !type)
      return failure();
    SmallVector<int64_t> perm = getPerm(t);
    SmallVector<int64_t> axes(perm.begin() + 2, perm.end());
    llvm::sort(axes);
    Location loc = op.getLoc();
    auto axesType =
        RankedTensorType::get({(int64_t)axes.size()}, rewriter.getI64Type());
    Value axesValue = createConstant(rewriter, loc,
                                     DenseIntElementsAttr::get(axesType, axes));
    Value mean = g::ReduceMeanOp::create(
        rewriter, loc, permuteType(type, invert(perm)), t.getData(), axesValue,
        /*keepdims=*/1, /*noop_with_empty_axes=*/0);
    rewriter.replaceOp(op, createTranspose(rewriter, loc, mean, perm, type));
    return success();
  }
};

/// MaxPool(Transpose(x)) = Transpose(max_pool_2d_nhwc(x)), with auto_pad
/// and ceil_mode resolved into explicit pads (ceil_mode as extra bottom and
/// right padding). Static spatial dims only.
struct SinkThroughMaxPool : OpRewritePattern<g::MaxPoolOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::MaxPoolOp op,
                                PatternRewriter &rewriter) const override {
    g::TransposeOp t = getToNchw(op.getX());
    auto xt = dyn_cast<RankedTensorType>(op.getX().getType());
    auto yt = dyn_cast<RankedTensorType>(op.getType());
    ArrayRef<int64_t> kernel = op.getKernelShape();
    if (!t || !xt || !yt || xt.getRank() != 4 || kernel.size() != 2 ||
        op.getStorageOrder() != 0 || ShapedType::isDynamic(xt.getDimSize(2)) ||
        ShapedType::isDynamic(xt.getDimSize(3)) ||
        ShapedType::isDynamic(yt.getDimSize(2)) ||
        ShapedType::isDynamic(yt.getDimSize(3)))
      return failure();
    g::WindowParams params{op.getAutoPad(), kernel,
                           op.getStrides(), op.getDilations(),
                           op.getPads(),    op.getCeilMode() != 0};
    FailureOr<SmallVector<int64_t>> pads =
        g::resolvePads(std::nullopt, xt.getShape().drop_front(2), params);
    if (failed(pads))
      return failure();
    auto one = SmallVector<int64_t>{1, 1};
    SmallVector<int64_t> strides(op.getStrides().value_or(one));
    SmallVector<int64_t> dilations(op.getDilations().value_or(one));
    for (int d = 0; d < 2; ++d) {
      int64_t span = (kernel[d] - 1) * dilations[d] + 1;
      int64_t need = (yt.getDimSize(2 + d) - 1) * strides[d] + span;
      int64_t have = xt.getDimSize(2 + d) + (*pads)[d] + (*pads)[d + 2];
      (*pads)[d + 2] += std::max<int64_t>(0, need - have);
    }
    Location loc = op.getLoc();
    kernel::MaxPool2DNhwcOp::Properties props;
    props.setKernel(rewriter.getDenseI64ArrayAttr(kernel));
    props.setStrides(rewriter.getDenseI64ArrayAttr(strides));
    props.setDilations(rewriter.getDenseI64ArrayAttr(dilations));
    props.setPads(rewriter.getDenseI64ArrayAttr(*pads));
    SmallVector<Type> types;
    if (failed(kernel::MaxPool2DNhwcOp::inferReturnTypes(
            rewriter.getContext(), loc,
            kernel::MaxPool2DNhwcOp::Adaptor(ValueRange{t.getData()}, nullptr,
                                             props),
            types)) ||
        types.front() != permuteType(yt, kToNhwc))
      return rewriter.notifyMatchFailure(op, "output extents differ");
    Value pool = kernel::MaxPool2DNhwcOp::create(
        rewriter, loc, types.front(), t.getData(), props.kernel, props.strides,
        props.dilations, props.pads);
    rewriter.replaceOp(op, createTranspose(rewriter, loc, pool, kToNchw, yt));
    return success();
  }
};

/// A transpose that keeps the order of the non-unit dims moves no data: it is
/// a reshape (free after lowering).
struct TransposeOfUnitDimsToReshape : OpRewritePattern<g::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto in = dyn_cast<RankedTensorType>(op.getData().getType());
    auto out = dyn_cast<RankedTensorType>(op.getType());
    if (!in || !out || !out.hasStaticShape() || !in.hasStaticShape())
      return failure();
    int64_t last = -1;
    for (int64_t p : getPerm(op)) {
      if (in.getDimSize(p) == 1)
        continue;
      if (p < last)
        return failure();
      last = p;
    }
    auto shapeType =
        RankedTensorType::get({out.getRank()}, rewriter.getI64Type());
    Value shape =
        createConstant(rewriter, op.getLoc(),
                       DenseIntElementsAttr::get(shapeType, out.getShape()));
    rewriter.replaceOpWithNewOp<g::ReshapeOp>(op, out, op.getData(), shape);
    return success();
  }
};

struct ConvertLayoutPass : impl::ConvertLayoutBase<ConvertLayoutPass> {
  using ConvertLayoutBase::ConvertLayoutBase;

  void runOnOperation() override {
    if (layout != "nchw" && layout != "nhwc") {
      getOperation().emitError("unknown layout '")
          << layout << "' (expected nchw or nhwc)";
      return signalPassFailure();
    }
    // With nchw, only models with quantized convolutions change layout.
    bool quantized = false;
    getOperation().walk(
        [&](g::QuantizedConvOp op) { quantized |= !op.getChannelsLast(); });
    if (layout == "nchw" && !quantized)
      return;
    MLIRContext *ctx = &getContext();
    // Phases, so that every convolution's input transpose exists before
    // the residual adds look for one to reuse.
    RewritePatternSet convs(ctx);
    convs.add<QuantizedConvToNhwc>(ctx);
    // Float convolutions between quantized ones (depthwise, grouped) run
    // channels-last too, or every one would cost two transposes.
    if (layout == "nhwc" || quantized)
      convs.add<ConvToNhwc<g::ConvOp>, ConvToNhwc<g::FusedConvOp>>(ctx);
    RewritePatternSet sink(ctx);
    populateConvertLayoutPatterns(sink);
    RewritePatternSet cleanup(ctx);
    cleanup.add<TransposeOfUnitDimsToReshape>(ctx);
    // Optimizations: whatever did not converge is still correct IR.
    (void)applyPatternsGreedily(getOperation(), std::move(convs));
    (void)applyPatternsGreedily(getOperation(), std::move(sink));
    (void)applyPatternsGreedily(getOperation(), std::move(cleanup));
  }
};

} // namespace

void populateConvertLayoutPatterns(RewritePatternSet &patterns) {
  patterns
      .add<ComposeTransposes, SinkThroughUnary, SinkThroughBinary,
           SinkThroughConcat, SinkThroughGlobalAveragePool, SinkThroughMaxPool>(
          patterns.getContext());
}

} // namespace kiln
