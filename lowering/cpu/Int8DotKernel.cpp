//===- Int8DotKernel.cpp - 8-bit products as vpdpbusd register tiles ------===//
//
// The integer product of QuantizedContraction.cpp,
//
//   acc[m, n] += zext(A[m, k4, j]) * sext(W[k4, n, j])   (j < 4)
//
// on buffers, becomes register tiles of the 8-bit dot-product instruction
// (x86 vpdpbusd: each i32 lane adds four u8 x s8 products):
//
//   scf.forall (row chunks, column-panel groups)         threads
//     scf.for panel of NV x 16 columns                  B panel in cache
//       scf.for MR rows of the chunk
//         acc[MR][NV] = 0 (or the buffer's value)
//         scf.for k4
//           b[v] = load W[k4, n0 + 16v, 0:4]            64 bytes each
//           a[r] = broadcast of the 4 bytes A[m0 + r, k4, 0:4]
//           acc[r][v] = vpdpbusd(acc[r][v], a[r], b[v])
//         store acc
//   then the rows past the last whole tile and a narrower last panel
//
// MR x NV accumulators plus NV weight vectors fill most of the 32 zmm
// registers. A `linalg.fill` of zero right before the product is dropped:
// the tiles start from zero instead. The elementwise epilogue that follows
// (scale, bias, activation, requantization) runs on the accumulators and
// stores its own result, so the i32 product never reaches memory; not
// where the memory plan may have laid that result over the product's rows.
// Forms other than this one stay linalg.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include <limits>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_INT8DOTKERNEL
#include "lowering/cpu/Passes.h.inc"

namespace {

/// The static operands of a product the kernel takes.
struct DotShape {
  int64_t m, k4, np;
  Value a, b, c; // [M, K4, 4] u8, [K4, Np, 4] i8, [M, Np] i32
};

bool hasStrides(MemRefType t, ArrayRef<int64_t> inner) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(t.getStridesAndOffset(strides, offset)))
    return false;
  return ArrayRef<int64_t>(strides).take_back(inner.size()) == inner;
}

/// True when the body is `out + zext(a) * sext(b)` in i32.
bool isU8S8DotBody(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getOperand(0).getDefiningOp<arith::AddIOp>();
  if (!add || body.getOperations().size() != 5)
    return false;
  Value acc = body.getArgument(2);
  Value prod = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto mul = prod.getDefiningOp<arith::MulIOp>();
  if (!mul || (add.getLhs() != acc && add.getRhs() != acc))
    return false;
  auto ext = [&](Value v, bool isSigned) -> Value {
    if (isSigned) {
      auto e = v.getDefiningOp<arith::ExtSIOp>();
      return e ? e.getIn() : Value();
    }
    auto e = v.getDefiningOp<arith::ExtUIOp>();
    return e ? e.getIn() : Value();
  };
  Value a0 = body.getArgument(0), b0 = body.getArgument(1);
  return (ext(mul.getLhs(), false) == a0 && ext(mul.getRhs(), true) == b0) ||
         (ext(mul.getRhs(), false) == a0 && ext(mul.getLhs(), true) == b0);
}

std::optional<DotShape> matchDot(linalg::GenericOp op) {
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
      !ct.hasStaticShape() || !at.getElementType().isInteger(8) ||
      !bt.getElementType().isInteger(8) || !ct.getElementType().isInteger(32))
    return std::nullopt;
  DotShape s{at.getDimSize(0),     at.getDimSize(1),     bt.getDimSize(1),
             op.getDpsInputs()[0], op.getDpsInputs()[1], op.getDpsInits()[0]};
  if (at.getDimSize(2) != 4 || s.np % 16 != 0 || s.m == 0 || s.k4 == 0 ||
      !hasStrides(at, {4, 1}) || !hasStrides(bt, {s.np * 4, 4, 1}) ||
      !hasStrides(ct, {1}) || !isU8S8DotBody(op))
    return std::nullopt;
  return s;
}

/// The elementwise op after the product that reads its i32 result (all of
/// it, or its first N columns through a subview) with per-column
/// parameters: the requantization epilogue of QuantizedContraction.cpp. The
/// tiles apply it to their accumulators and store its result instead, so
/// the i32 product never goes to memory.
struct Epilogue {
  linalg::GenericOp op;
  int64_t n; // columns written
  Value out; // [M, N] f32 or i8, unit stride along N
};

/// The bytes a buffer may occupy: a base (an arena, an allocation, an
/// argument) and a range in it, the whole base where unknown.
struct Extent {
  Value base;
  int64_t begin = 0, end = std::numeric_limits<int64_t>::max();
};

