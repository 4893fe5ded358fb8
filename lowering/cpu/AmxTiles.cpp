//===- AmxTiles.cpp - Packed products as AMX tile multiplies --------------===//
//
// On CPUs with AMX, the packed bf16 and 8-bit products of DotProduct.h run
// as upstream `amx` dialect tile multiplies: a tile holds 16 rows of 64
// bytes, so the product's layouts are tiles already:
//
//   A tile   16 rows x 16 groups of g (rows [M, Kg*g], row stride K)
//   B tile   16 groups x 16 columns of g (the packed weight [Kg, Np, g])
//   C tile   16 rows x 16 columns of f32 / i32
//
// and tdpbf16ps (tdpbusd for u8 x s8) multiplies them: 16 x 16 x 32 bf16
// products per instruction. Blocks of 2 x 2 C tiles (32 rows x 32 columns)
// use all eight tile registers: two A and two B tiles per step of 16
// groups. Only the three full shapes are used, so one tile configuration
// serves the whole function: the last K step reads A and B through
// zero-padded copies of their tails, and the rows past the last whole tile
// are copied to a zero-padded 16-row buffer first. The C tiles go to the
// product's buffer; the epilogue, where there is one, then runs on those
// values while they are in L1 and writes the output.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/DotProduct.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln::cpu {
namespace {

class AmxEmitter {
public:
  AmxEmitter(RewriterBase &b, Location loc, const DotShape &s, bool zeroInit,
             std::optional<Epilogue> epilogue)
      : b(b), loc(loc), s(s), zeroInit(zeroInit), epilogue(epilogue) {
    aElt = getElementTypeOrSelf(s.a.getType());
    cElt = getElementTypeOrSelf(s.c.getType());
    kFull = s.kg / 16 * 16;
    kTail = s.kg - kFull;
    abTile = amx::TileType::get({16, 16 * s.g}, aElt);
    cTile = amx::TileType::get({16, 16}, cElt);
    a = memref::CollapseShapeOp::create(
        b, loc, s.a, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    w = memref::CollapseShapeOp::create(
        b, loc, s.b, SmallVector<ReassociationIndices>{{0}, {1, 2}});
    // The weight's last K groups, zero-padded to a whole tile: [16, Np*g].
    if (kTail) {
      wTail = zeroBuffer(MemRefType::get({16, s.np * s.g}, aElt), false);
      linalg::CopyOp::create(b, loc, subview(w, kFull, 0, {kTail, s.np * s.g}),
                             subview(wTail, 0, 0, {kTail, s.np * s.g}));
    }
  }

  /// Rows [rowBase, rowBase + 16 * rt) of `rows` by columns [n0, n0 + 16 *
  /// ct); `aTail` (rt buffers [16, 16g], zero past the tail) stages the A
  /// tail, or is empty when `rows` is padded to whole tiles itself. Stores
  /// the C tiles at rows cRow... of `cMem`.
  void emitBlock(Value rows, Value rowBase, int64_t rt, Value n0, int64_t ct,
                 ArrayRef<Value> aTail, Value cMem, Value cRow) {
    // The tiles start from zero, or from what the product's buffer holds.
    SmallVector<Value> acc;
    for (int64_t r = 0; r < rt; ++r)
      for (int64_t c = 0; c < ct; ++c) {
        if (zeroInit) {
          acc.push_back(amx::TileZeroOp::create(b, loc, cTile));
          continue;
        }
        Value row = arith::AddIOp::create(b, loc, cRow, index(b, 16 * r));
        Value col = arith::AddIOp::create(b, loc, n0, index(b, 16 * c));
        acc.push_back(
            amx::TileLoadOp::create(b, loc, cTile, cMem, ValueRange{row, col}));
      }
    auto step = [&](OpBuilder &nb, Location nl, ValueRange in,
                    function_ref<Value(int64_t)> loadA,
                    function_ref<Value(int64_t)> loadB) {
      SmallVector<Value> av, bv, out(in);
      for (int64_t r = 0; r < rt; ++r)
        av.push_back(loadA(r));
      for (int64_t c = 0; c < ct; ++c)
        bv.push_back(loadB(c));
      for (int64_t r = 0; r < rt; ++r)
        for (int64_t c = 0; c < ct; ++c) {
          Value &slot = out[r * ct + c];
          if (s.kind == DotKind::Int8)
            slot = amx::TileMulIOp::create(nb, nl, cTile, av[r], bv[c], slot,
                                           /*isZextLhs=*/true,
                                           /*isZextRhs=*/false);
          else
            slot = amx::TileMulFOp::create(nb, nl, cTile, av[r], bv[c], slot);
        }
      return out;
    };
    auto colOf = [&](OpBuilder &nb, Location nl, int64_t c) {
      Value n = arith::AddIOp::create(nb, nl, n0, index(nb, 16 * c));
      return arith::MulIOp::create(nb, nl, n, index(nb, s.g)).getResult();
    };
    if (kFull) {
      auto loop = scf::ForOp::create(
          b, loc, index(b, 0), index(b, kFull), index(b, 16), acc,
          [&](OpBuilder &nb, Location nl, Value kg, ValueRange in) {
            Value k = arith::MulIOp::create(nb, nl, kg, index(nb, s.g));
            auto loadA = [&](int64_t r) -> Value {
              Value row =
                  arith::AddIOp::create(nb, nl, rowBase, index(nb, 16 * r));
              return amx::TileLoadOp::create(nb, nl, abTile, rows,
                                             ValueRange{row, k});
            };
            auto loadB = [&](int64_t c) -> Value {
              return amx::TileLoadOp::create(nb, nl, abTile, w,
                                             ValueRange{kg, colOf(nb, nl, c)});
            };
            scf::YieldOp::create(nb, nl, step(nb, nl, in, loadA, loadB));
          });
      acc = loop.getResults();
    }
    if (kTail) {
      auto loadA = [&](int64_t r) -> Value {
        if (aTail.empty())
          return amx::TileLoadOp::create(
              b, loc, abTile, rows,
              ValueRange{
                  arith::AddIOp::create(b, loc, rowBase, index(b, 16 * r)),
                  index(b, kFull * s.g)});
        Value dst = subview(aTail[r], 0, 0, {16, kTail * s.g});
        linalg::CopyOp::create(
            b, loc,
            subview(rows,
                    {arith::AddIOp::create(b, loc, rowBase, index(b, 16 * r)),
                     index(b, kFull * s.g)},
                    {16, kTail * s.g}),
            dst);
        return amx::TileLoadOp::create(b, loc, abTile, aTail[r],
                                       ValueRange{index(b, 0), index(b, 0)});
      };
      auto loadB = [&](int64_t c) -> Value {
        return amx::TileLoadOp::create(
            b, loc, abTile, wTail, ValueRange{index(b, 0), colOf(b, loc, c)});
      };
      acc = step(b, loc, acc, loadA, loadB);
    }
    for (int64_t r = 0; r < rt; ++r)
      for (int64_t c = 0; c < ct; ++c) {
        Value row = arith::AddIOp::create(b, loc, cRow, index(b, 16 * r));
        Value col = arith::AddIOp::create(b, loc, n0, index(b, 16 * c));
        amx::TileStoreOp::create(b, loc, cMem, ValueRange{row, col},
                                 acc[r * ct + c]);
      }
  }

  /// The epilogue on rows [m0, m0 + count) of `cMem` (from row cRow) and
  /// column vectors [n0, n0 + 16 * nv), written to output rows m0...
  void applyEpilogue(Value cMem, Value cRow, Value m0, int64_t count, Value n0,
                     int64_t nv) {
    auto accv = VectorType::get({16}, cElt);
    SmallVector<Value> outRows, cRows, cols;
    for (int64_t r = 0; r < count; ++r) {
      outRows.push_back(arith::AddIOp::create(b, loc, m0, index(b, r)));
      cRows.push_back(arith::AddIOp::create(b, loc, cRow, index(b, r)));
    }
    for (int64_t v = 0; v < nv; ++v)
      cols.push_back(arith::AddIOp::create(b, loc, n0, index(b, 16 * v)));
    storeEpilogueOnVectors(b, loc, *epilogue, /*lanes=*/16, outRows, cols,
                           [&](int64_t r, int64_t v) -> Value {
                             return vector::LoadOp::create(
                                 b, loc, accv, cMem,
                                 ValueRange{cRows[r], cols[v]});
                           });
  }

  /// Whole 32-row blocks [begin, end) by 32-column panels [p0, p1).
  void emitMain(Value begin, Value end, Value p0, Value p1) {
    // Per thread, outside the loops: the A tails of a block.
    SmallVector<Value> aTail = aTails(2);
    auto panels = scf::ForOp::create(b, loc, p0, p1, index(b, 1));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(panels.getBody()->getTerminator());
    Value n0 =
        arith::MulIOp::create(b, loc, panels.getInductionVar(), index(b, 32));
    emitRowBlocks(begin, end, 2, n0, 2, aTail);
  }

  /// Rows [begin, end), blocks of `rt` whole 16-row tiles, by `ct` column
  /// tiles from n0; `aTail` from aTails(rt), made outside any loop.
  void emitRowBlocks(Value begin, Value end, int64_t rt, Value n0, int64_t ct,
                     ArrayRef<Value> aTail) {
    auto blocks = scf::ForOp::create(b, loc, begin, end, index(b, 16 * rt));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(blocks.getBody()->getTerminator());
    Value m0 = blocks.getInductionVar();
    emitBlock(a, m0, rt, n0, ct, aTail, s.c, m0);
    if (epilogue)
      applyEpilogue(s.c, m0, m0, 16 * rt, n0, ct);
  }

  /// The last `count` (< 16) rows from `m0`: copied to a zero-padded
  /// 16-row buffer, multiplied, the valid rows stored.
  void emitTailRows(int64_t m0, int64_t count) {
    int64_t kPadded = (kFull + (kTail ? 16 : 0)) * s.g;
    Value rows = zeroBuffer(MemRefType::get({16, kPadded}, aElt), false);
    linalg::CopyOp::create(b, loc, subview(a, m0, 0, {count, s.kg * s.g}),
                           subview(rows, 0, 0, {count, s.kg * s.g}));
    Value cTmp =
        memref::AllocOp::create(b, loc, MemRefType::get({16, s.np}, cElt));
    if (!zeroInit)
      linalg::CopyOp::create(b, loc, subview(s.c, m0, 0, {count, s.np}),
                             subview(cTmp, 0, 0, {count, s.np}));
    Value zero = index(b, 0);
    for (int64_t t = 0; t < s.np / 16; ++t)
      emitBlock(rows, zero, 1, index(b, 16 * t), 1, {}, cTmp, zero);
    if (epilogue) {
      applyEpilogue(cTmp, zero, index(b, m0), count, zero, s.np / 16);
    } else {
      linalg::CopyOp::create(b, loc, subview(cTmp, 0, 0, {count, s.np}),
                             subview(s.c, m0, 0, {count, s.np}));
    }
    memref::DeallocOp::create(b, loc, cTmp);
  }

  Value index(OpBuilder &nb, int64_t v) {
    return arith::ConstantIndexOp::create(nb, loc, v);
  }

  /// Buffers made here and freed at the end of the product.
  SmallVector<Value> heapBuffers;

  /// `n` zero-filled stack buffers for A tails (none without a K tail).
  SmallVector<Value> aTails(int64_t n) {
    SmallVector<Value> bufs;
    for (int64_t i = 0; kTail && i < n; ++i)
      bufs.push_back(
          zeroBuffer(MemRefType::get({16, 16 * s.g}, aElt), /*stack=*/true));
    return bufs;
  }

private:
  /// A zero-filled buffer: on the stack (`stack`, small, per thread) or
  /// the heap (freed by the caller through heapBuffers).
  Value zeroBuffer(MemRefType type, bool stack) {
    Value buf = stack ? memref::AllocaOp::create(b, loc, type).getResult()
                      : memref::AllocOp::create(b, loc, type).getResult();
    if (!stack)
      heapBuffers.push_back(buf);
    Value zero =
        arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
    linalg::FillOp::create(b, loc, ValueRange{zero}, ValueRange{buf});
    return buf;
  }

  Value subview(Value mem, ArrayRef<OpFoldResult> offsets,
                ArrayRef<int64_t> sizes) {
    SmallVector<OpFoldResult> sz, st;
    for (int64_t v : sizes) {
      sz.push_back(b.getIndexAttr(v));
      st.push_back(b.getIndexAttr(1));
    }
    return memref::SubViewOp::create(b, loc, mem, offsets, sz, st);
  }
  Value subview(Value mem, ArrayRef<Value> offsets, ArrayRef<int64_t> sizes) {
    return subview(mem, getAsOpFoldResult(offsets), sizes);
  }
  Value subview(Value mem, int64_t row, int64_t col, ArrayRef<int64_t> sizes) {
    return subview(
        mem, ArrayRef<OpFoldResult>{b.getIndexAttr(row), b.getIndexAttr(col)},
        sizes);
  }

  RewriterBase &b;
  Location loc;
  const DotShape &s;
  bool zeroInit;
  std::optional<Epilogue> epilogue;
  Type aElt, cElt;
  int64_t kFull, kTail;
  amx::TileType abTile, cTile;
  Value a, w, wTail;
};

} // namespace

void emitAmxProduct(RewriterBase &b, Location loc, const DotShape &s,
                    bool zeroInit, std::optional<Epilogue> epilogue,
                    bool threads) {
  AmxEmitter e(b, loc, s, zeroInit, epilogue);
  int64_t tiles = s.m / 16, blocks = tiles / 2, colTiles = s.np / 16;
  int64_t panels = colTiles / 2;
  // About eight pieces of work for the threads: chunks of 32-row blocks,
  // and column groups where blocks are few.
  int64_t blocksPerChunk = std::max<int64_t>(1, llvm::divideCeil(blocks, 8));
  int64_t rowChunks =
      std::max<int64_t>(1, llvm::divideCeil(blocks, blocksPerChunk));
  int64_t colGroups =
      rowChunks >= 8
          ? 1
          : std::max<int64_t>(
                1, std::min<int64_t>(panels, llvm::divideCeil(8, rowChunks)));
  int64_t panelsPerGroup =
      std::max<int64_t>(1, llvm::divideCeil(panels, colGroups));
  colGroups = std::max<int64_t>(1, llvm::divideCeil(panels, panelsPerGroup));
  if (blocks > 0 && panels > 0) {
    auto forall = scf::ForallOp::create(
        b, loc, getAsIndexOpFoldResult(b.getContext(), {rowChunks, colGroups}),
        ValueRange{}, std::nullopt);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(forall.getBody()->getTerminator());
      Value begin = arith::MulIOp::create(b, loc, forall.getInductionVar(0),
                                          e.index(b, blocksPerChunk * 32));
      Value end = arith::MinSIOp::create(
          b, loc,
          arith::AddIOp::create(b, loc, begin, e.index(b, blocksPerChunk * 32)),
          e.index(b, blocks * 32));
      Value p0 = arith::MulIOp::create(b, loc, forall.getInductionVar(1),
                                       e.index(b, panelsPerGroup));
      Value p1 = arith::MinSIOp::create(
          b, loc, arith::AddIOp::create(b, loc, p0, e.index(b, panelsPerGroup)),
          e.index(b, panels));
      e.emitMain(begin, end, p0, p1);
    }
    if (!threads || rowChunks * colGroups < 2)
      (void)scf::forallToForLoop(b, forall);
  }
  // The odd column tile of the whole blocks, then the odd 16-row tile,
  // then the rows past it.
  if (blocks > 0 && colTiles % 2)
    e.emitRowBlocks(e.index(b, 0), e.index(b, blocks * 32), 2,
                    e.index(b, panels * 32), 1, e.aTails(2));
  if (tiles % 2) {
    SmallVector<Value> aTail = e.aTails(1);
    for (int64_t t = 0; t < colTiles; t += 2)
      e.emitRowBlocks(e.index(b, blocks * 32), e.index(b, tiles * 16), 1,
                      e.index(b, 16 * t), std::min<int64_t>(2, colTiles - t),
                      aTail);
  }
  if (s.m % 16)
    e.emitTailRows(tiles * 16, s.m % 16);
  for (Value buf : e.heapBuffers)
    memref::DeallocOp::create(b, loc, buf);
}

} // namespace kiln::cpu
