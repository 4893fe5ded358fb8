//===- FoldConstants.cpp - Evaluate float ops on constant weights ---------===//
//
// Exported models often preprocess weights in the graph (transposed or
// reshaped initializers, scales multiplied in, casts to another precision).
// This pass evaluates such ops when their data inputs are constants and
// replaces them by one constant. Unlike the dialect's folders, which only
// handle small integer shape computations, it reads weight blobs, handles
// float arithmetic (in double, rounded once to the result type) and creates
// large results as resource blobs. Reshape-like ops of a blob share it.
//
//===----------------------------------------------------------------------===//

#include "dialects/graph/ConstantData.h"
#include "dialects/graph/GraphOps.h"
#include "lowering/graph/Passes.h"

#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <cstring>

using namespace mlir;
namespace g = kiln::graph;

namespace kiln {
#define GEN_PASS_DEF_FOLDCONSTANTS
#include "lowering/graph/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// Results larger than this stay run-time computations: the folded constant
/// would dominate compile time and the size of the binary.
constexpr int64_t kMaxFoldElements = int64_t(64) << 20;

/// Broadcasting may make a result much larger than its inputs; beyond this
/// size that only fattens the binary, so such ops stay run-time ops.
constexpr int64_t kMaxBroadcastFoldElements = int64_t(64) << 10;

/// Transposes and reshapes of a constant move its bytes: the result takes
/// the place of an input that is usually dead afterwards, so the bound is
/// the memory a compile may take (VGG's first classifier weight has 103M
/// elements, and read across its rows at run time it took 320 ms).
constexpr int64_t kMaxMoveFoldElements = int64_t(256) << 20;

static RankedTensorType foldableResult(Value result,
                                       int64_t limit = kMaxFoldElements) {
  auto t = dyn_cast<RankedTensorType>(result.getType());
  return t && t.hasStaticShape() && t.getNumElements() <= limit
             ? t
             : RankedTensorType();
}

static std::string blobNameFor(Value input) {
  ElementsAttr attr;
  matchPattern(input, m_Constant(&attr));
  return deriveBlobName(attr, "folded");
}

/// Float elementwise op on constants; operand element types may differ (Pow's
/// exponent, Cast's input), the result's must be a float.
static FailureOr<ElementsAttr>
evaluateElementwise(RankedTensorType type, ValueRange inputs,
                    llvm::function_ref<double(ArrayRef<double>)> fn) {
  auto elt = dyn_cast<FloatType>(type.getElementType());
  if (!elt)
    return failure();
  SmallVector<ConstantData> data;
  SmallVector<RankedTensorType> types;
  int64_t largestInput = 0;
  for (Value v : inputs) {
    std::optional<ConstantData> d = getConstantData(v);
    if (!d)
      return failure();
    data.push_back(*d);
    types.push_back(d->type);
    largestInput = std::max(largestInput, d->getNumElements());
  }
  if (type.getNumElements() > std::max(largestInput, kMaxBroadcastFoldElements))
    return failure();
  size_t width = elt.getWidth() / 8;
  std::vector<char> bytes(type.getNumElements() * width);
  SmallVector<double> args(data.size());
  forEachIndex(type.getShape(), types, {},
               [&](int64_t out, ArrayRef<int64_t> in) {
                 for (size_t k = 0; k < data.size(); ++k)
                   args[k] = data[k].getDouble(in[k]);
                 storeDouble(elt, fn(args), bytes.data() + out * width);
               });
  return createConstantAttr(type, bytes, blobNameFor(inputs.front()));
}

/// Same data, new shape: no copy for either storage kind.
static FailureOr<ElementsAttr> evaluateReshape(RankedTensorType type,
                                               Value input) {
  ElementsAttr attr;
  if (!matchPattern(input, m_Constant(&attr)) ||
      attr.getShapedType().getElementType() != type.getElementType() ||
      attr.getShapedType().getNumElements() != type.getNumElements())
    return failure();
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    return ElementsAttr(dense.reshape(type));
  if (auto res = dyn_cast<DenseResourceElementsAttr>(attr))
    return ElementsAttr(
        DenseResourceElementsAttr::get(type, res.getRawHandle()));
  return failure();
}

static FailureOr<ElementsAttr> evaluateTranspose(RankedTensorType type,
                                                 g::TransposeOp op) {
  std::optional<ConstantData> in = getConstantData(op.getData());
  if (!in)
    return failure();
  int64_t rank = in->type.getRank();
  SmallVector<int64_t> perm;
  if (std::optional<ArrayRef<int64_t>> p = op.getPerm())
    perm.assign(p->begin(), p->end());
  else
    perm = llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank)));
  if ((int64_t)perm.size() != rank || type.getRank() != rank ||
      llvm::any_of(perm, [&](int64_t d) { return d < 0 || d >= rank; }))
    return failure();
  size_t width = in->elementBytes;
  std::vector<char> bytes(type.getNumElements() * width);
  forEachIndex(type.getShape(), {in->type}, perm,
               [&](int64_t out, ArrayRef<int64_t> idx) {
                 std::memcpy(bytes.data() + out * width, in->getElement(idx[0]),
                             width);
               });
  return createConstantAttr(type, bytes, blobNameFor(op.getData()));
}

