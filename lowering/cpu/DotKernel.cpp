//===- DotKernel.cpp - Packed products as dot-product register tiles ------===//
//
// The products with packed weights of lowering/to-linalg/PackedDot.h,
//
//   acc[m, n] += A[m, kg, j] * W[kg, n, j]   (j < g)
//
// on buffers, become register tiles of a dot-product instruction:
//
//   u8 x s8 -> i32, g = 4    vpdpbusd: each i32 lane adds four products
//                            (AArch64: usdot, or sdot on rows moved to s8)
//   bf16 x bf16 -> f32, g = 2  vdpbf16ps: each f32 lane adds two products
//   f32 x f16 -> f32, g = 1  the f16 weight widened as it is loaded, FMA
//
// (16 columns per vector with AVX-512, 4 with NEON; on CPUs with AMX the
// int8 and bf16 products go to AmxTiles.cpp instead.)
//
//   scf.forall (row chunks, column-panel groups)         threads
//     scf.for panel of NV x 16 columns                  B panel in cache
//       scf.for MR rows of the chunk
//         acc[MR][NV] = 0 (or the buffer's value)
//         scf.for kg
//           b[v] = load W[kg, n0 + 16v, 0:g]            64 bytes (g = 4, 2)
//           a[r] = broadcast of A[m0 + r, kg, 0:g]
//           acc[r][v] = dot(acc[r][v], a[r], b[v])
//         store acc
//   then the rows past the last whole tile and a narrower last panel
//
// MR x NV accumulators plus NV weight vectors fill most of the 32 zmm
// registers. A zero fill of the product's buffer (or a copy of a zero-filled
// one) is dropped: the tiles start from zero instead. The elementwise
// epilogue that follows (scale, bias, residual, activation,
// requantization) runs on the accumulators and stores its own result, so
// the product never reaches memory (DotProduct.h says when it may).
// Forms other than these stay linalg.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/DotProduct.h"
#include "lowering/cpu/Passes.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_DOTKERNEL
#include "lowering/cpu/Passes.h.inc"