Extent getExtent(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto type = cast<MemRefType>(view.getType());
      std::optional<int64_t> offset = getConstantIntValue(view.getByteShift());
      if (!offset || !type.hasStaticShape())
        return {view.getSource()};
      return {view.getSource(), *offset,
              *offset +
                  type.getNumElements() * (type.getElementTypeBitWidth() / 8)};
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(def);
    if (!viewLike)
      break;
    v = viewLike.getViewSource();
  }
  return {v};
}

/// False when the memory plan may have put `a` and `b` in the same bytes.
bool provablyDisjoint(Value a, Value b) {
  Extent x = getExtent(a), y = getExtent(b);
  if (x.base != y.base)
    return true;
  return x.end <= y.begin || y.end <= x.begin;
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
      epi.getDpsInputs().empty() || epi.getDpsInputs()[0] != acc ||
      !linalg::hasOnlyScalarElementwiseOp(epi.getRegion()) ||
      epi.payloadUsesValueFromOperand(epi.getDpsInitOperand(0)))
    return std::nullopt;
  auto outTy = dyn_cast<MemRefType>(epi.getDpsInits()[0].getType());
  auto accTy = cast<MemRefType>(acc.getType());
  if (!outTy || !outTy.hasStaticShape() ||
      outTy.getShape() != accTy.getShape() || !outTy.isLastDimUnitStride() ||
      !(outTy.getElementType().isF32() || outTy.getElementType().isInteger(8)))
    return std::nullopt;
  MLIRContext *ctx = dot.getContext();
  AffineMap rowCol = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap col = AffineMap::get(2, 0, {getAffineDimExpr(1, ctx)}, ctx);
  for (OpOperand &operand : epi->getOpOperands()) {
    AffineMap map = epi.getMatchingIndexingMap(&operand);
    bool first = operand.getOperandNumber() == 0 || epi.isDpsInit(&operand);
    if (map != (first ? rowCol : col))
      return std::nullopt;
    auto t = cast<MemRefType>(operand.get().getType());
    if (!first && (!t.hasStaticShape() || !t.isLastDimUnitStride()))
      return std::nullopt;
  }
  // The tiles write the output while the product's rows are still being
  // read: the memory plan, which saw them one after the other, may have
  // reused the rows' bytes for it.
  if (!provablyDisjoint(epi.getDpsInits()[0], s.a))
    return std::nullopt;
  // Nothing else may read the product.
  for (Operation *user : s.c.getUsers())
    if (user != dot && user != epi && user != acc.getDefiningOp() &&
        !isa<memref::DeallocOp>(user))
      return std::nullopt;
  return Epilogue{epi, outTy.getDimSize(1), epi.getDpsInits()[0]};
}

/// Rows per register tile for `nv` 16-lane column vectors: MR x NV
/// accumulators, NV weight vectors and one broadcast within 32 registers.
int64_t rowsFor(int64_t nv) { return nv >= 4 ? 6 : nv == 3 ? 8 : 12; }

