//===- DotProduct.cpp - Packed products for dot-product kernels -----------===//

#include "lowering/cpu/DotProduct.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>

using namespace mlir;

namespace kiln::cpu {
namespace {

bool hasStrides(MemRefType t, ArrayRef<int64_t> inner) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)))
    return false;
  return ArrayRef<int64_t>(strides).take_back(inner.size()) == inner;
}

/// True when the body is `out + zext(a) * sext(b)` in i32 (int8), `out +
/// extf(a) * extf(b)` (bf16) or `out + a * extf(b)` (f16) in f32.
bool isDotBody(linalg::GenericOp op, DotKind kind) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Operation *add = yield.getOperand(0).getDefiningOp();
  if (!add || !isa<arith::AddIOp, arith::AddFOp>(add) ||
      isa<arith::AddIOp>(add) != (kind == DotKind::Int8) ||
      body.getOperations().size() != (kind == DotKind::F16 ? 4u : 5u))
    return false;
  Value acc = body.getArgument(2);
  Value lhs = add->getOperand(0), rhs = add->getOperand(1);
  if (lhs != acc && rhs != acc)
    return false;
  Operation *mul = (lhs == acc ? rhs : lhs).getDefiningOp();
  if (!mul || !isa<arith::MulIOp, arith::MulFOp>(mul))
    return false;
  // The operand each side reads: `v` itself, or what an extension of the
  // expected kind extends.
  auto source = [&](Value v, bool extended, bool isSigned) -> Value {
    if (!extended)
      return v;
    Operation *def = v.getDefiningOp();
    if (kind != DotKind::Int8)
      return isa_and_nonnull<arith::ExtFOp>(def) ? def->getOperand(0) : Value();
    if (isSigned)
      return isa_and_nonnull<arith::ExtSIOp>(def) ? def->getOperand(0)
                                                  : Value();
    return isa_and_nonnull<arith::ExtUIOp>(def) ? def->getOperand(0) : Value();
  };
  bool extendA = kind != DotKind::F16;
  Value a0 = body.getArgument(0), b0 = body.getArgument(1);
  Value x = mul->getOperand(0), y = mul->getOperand(1);
  return (source(x, extendA, false) == a0 && source(y, true, true) == b0) ||
         (source(y, extendA, false) == a0 && source(x, true, true) == b0);
}

/// The bytes a buffer may occupy: a base (an arena, an allocation, an
/// argument) and a range in it, the whole base where unknown. `exact` when
/// the buffer is that whole range (reached through reshapes only, not
/// through a subview of it).
struct Extent {
  Value base;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
  bool exact = false;
};

Extent getExtent(Value v) {
  bool reshapesOnly = true;
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto type = cast<MemRefType>(view.getType());
      std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
      if (!offset || !type.hasStaticShape())
        return {view.getSource()};
      return {view.getSource(), *offset,
              *offset +
                  type.getNumElements() * (type.getElementTypeBitWidth() / 8),
              reshapesOnly};
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    reshapesOnly &= isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def);
    v = viewLike.getViewSource();
  }
  return {v};
}

/// True when `a` and `b` ([M, N] each, elements of one width) are known to
/// be the same bytes: element (m, n) of one lies where it lies in the other.
bool sameExtent(Value a, Value b) {
  Extent x = getExtent(a), y = getExtent(b);
  auto at = cast<MemRefType>(a.getType()), bt = cast<MemRefType>(b.getType());
  return x.exact && y.exact && x.base == y.base && x.begin == y.begin &&
         x.end == y.end && at.getShape() == bt.getShape() &&
         at.getLayout() == bt.getLayout() &&
         at.getElementTypeBitWidth() == bt.getElementTypeBitWidth();
}

/// False when the memory plan may have put `a` and `b` in the same bytes.
bool provablyDisjoint(Value a, Value b) {
  Extent x = getExtent(a), y = getExtent(b);
  if (x.base != y.base)
    return true;
  return x.end <= y.begin || y.end <= x.begin;
}

} // namespace