using Unary = double (*)(double);
using Binary = double (*)(double, double);

static FailureOr<ElementsAttr> evaluateUnary(RankedTensorType type, Value x,
                                             Unary fn) {
  return evaluateElementwise(type, x,
                             [fn](ArrayRef<double> a) { return fn(a[0]); });
}

static FailureOr<ElementsAttr> evaluateBinary(RankedTensorType type,
                                              Operation *op, Binary fn) {
  // Integer arithmetic is left to the dialect's folders.
  for (Value v : op->getOperands())
    if (!isa<FloatType>(getElementTypeOrSelf(v.getType())) &&
        !isa<g::PowOp>(op))
      return failure();
  return evaluateElementwise(type, op->getOperands(), [fn](ArrayRef<double> a) {
    return fn(a[0], a[1]);
  });
}

/// The constant a kiln_graph op computes from constant inputs, or failure.
static FailureOr<ElementsAttr> evaluate(Operation *op, RankedTensorType type) {
  return llvm::TypeSwitch<Operation *, FailureOr<ElementsAttr>>(op)
      .Case([&](g::AddOp) {
        return evaluateBinary(type, op,
                              [](double a, double b) { return a + b; });
      })
      .Case([&](g::SubOp) {
        return evaluateBinary(type, op,
                              [](double a, double b) { return a - b; });
      })
      .Case([&](g::MulOp) {
        return evaluateBinary(type, op,
                              [](double a, double b) { return a * b; });
      })
      .Case([&](g::DivOp) {
        return evaluateBinary(type, op,
                              [](double a, double b) { return a / b; });
      })
      .Case([&](g::PowOp) {
        return evaluateBinary(
            type, op, [](double a, double b) { return std::pow(a, b); });
      })
      .Case([&](g::NegOp o) {
        return evaluateUnary(type, o.getX(), [](double a) { return -a; });
      })
      .Case([&](g::AbsOp o) {
        return evaluateUnary(type, o.getX(),
                             [](double a) { return std::fabs(a); });
      })
      .Case([&](g::SqrtOp o) {
        return evaluateUnary(type, o.getX(),
                             [](double a) { return std::sqrt(a); });
      })
      .Case([&](g::ExpOp o) {
        return evaluateUnary(type, o.getX(),
                             [](double a) { return std::exp(a); });
      })
      .Case([&](g::LogOp o) {
        return evaluateUnary(type, o.getX(),
                             [](double a) { return std::log(a); });
      })
      .Case([&](g::CastOp o) {
        // To a float type from a float or integer; float-to-integer casts
        // have their own rounding and saturation rules.
        return evaluateUnary(type, o.getInput(), [](double a) { return a; });
      })
      .Case([&](g::TransposeOp o) { return evaluateTranspose(type, o); })
      .Case([&](g::ReshapeOp o) { return evaluateReshape(type, o.getData()); })
      .Case([&](g::FlattenOp o) { return evaluateReshape(type, o.getInput()); })
      .Case([&](g::SqueezeOp o) { return evaluateReshape(type, o.getData()); })
      .Case(
          [&](g::UnsqueezeOp o) { return evaluateReshape(type, o.getData()); })
      .Default([](Operation *) { return failure(); });
}