namespace {

using namespace kiln::cpu;

constexpr llvm::StringLiteral kSdot = "llvm.aarch64.neon.sdot.v4i32.v16i8";

/// Rows per register tile for `nv` 16-lane column vectors: MR x NV
/// accumulators, NV weight vectors and one broadcast within 32 registers.
int64_t rowsFor(int64_t nv) { return nv >= 4 ? 6 : nv == 3 ? 8 : 12; }

class TileEmitter {
public:
  TileEmitter(OpBuilder &b, Location loc, const DotShape &s, int64_t lanes,
              bool signedRows, bool zeroInit, std::optional<Epilogue> epilogue)
      : b(b), loc(loc), s(s), lanes(lanes), signedRows(signedRows),
        zeroInit(zeroInit), epilogue(epilogue) {
    // [M, Kg*g] and [Kg, Np*g]: contiguous rows for the vector loads.
    a = memref::CollapseShapeOp::create(
        b, loc, s.a, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    w = memref::CollapseShapeOp::create(
        b, loc, s.b, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  }

  /// With signed rows (sdot: s8 x s8), the rows are read as x - 128 (the
  /// bytes x ^ 0x80), so each column's sums start from 128 * sum_k W[k, n]:
  /// these vectors for the columns [n0, n0 + lanes * nv), none otherwise.
  SmallVector<Value> columnTerms(Value n0, int64_t nv) {
    if (!signedRows)
      return {};
    Type i32 = b.getI32Type(), i8 = b.getI8Type();
    auto accv = VectorType::get({lanes}, i32);
    auto bytes = VectorType::get({lanes * 4}, i8);
    SmallVector<Value> cols, init;
    for (int64_t v = 0; v < nv; ++v) {
      cols.push_back(add(n0, lanes * v));
      init.push_back(arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(accv, b.getZeroAttr(i32))));
    }
    // A row of ones through the same dot product sums the weights.
    Value ones = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(bytes, b.getI8IntegerAttr(1)));
    auto loop = scf::ForOp::create(
        b, loc, index(0), index(s.kg), index(1), init,
        [&](OpBuilder &nb, Location nl, Value kg, ValueRange acc) {
          SmallVector<Value> next;
          for (int64_t v = 0; v < nv; ++v) {
            Value col = arith::MulIOp::create(nb, nl, cols[v], index(4));
            Value wv =
                vector::LoadOp::create(nb, nl, bytes, w, ValueRange{kg, col});
            next.push_back(LLVM::CallIntrinsicOp::create(
                               nb, nl, accv, nb.getStringAttr(kSdot),
                               ValueRange{acc[v], ones, wv})
                               .getResult(0));
          }
          scf::YieldOp::create(nb, nl, next);
        });
    Value shift = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accv, b.getI32IntegerAttr(7)));
    SmallVector<Value> terms;
    for (Value sum : loop.getResults())
      terms.push_back(arith::ShLIOp::create(b, loc, sum, shift));
    return terms;
  }

  /// Rows [m0, m0 + mr) by columns [n0, n0 + lanes * nv); `terms` from
  /// columnTerms (computed here when not given).
  void emitTile(Value m0, int64_t mr, Value n0, int64_t nv,
                std::optional<SmallVector<Value>> terms = std::nullopt) {
    if (!terms)
      terms = columnTerms(n0, nv);
    Type accElt = getElementTypeOrSelf(s.c.getType());
    auto accv = VectorType::get({lanes}, accElt);
    SmallVector<Value> rows, cols, init;
    for (int64_t r = 0; r < mr; ++r)
      rows.push_back(add(m0, r));
    for (int64_t v = 0; v < nv; ++v)
      cols.push_back(add(n0, lanes * v));
    Value zero = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(accv, b.getZeroAttr(accElt)));
    for (int64_t r = 0; r < mr; ++r)
      for (int64_t v = 0; v < nv; ++v) {
        Value start = zero;
        if (!zeroInit)
          start = vector::LoadOp::create(b, loc, accv, s.c,
                                         ValueRange{rows[r], cols[v]});
        if (!terms->empty())
          start = zeroInit ? (*terms)[v]
                           : arith::AddIOp::create(b, loc, start, (*terms)[v])
                                 .getResult();
        init.push_back(start);
      }
    auto loop = scf::ForOp::create(
        b, loc, index(0), index(s.kg), index(1), init,
        [&](OpBuilder &nb, Location nl, Value kg, ValueRange acc) {
          SmallVector<Value> next(acc);
          step(nb, nl, kg, rows, cols, next);
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

  /// One step of g k: every accumulator of the tile takes the products of
  /// its row's g elements with its columns' weights.
  void step(OpBuilder &nb, Location nl, Value kg, ArrayRef<Value> rows,
            ArrayRef<Value> cols, SmallVectorImpl<Value> &acc) {
    int64_t nv = cols.size(), g = s.g;
    Type wElt = getElementTypeOrSelf(s.b.getType());
    Type accElt = getElementTypeOrSelf(s.c.getType());
    auto accv = VectorType::get({lanes}, accElt);
    // One column per lane, g weights each: a whole vector for i8 and bf16.
    auto wv = VectorType::get({lanes * g}, wElt);
    Value k = arith::MulIOp::create(nb, nl, kg, index(g));
    SmallVector<Value> weights;
    for (int64_t v = 0; v < nv; ++v) {
      Value col = arith::MulIOp::create(nb, nl, cols[v], index(g));
      Value w16 = vector::LoadOp::create(nb, nl, wv, w, ValueRange{kg, col});
      if (s.kind == DotKind::F16)
        w16 = arith::ExtFOp::create(nb, nl, accv, w16);
      weights.push_back(w16);
    }
    StringRef intrinsic = s.kind != DotKind::Int8
                              ? "llvm.x86.avx512bf16.dpbf16ps.512"
                          : signedRows ? StringRef(kSdot)
                          : lanes == 4 ? "llvm.aarch64.neon.usdot.v4i32.v16i8"
                                       : "llvm.x86.avx512.vpdpbusd.512";
    for (int64_t r = 0; r < (int64_t)rows.size(); ++r) {
      Value av;
      if (s.kind == DotKind::F16) {
        Value x = memref::LoadOp::create(nb, nl, a, ValueRange{rows[r], k});
        av = vector::BroadcastOp::create(nb, nl, accv, x);
      } else {
        // The row's g elements (4 bytes) in every 32-bit lane.
        Type aElt = getElementTypeOrSelf(s.a.getType());
        Type i32 = nb.getI32Type();
        Value group = vector::LoadOp::create(nb, nl, VectorType::get({g}, aElt),
                                             a, ValueRange{rows[r], k});
        Value word =
            vector::BitCastOp::create(nb, nl, VectorType::get({1}, i32), group);
        Value scalar = vector::ExtractOp::create(nb, nl, word, 0);
        if (signedRows) // u8 to s8 (x - 128) in each byte
          scalar = arith::XOrIOp::create(
              nb, nl, scalar,
              arith::ConstantOp::create(
                  nb, nl,
                  nb.getI32IntegerAttr(static_cast<int32_t>(0x80808080u))));
        Value splat = vector::BroadcastOp::create(
            nb, nl, VectorType::get({lanes}, i32), scalar);
        av = vector::BitCastOp::create(
            nb, nl, VectorType::get({lanes * g}, aElt), splat);
      }
      for (int64_t v = 0; v < nv; ++v) {
        Value &slot = acc[r * nv + v];
        if (s.kind == DotKind::F16)
          slot = vector::FMAOp::create(nb, nl, av, weights[v], slot);
        else
          slot = LLVM::CallIntrinsicOp::create(nb, nl, accv,
                                               nb.getStringAttr(intrinsic),
                                               ValueRange{slot, av, weights[v]})
                     .getResult(0);
      }
    }
  }

  void storeThroughEpilogue(scf::ForOp loop, ArrayRef<Value> rows,
                            ArrayRef<Value> cols) {
    int64_t nv = cols.size();
    storeEpilogueOnVectors(
        b, loc, *epilogue, lanes, rows, cols,
        [&](int64_t r, int64_t v) { return loop.getResult(r * nv + v); });
  }

  /// Whole MR-row tiles of rows [begin, end) (a multiple of mr apart).
  void emitRows(Value begin, Value end, int64_t mr, Value n0, int64_t nv) {
    SmallVector<Value> terms = columnTerms(n0, nv);
    auto loop = scf::ForOp::create(b, loc, begin, end, index(mr));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    emitTile(loop.getInductionVar(), mr, n0, nv, terms);
  }

  /// Rows [begin, end) of panels [p0, p1) of nv vectors each, starting at
  /// column `base`; the rows are whole tiles of `mr`.
  void emitPanels(Value begin, Value end, int64_t mr, Value p0, Value p1,
                  int64_t nv) {
    auto loop = scf::ForOp::create(b, loc, p0, p1, index(1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(loop.getBody()->getTerminator());
    Value n0 = arith::MulIOp::create(b, loc, loop.getInductionVar(),
                                     index(lanes * nv));
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
  int64_t lanes;   // 32-bit lanes per vector: columns per vector
  bool signedRows; // the instruction multiplies s8 by s8 (AArch64 sdot)
  bool zeroInit;
  std::optional<Epilogue> epilogue;
  Value a, w;
};

struct DotKernelPass : impl::DotKernelBase<DotKernelPass> {
  using DotKernelBase::DotKernelBase;

  void runOnOperation() override {
    // AVX-512, or 128-bit AArch64 NEON for the 8-bit product (usdot).
    bool neon = vectorBits == 128 && arch == "aarch64";
    if (vectorBits != 512 && !neon)
      return;
    SmallVector<std::pair<linalg::GenericOp, DotShape>> ops;
    getOperation().walk([&](linalg::GenericOp op) {
      std::optional<DotShape> s = matchDot(op, int8, bf16 && !neon);
      if (s && (!neon || s->kind == DotKind::Int8))
        ops.emplace_back(op, *s);
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, s] : ops)
      rewrite(rewriter, op, s);
  }

  void rewrite(IRRewriter &rewriter, linalg::GenericOp op, const DotShape &s) {
    Location loc = op.getLoc();
    bool zeroStart = takeZeroStart(rewriter, op, s.c);
    std::optional<Epilogue> epilogue =
        zeroStart ? matchEpilogue(op, s) : std::nullopt;
    // Where the epilogue's operands all exist; only views lie in between.
    rewriter.setInsertionPoint(epilogue ? epilogue->op.getOperation()
                                        : op.getOperation());
    bool nested = op->getParentOfType<scf::ForallOp>() != nullptr;
    if (amx && vectorBits == 512 && s.kind != DotKind::F16) {
      // The tiles store the product before the epilogue reads it back and
      // writes the output: the two must not partly overlap.
      if (epilogue && !disjointOrSame(epilogue->out, s.c))
        epilogue = std::nullopt;
      int64_t work = s.m * s.np * s.kg * s.g;
      emitAmxProduct(rewriter, loc, s, /*zeroInit=*/zeroStart, epilogue,
                     /*threads=*/work >= (1 << 20) && !nested);
      rewriter.eraseOp(op);
      if (epilogue)
        rewriter.eraseOp(epilogue->op);
      return;
    }
    int64_t lanes = vectorBits / 32;
    TileEmitter e(rewriter, loc, s, lanes,
                  /*signedRows=*/s.kind == DotKind::Int8 && int8Signed,
                  /*zeroInit=*/zeroStart, epilogue);

    int64_t nv = std::min<int64_t>(4, s.np / lanes);
    int64_t panels = s.np / (lanes * nv), restNv = (s.np / lanes) % nv;
    int64_t mr = std::min(rowsFor(nv), s.m), wholeRows = s.m / mr * mr;
    int64_t tiles = wholeRows / mr;
    // Chunks of rows whose A block stays in L2 (at most 256 KiB), about
    // eight of them for the threads; more column groups when rows are few.
    int64_t kBytes =
        s.kg * s.g *
        (getElementTypeOrSelf(s.a.getType()).getIntOrFloatBitWidth() / 8);
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
    int64_t work = s.m * s.np * s.kg * s.g;
    bool threads = work >= (1 << 18) && rowChunks * colGroups >= 2 && !nested;

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
      Value n0 = e.index(panels * lanes * nv);
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