std::optional<DotShape> matchDot(linalg::GenericOp op, bool int8, bool bf16) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4)
    return std::nullopt;
  using utils::IteratorType;
  if (op.getIteratorTypesArray() !=
      SmallVector<IteratorType>{IteratorType::parallel, IteratorType::parallel,
                                IteratorType::reduction,
                                IteratorType::reduction})
    return std::nullopt;
  MLIRContext *ctx = op.getContext();
  AffineExpr m, n, k, j;
  bindDims(ctx, m, n, k, j);
  if (op.getIndexingMapsArray() !=
      SmallVector<AffineMap>{AffineMap::get(4, 0, {m, k, j}, ctx),
                             AffineMap::get(4, 0, {k, n, j}, ctx),
                             AffineMap::get(4, 0, {m, n}, ctx)})
    return std::nullopt;
  auto at = dyn_cast<MemRefType>(op.getDpsInputs()[0].getType());
  auto bt = dyn_cast<MemRefType>(op.getDpsInputs()[1].getType());
  auto ct = dyn_cast<MemRefType>(op.getDpsInits()[0].getType());
  if (!at || !bt || !ct || !at.hasStaticShape() || !bt.hasStaticShape() ||
      !ct.hasStaticShape())
    return std::nullopt;
  Type ae = at.getElementType(), be = bt.getElementType(),
       ce = ct.getElementType();
  std::optional<DotKind> kind;
  if (ae.isInteger(8) && be.isInteger(8) && ce.isInteger(32) && int8)
    kind = DotKind::Int8;
  else if (ae.isBF16() && be.isBF16() && ce.isF32() && bf16)
    kind = DotKind::BF16;
  else if (ae.isF32() && be.isF16() && ce.isF32())
    kind = DotKind::F16;
  if (!kind)
    return std::nullopt;
  int64_t g = *kind == DotKind::Int8 ? 4 : *kind == DotKind::BF16 ? 2 : 1;
  DotShape s{
      *kind, at.getDimSize(0),     at.getDimSize(1),     bt.getDimSize(1),
      g,     op.getDpsInputs()[0], op.getDpsInputs()[1], op.getDpsInits()[0]};
  if (at.getDimSize(2) != g || s.np % 16 != 0 || s.m == 0 || s.kg == 0 ||
      !hasStrides(at, {g, 1}) || !hasStrides(bt, {s.np * g, g, 1}) ||
      !hasStrides(ct, {1}) || !isDotBody(op, *kind))
    return std::nullopt;
  return s;
}

bool disjointOrSame(Value a, Value b) {
  return provablyDisjoint(a, b) || sameExtent(a, b);
}