template <typename OpTy> struct FoldConstantInputs : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    bool moves = isa<g::TransposeOp, g::ReshapeOp, g::FlattenOp, g::SqueezeOp,
                     g::UnsqueezeOp>(op.getOperation());
    RankedTensorType type = foldableResult(
        op->getResult(0), moves ? kMaxMoveFoldElements : kMaxFoldElements);
    if (!type)
      return rewriter.notifyMatchFailure(op, "result is not static or too big");
    FailureOr<ElementsAttr> value = evaluate(op, type);
    if (failed(value))
      return rewriter.notifyMatchFailure(op,
                                         "inputs are not foldable constants");
    rewriter.replaceOpWithNewOp<g::ConstantOp>(op, type, *value);
    return success();
  }
};

/// Gemm(A, B, transB = 1) with a constant B reads B across its rows, one
/// column of the kernel at a time (ResNet-50's classifier, 1 x 2048 x 1000,
/// took 5.3 ms that way and 0.4 ms with B transposed); the transpose is
/// done here once, and folded by the pattern above.
struct PretransposeGemmWeight : OpRewritePattern<g::GemmOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(g::GemmOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getB().getType());
    if (op.getTransB() == 0 || !type || type.getRank() != 2 ||
        !type.hasStaticShape() || !op.getB().getDefiningOp<g::ConstantOp>())
      return rewriter.notifyMatchFailure(op, "B is not a constant matrix");
    auto transposedType = type.clone({type.getDimSize(1), type.getDimSize(0)});
    if (!foldableResult(op.getB(), kMaxMoveFoldElements))
      return rewriter.notifyMatchFailure(op, "B is too big to fold");
    Value b =
        g::TransposeOp::create(rewriter, op.getLoc(), transposedType, op.getB(),
                               rewriter.getDenseI64ArrayAttr({1, 0}));
    rewriter.modifyOpInPlace(op, [&] {
      op.getBMutable().assign(b);
      op.setTransB(0);
    });
    return success();
  }
};

struct FoldConstantsPass : impl::FoldConstantsBase<FoldConstantsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldConstantsPatterns(patterns);
    // An optimization: whatever did not converge is still correct IR.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace

void populateFoldConstantsPatterns(RewritePatternSet &patterns) {
  patterns
      .add<FoldConstantInputs<g::AddOp>, FoldConstantInputs<g::SubOp>,
           FoldConstantInputs<g::MulOp>, FoldConstantInputs<g::DivOp>,
           FoldConstantInputs<g::PowOp>, FoldConstantInputs<g::NegOp>,
           FoldConstantInputs<g::AbsOp>, FoldConstantInputs<g::SqrtOp>,
           FoldConstantInputs<g::ExpOp>, FoldConstantInputs<g::LogOp>,
           FoldConstantInputs<g::CastOp>, FoldConstantInputs<g::TransposeOp>,
           FoldConstantInputs<g::ReshapeOp>, FoldConstantInputs<g::FlattenOp>,
           FoldConstantInputs<g::SqueezeOp>, FoldConstantInputs<g::UnsqueezeOp>,
           PretransposeGemmWeight>(patterns.getContext());
}

} // namespace kiln
