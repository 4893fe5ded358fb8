//===- StoreBoolsAsBytes.cpp - vectors of i1 touch one byte per element ---===//
//
// kiln's bool tensors are one byte per element (KILN_DTYPE_BOOL). A scalar
// i1 load or store in LLVM touches one byte, but an <N x i1> vector is packed
// into N bits in memory, so a vectorized compare whose mask went straight to
// a bool buffer wrote bits over bytes. These patterns move every such memory
// access to <N x i8>: zext before stores, `icmp ne 0` after loads.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_STOREBOOLSASBYTES
#include "lowering/cpu/Passes.h.inc"

namespace {

/// The <N x i8> type holding a vector of i1 in memory, or null if `t` is
/// not a vector of i1.
VectorType byteVectorFor(Type t) {
  auto vt = dyn_cast<VectorType>(t);
  if (!vt || !vt.getElementType().isInteger(1))
    return {};
  return vt.clone(IntegerType::get(t.getContext(), 8));
}

Value toBytes(PatternRewriter &rewriter, Location loc, Value bits) {
  return LLVM::ZExtOp::create(rewriter, loc, byteVectorFor(bits.getType()),
                              bits);
}

Value toBits(PatternRewriter &rewriter, Location loc, Value bytes) {
  Value zero = LLVM::ZeroOp::create(rewriter, loc, bytes.getType());
  return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne, bytes,
                              zero);
}

struct WidenStore : OpRewritePattern<LLVM::StoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::StoreOp op,
                                PatternRewriter &rewriter) const override {
    if (!byteVectorFor(op.getValue().getType()))
      return rewriter.notifyMatchFailure(op, "not a vector of i1");
    Value bytes = toBytes(rewriter, op.getLoc(), op.getValue());
    rewriter.modifyOpInPlace(op, [&] {
      op.getValueMutable().assign(bytes);
      // Without an alignment LLVM assumes the vector type's own, which a
      // byte buffer does not have.
      if (!op.getAlignment())
        op.setAlignment(1);
    });
    return success();
  }
};

struct WidenLoad : OpRewritePattern<LLVM::LoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LLVM::LoadOp op,
                                PatternRewriter &rewriter) const override {
    VectorType bytesType = byteVectorFor(op.getType());
    if (!bytesType)
      return rewriter.notifyMatchFailure(op, "not a vector of i1");
    auto load = cast<LLVM::LoadOp>(rewriter.clone(*op));
    load.getResult().setType(bytesType);
    if (!load.getAlignment())
      load.setAlignment(1);
    rewriter.replaceOp(op, toBits(rewriter, op.getLoc(), load));
    return success();
  }
};

/// Masked stores and scatters: the stored value is widened, the mask stays.
template <typename OpTy> struct WidenMaskedWrite : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (!byteVectorFor(op.getValue().getType()))
      return rewriter.notifyMatchFailure(op, "not a vector of i1");
    Value bytes = toBytes(rewriter, op.getLoc(), op.getValue());
    rewriter.modifyOpInPlace(op, [&] { op.getValueMutable().assign(bytes); });
    return success();
  }
};

/// Masked loads and gathers: the pass-through value is widened too.
template <typename OpTy> struct WidenMaskedRead : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    VectorType bytesType = byteVectorFor(op.getType());
    if (!bytesType)
      return rewriter.notifyMatchFailure(op, "not a vector of i1");
    Location loc = op.getLoc();
    IRMapping mapping;
    // Operands: pointer(s), mask, then the optional pass-through.
    for (Value passThru : op->getOperands().drop_front(2))
      mapping.map(passThru, toBytes(rewriter, loc, passThru));
    Operation *read = rewriter.clone(*op, mapping);
    read->getResult(0).setType(bytesType);
    rewriter.replaceOp(op, toBits(rewriter, loc, read->getResult(0)));
    return success();
  }
};

struct StoreBoolsAsBytesPass
    : impl::StoreBoolsAsBytesBase<StoreBoolsAsBytesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateStoreBoolsAsBytesPatterns(patterns);
    // One walk: each access is rewritten once and its replacement (bytes)
    // matches no pattern. The greedy driver's folding and region
    // simplification over a whole model's LLVM dialect took a tenth of the
    // lowering time.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace

void populateStoreBoolsAsBytesPatterns(RewritePatternSet &patterns) {
  patterns.add<WidenStore, WidenLoad, WidenMaskedWrite<LLVM::MaskedStoreOp>,
               WidenMaskedWrite<LLVM::masked_scatter>,
               WidenMaskedRead<LLVM::MaskedLoadOp>,
               WidenMaskedRead<LLVM::masked_gather>>(patterns.getContext());
}

} // namespace kiln