std::optional<Epilogue> matchEpilogue(linalg::GenericOp dot,
                                      const DotShape &s) {
  // Views, constants and the like (the arena views of the memory plan) may
  // stand between them; anything with effects may not.
  Value acc = s.c;
  Operation *next = dot->getNextNode();
  auto skipPure = [&](Operation *op) {
    while (op && (isMemoryEffectFree(op) || isa<memref::AllocOp>(op)) &&
           !isa<linalg::GenericOp>(op) &&
           !llvm::is_contained(op->getOperands(), s.c))
      op = op->getNextNode();
    return op;
  };
  next = skipPure(next);
  if (auto view = dyn_cast_or_null<memref::SubViewOp>(next)) {
    if (view.getSource() != s.c ||
        !llvm::all_of(view.getStaticOffsets(),
                      [](int64_t o) { return o == 0; }) ||
        !llvm::all_of(view.getStaticStrides(),
                      [](int64_t st) { return st == 1; }))
      return std::nullopt;
    acc = view.getResult();
    next = skipPure(view->getNextNode());
  }
  auto epi = dyn_cast_or_null<linalg::GenericOp>(next);
  if (!epi || !epi.hasPureBufferSemantics() || epi.getNumLoops() != 2 ||
      epi.getNumParallelLoops() != 2 || epi.getNumDpsInits() != 1 ||
      llvm::count(epi.getDpsInputs(), acc) != 1 ||
      !linalg::hasOnlyScalarElementwiseOp(epi.getRegion()) ||
      epi.payloadUsesValueFromOperand(epi.getDpsInitOperand(0)))
    return std::nullopt;
  unsigned accIndex = 0;
  while (epi.getDpsInputs()[accIndex] != acc)
    ++accIndex;
  auto outTy = dyn_cast<MemRefType>(epi.getDpsInits()[0].getType());
  auto accTy = cast<MemRefType>(acc.getType());
  if (!outTy || !outTy.hasStaticShape() ||
      outTy.getShape() != accTy.getShape() || !outTy.isLastDimUnitStride() ||
      !(outTy.getElementType().isF32() || outTy.getElementType().isInteger(8)))
    return std::nullopt;
  MLIRContext *ctx = dot.getContext();
  AffineMap rowCol = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap col = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  // Besides the product, per-column parameters and whole [M, N] operands
  // (a residual added after the product, read at each output element).
  Value out = epi.getDpsInits()[0];
  for (OpOperand &operand : epi->getOpOperands()) {
    AffineMap map = epi.getMatchingIndexingMap(&operand);
    bool own =
        operand.getOperandNumber() == accIndex || epi.isDpsInit(&operand);
    if (map != rowCol && (own || map != col))
      return std::nullopt;
    auto t = cast<MemRefType>(operand.get().getType());
    if (own)
      continue;
    if (!t.hasStaticShape() || !t.isLastDimUnitStride() ||
        (map == rowCol && t.getShape() != outTy.getShape()))
      return std::nullopt;
    // A whole operand is read where the output is written: the same bytes
    // or none of them.
    if (map == rowCol && !disjointOrSame(operand.get(), out))
      return std::nullopt;
  }
  // The tiles write the output while the product's rows are still being
  // read: the memory plan, which saw them one after the other, may have
  // reused the rows' bytes for it.
  if (!provablyDisjoint(epi.getDpsInits()[0], s.a))
    return std::nullopt;
  // Nothing after the epilogue may read the product: the next op to touch
  // its buffer (which the memory plan may have given to another tensor)
  // writes it whole or frees it.
  if (Operation *later = cpu::getNextUser(epi, s.c)) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(later);
    bool overwrites = isa<linalg::FillOp, linalg::CopyOp>(later) && dps &&
                      dps.getDpsInits()[0] == s.c &&
                      !llvm::is_contained(dps.getDpsInputs(), s.c);
    if (!overwrites && !isa<memref::DeallocOp>(later))
      return std::nullopt;
  }
  return Epilogue{epi, outTy.getDimSize(1), out, accIndex};
}

/// A `linalg.fill` of zero into `buffer`.
static bool isZeroFill(Operation *op, Value buffer) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op);
  return fill && fill.getDpsInits()[0] == buffer &&
         (matchPattern(fill.getInputs()[0], m_Zero()) ||
          matchPattern(fill.getInputs()[0], m_AnyZeroFloat()));
}

bool takeZeroStart(RewriterBase &rewriter, Operation *op, Value c) {
  Operation *prev = cpu::getPreviousUser(op, c);
  if (isZeroFill(prev, c)) {
    rewriter.eraseOp(prev);
    return true;
  }
  // Products of one shape share one zero-filled tensor (CSE merges their
  // fills), which bufferization copies into each product's buffer.
  auto copy = dyn_cast_or_null<linalg::CopyOp>(prev);
  if (!copy || copy.getOutputs()[0] != c)
    return false;
  Value zeros = copy.getInputs()[0];
  Operation *source = cpu::getPreviousUser(copy, zeros);
  // Only other copies may read it in between.
  while (auto other = dyn_cast_or_null<linalg::CopyOp>(source)) {
    if (other.getInputs()[0] != zeros || other.getOutputs()[0] == zeros)
      return false;
    source = cpu::getPreviousUser(other, zeros);
  }
  if (!isZeroFill(source, zeros))
    return false;
  rewriter.eraseOp(copy);
  return true;
}