class TileEmitter {
public:
  TileEmitter(OpBuilder &b, Location loc, const DotShape &s, bool zeroInit,
              std::optional<Epilogue> epilogue)
      : b(b), loc(loc), s(s), zeroInit(zeroInit), epilogue(epilogue) {
    // [M, K4*4] and [K4, Np*4]: contiguous rows for the vector loads.
    a = memref::CollapseShapeOp::create(
        b, loc, s.a, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    w = memref::CollapseShapeOp::create(
        b, loc, s.b, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  }

  /// Rows [m0, m0 + mr) by columns [n0, n0 + 16 * nv).
  void emitTile(Value m0, int64_t mr, Value n0, int64_t nv) {
    Type i32v = VectorType::get({16}, b.getI32Type());
    Type i8v = VectorType::get({64}, b.getI8Type());
    SmallVector<Value> rows, cols, init;
    for (int64_t r = 0; r < mr; ++r)
      rows.push_back(add(m0, r));
    for (int64_t v = 0; v < nv; ++v)
      cols.push_back(add(n0, 16 * v));
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(cast<ShapedType>(i32v), 0));
    for (int64_t r = 0; r < mr; ++r)
      for (int64_t v = 0; v < nv; ++v)
        init.push_back(
            zeroInit ? zero
                     : vector::LoadOp::create(b, loc, i32v, s.c,
                                              ValueRange{rows[r], cols[v]})
                           .getResult());
    auto intrin = b.getStringAttr("llvm.x86.avx512.vpdpbusd.512");
    auto loop = scf::ForOp::create(
        b, loc, index(0), index(s.k4), index(1), init,
        [&](OpBuilder &nb, Location nl, Value k4, ValueRange acc) {
          Value k = arith::MulIOp::create(nb, nl, k4, index(4));
          SmallVector<Value> wv;
          for (int64_t v = 0; v < nv; ++v) {
            Value col = arith::MulIOp::create(nb, nl, cols[v], index(4));
            wv.push_back(
                vector::LoadOp::create(nb, nl, i8v, w, ValueRange{k4, col}));
          }
          SmallVector<Value> next(acc);
          for (int64_t r = 0; r < mr; ++r) {
            Value bytes = vector::LoadOp::create(
                nb, nl, VectorType::get({4}, nb.getI8Type()), a,
                ValueRange{rows[r], k});
            Value word = vector::BitCastOp::create(
                nb, nl, VectorType::get({1}, nb.getI32Type()), bytes);
            Value scalar = vector::ExtractOp::create(nb, nl, word, 0);
            Value splat = vector::BroadcastOp::create(nb, nl, i32v, scalar);
            Value av = vector::BitCastOp::create(nb, nl, i8v, splat);
            for (int64_t v = 0; v < nv; ++v) {
              Value &slot = next[r * nv + v];
              slot = LLVM::CallIntrinsicOp::create(nb, nl, i32v, intrin,
                                                   ValueRange{slot, av, wv[v]})
                         .getResult(0);
            }
          }
          scf::YieldOp::create(nb, nl, next);
        });
    if (epilogue) {
      storeThroughEpilogue(loop, rows, cols);
      return;
    }
    for (int64_t r = 0; r < mr; ++r)
      for (int64_t v = 0; v < nv; ++v)
        vector::StoreOp::create(b, loc, loop.getResult(r * nv + v), s.c,
                                ValueRange{rows[r], cols[v]});
  }

  /// The epilogue's body on each accumulator vector, its result stored to
  /// the epilogue's output; columns past N are masked off.
  void storeThroughEpilogue(scf::ForOp loop, ArrayRef<Value> rows,
                            ArrayRef<Value> cols) {
    linalg::GenericOp epi = epilogue->op;
    Block &body = epi.getRegion().front();
    int64_t nv = cols.size();
    bool ragged = epilogue->n % 16 != 0;
    auto vec = [](Type t) { return VectorType::get({16}, t); };
    for (int64_t v = 0; v < nv; ++v) {
      Value mask;
      if (ragged)
        mask = vector::CreateMaskOp::create(
            b, loc, vec(b.getI1Type()),
            ValueRange{
                arith::SubIOp::create(b, loc, index(epilogue->n), cols[v])});
      // Per-column parameters, once per column vector.
      IRMapping params;
      for (unsigned i = 1; i < epi.getNumDpsInputs(); ++i) {
        Value mem = epi.getDpsInputs()[i];
        Type t = vec(getElementTypeOrSelf(mem.getType()));
        Value p;
        if (mask) {
          Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
          p = vector::MaskedLoadOp::create(b, loc, t, mem, ValueRange{cols[v]},
                                           mask, zero);
        } else {
          p = vector::LoadOp::create(b, loc, t, mem, ValueRange{cols[v]});
        }
        params.map(body.getArgument(i), p);
      }
      for (int64_t r = 0; r < (int64_t)rows.size(); ++r) {
        IRMapping map = params;
        map.map(body.getArgument(0), loop.getResult(r * nv + v));
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
          vector::MaskedStoreOp::create(b, loc, epilogue->out, idx, mask,
                                        result);
        else
          vector::StoreOp::create(b, loc, result, epilogue->out, idx);
      }
    }
  }

  /// Whole MR-row tiles of rows [begin, end) (a multiple of mr apart).
  void emitRows(Value begin, Value end, int64_t mr, Value n0, int64_t nv) {
    auto loop = scf::ForOp::create(b, loc, begin, end, index(mr));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    emitTile(loop.getInductionVar(), mr, n0, nv);
  }

  /// Rows [begin, end) of panels [p0, p1) of nv vectors each, starting at
  /// column `base`; the rows are whole tiles of `mr`.
  void emitPanels(Value begin, Value end, int64_t mr, Value p0, Value p1,
                  int64_t nv) {
    auto loop = scf::ForOp::create(b, loc, p0, p1, index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value n0 =
        arith::MulIOp::create(b, loc, loop.getInductionVar(), index(16 * nv));
    emitRows(begin, end, mr, n0, nv);
  }

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value v, int64_t c) {
    return c ? arith::AddIOp::create(b, loc, v, index(c)).getResult() : v;
  }

private:
  OpBuilder &b;
  Location loc;
  const DotShape &s;
  bool zeroInit;
  std::optional<Epilogue> epilogue;
  Value a, w;
};

/// A `linalg.fill` of zero into `c` that is the last op before `op` to touch
/// `c`, if any.
linalg::FillOp findZeroFill(Operation *op, Value c) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(cpu::getPreviousUser(op, c));
  if (!fill || fill.getDpsInits()[0] != c ||
      !matchPattern(fill.getInputs()[0], m_Zero()))
    return {};
  return fill;
}