/// The epilogue's body on each accumulator vector, its result stored to
/// the epilogue's output; columns past N are masked off.
void storeEpilogueOnVectors(OpBuilder &b, Location loc,
                            const Epilogue &epilogue, int64_t lanes,
                            ArrayRef<Value> rows, ArrayRef<Value> cols,
                            llvm::function_ref<Value(int64_t, int64_t)> acc) {
  linalg::GenericOp epi = epilogue.op;
  Block &body = epi.getRegion().front();
  int64_t nv = cols.size();
  bool ragged = epilogue.n % lanes != 0;
  auto vec = [&](Type t) { return VectorType::get({lanes}, t); };
  for (int64_t v = 0; v < nv; ++v) {
    Value mask;
    if (ragged)
      mask = vector::CreateMaskOp::create(
          b, loc, vec(b.getI1Type()),
          ValueRange{arith::SubIOp::create(
              b, loc, arith::ConstantIndexOp::create(b, loc, epilogue.n),
              cols[v])});
    auto load = [&](Value mem, ValueRange idx) -> Value {
      Type t = vec(getElementTypeOrSelf(mem.getType()));
      if (!mask)
        return vector::LoadOp::create(b, loc, t, mem, idx);
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
      return vector::MaskedLoadOp::create(b, loc, t, mem, idx, mask, zero);
    };
    // Per-column parameters, once per column vector; whole operands per
    // row below.
    IRMapping params;
    SmallVector<unsigned> whole;
    for (unsigned i = 0; i < epi.getNumDpsInputs(); ++i) {
      if (i == epilogue.accIndex)
        continue;
      if (epi.getIndexingMapsArray()[i].getNumResults() == 2)
        whole.push_back(i);
      else
        params.map(body.getArgument(i),
                   load(epi.getDpsInputs()[i], ValueRange{cols[v]}));
    }
    for (int64_t r = 0; r < (int64_t)rows.size(); ++r) {
      IRMapping map = params;
      map.map(body.getArgument(epilogue.accIndex), acc(r, v));
      for (unsigned i : whole)
        map.map(body.getArgument(i),
                load(epi.getDpsInputs()[i], ValueRange{rows[r], cols[v]}));
      for (Operation &inner : body.without_terminator()) {
        SmallVector<Value> operands;
        for (Value operand : inner.getOperands()) {
          if (Value m = map.lookupOrNull(operand)) {
            operands.push_back(m);
            continue;
          }
          // A scalar from outside the row, or a constant: splat it.
          Value scalar = operand;
          if (auto c = operand.getDefiningOp<arith::ConstantOp>();
              c && c->getBlock() == &body)
            scalar = b.clone(*c)->getResult(0);
          operands.push_back(vector::BroadcastOp::create(
              b, loc, vec(operand.getType()), scalar));
        }
        if (isa<arith::ConstantOp>(inner))
          continue;
        OperationState state(loc, inner.getName(), operands,
                             TypeRange{vec(inner.getResult(0).getType())},
                             inner.getAttrs());
        map.map(inner.getResult(0), b.create(state)->getResult(0));
      }
      Value result = map.lookup(body.getTerminator()->getOperand(0));
      SmallVector<Value> idx = {rows[r], cols[v]};
      if (mask)
        vector::MaskedStoreOp::create(b, loc, epilogue.out, idx, mask, result);
      else
        vector::StoreOp::create(b, loc, result, epilogue.out, idx);
    }
  }
}

} // namespace kiln::cpu