struct Int8DotKernelPass : impl::Int8DotKernelBase<Int8DotKernelPass> {
  using Int8DotKernelBase::Int8DotKernelBase;

  void runOnOperation() override {
    if (vectorBits != 512)
      return;
    SmallVector<std::pair<linalg::GenericOp, DotShape>> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<DotShape> s = matchDot(op))
        ops.emplace_back(op, *s);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, s] : ops)
      rewrite(rewriter, op, s);
  }

  void rewrite(IRRewriter &rewriter, linalg::GenericOp op, const DotShape &s) {
    Location loc = op.getLoc();
    linalg::FillOp fill = findZeroFill(op, s.c);
    if (fill)
      rewriter.eraseOp(fill);
    std::optional<Epilogue> epilogue =
        fill ? matchEpilogue(op, s) : std::nullopt;
    // Where the epilogue's operands all exist; only views lie in between.
    rewriter.setInsertionPoint(epilogue ? epilogue->op.getOperation()
                                        : op.getOperation());
    TileEmitter e(rewriter, loc, s, /*zeroInit=*/fill != nullptr, epilogue);

    int64_t nv = std::min<int64_t>(4, s.np / 16);
    int64_t panels = s.np / (16 * nv), restNv = (s.np / 16) % nv;
    int64_t mr = std::min(rowsFor(nv), s.m), wholeRows = s.m / mr * mr;
    int64_t tiles = wholeRows / mr;
    // Chunks of rows whose A block stays in L2 (at most 256 KiB), about
    // eight of them for the threads; more column groups when rows are few.
    int64_t kBytes = s.k4 * 4;
    int64_t tilesPerChunk =
        std::max<int64_t>(1, std::min<int64_t>(llvm::divideCeil(tiles, 8),
                                               (256 * 1024) / (kBytes * mr)));
    int64_t rowChunks =
        std::max<int64_t>(1, llvm::divideCeil(tiles, tilesPerChunk));
    int64_t colGroups =
        rowChunks >= 8
            ? 1
            : std::min<int64_t>(panels, llvm::divideCeil(8, rowChunks));
    int64_t panelsPerGroup = llvm::divideCeil(panels, colGroups);
    colGroups = llvm::divideCeil(panels, panelsPerGroup);
    int64_t work = s.m * s.np * s.k4 * 4;
    bool threads = work >= (1 << 18) && rowChunks * colGroups >= 2 &&
                   !op->getParentOfType<scf::ForallOp>();

    if (tiles > 0) {
      auto forall = scf::ForallOp::create(
          rewriter, loc,
          getAsIndexOpFoldResult(&getContext(), {rowChunks, colGroups}),
          ValueRange{}, std::nullopt);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPoint(forall.getBody()->getTerminator());
        Value chunk = forall.getInductionVar(0),
              group = forall.getInductionVar(1);
        Value begin = arith::MulIOp::create(rewriter, loc, chunk,
                                            e.index(tilesPerChunk * mr));
        Value end = arith::MinSIOp::create(rewriter, loc,
                                           e.add(begin, tilesPerChunk * mr),
                                           e.index(wholeRows));
        Value p0 = arith::MulIOp::create(rewriter, loc, group,
                                         e.index(panelsPerGroup));
        Value p1 = arith::MinSIOp::create(
            rewriter, loc, e.add(p0, panelsPerGroup), e.index(panels));
        e.emitPanels(begin, end, mr, p0, p1, nv);
      }
      if (!threads)
        (void)scf::forallToForLoop(rewriter, forall);
    }
    // The rows past the last whole tile, then the narrower last panel.
    if (wholeRows < s.m)
      e.emitPanels(e.index(wholeRows), e.index(s.m), s.m - wholeRows,
                   e.index(0), e.index(panels), nv);
    if (restNv) {
      Value n0 = e.index(panels * 16 * nv);
      int64_t restMr = std::min(rowsFor(restNv), s.m);
      int64_t restWhole = s.m / restMr * restMr;
      if (restWhole)
        e.emitRows(e.index(0), e.index(restWhole), restMr, n0, restNv);
      if (restWhole < s.m)
        e.emitTile(e.index(restWhole), s.m - restWhole, n0, restNv);
    }
    rewriter.eraseOp(op);
    if (epilogue)
      rewriter.eraseOp(epilogue->op);
  }
};

} // namespace
} // namespace kiln
