//===- TensorCoreMatmul.cpp - f32 products as warp-level MMA --------------===//

#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_TENSORCOREMATMUL
#include "lowering/gpu/Passes.h.inc"

namespace {

constexpr int64_t kWarp = 32;
constexpr int64_t kFragM = 16, kFragN = 16, kFragK = 8;
constexpr int64_t kWarpTiles = 2;               // 2x2 fragments per warp
constexpr int64_t kWarpRows = 2, kWarpCols = 2; // warps per block
constexpr int64_t kBlockM = kFragM * kWarpTiles * kWarpRows; // 64
constexpr int64_t kBlockN = kFragN * kWarpTiles * kWarpCols; // 64

/// Row stride of the last two dims of a buffer with a unit inner stride and
/// static strides; 0 when it has neither.
static int64_t rowStride(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(strides[strides.size() - 2]))
    return 0;
  return strides[strides.size() - 2];
}

struct TensorCoreMatmulPass : impl::TensorCoreMatmulBase<TensorCoreMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops)
      rewrite(op);
  }

  void rewrite(linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics() || op->getNumOperands() != 3)
      return;
    // Named products with default indexing only (no transposed operands).
    SmallVector<AffineMap> defaults =
        isa<linalg::MatmulOp>(op.getOperation())
            ? linalg::MatmulOp::getDefaultIndexingMaps(&getContext())
            : linalg::BatchMatmulOp::getDefaultIndexingMaps(&getContext());
    if (!llvm::equal(op.getIndexingMapsArray(), defaults))
      return;
    auto a = cast<MemRefType>(op->getOperand(0).getType());
    auto b = cast<MemRefType>(op->getOperand(1).getType());
    auto c = cast<MemRefType>(op->getOperand(2).getType());
    Type f32 = Float32Type::get(&getContext());
    for (MemRefType t : {a, b, c})
      if (t.getElementType() != f32 || !t.hasStaticShape() || !rowStride(t))
        return;
    int64_t rank = c.getRank();
    int64_t m = c.getDimSize(rank - 2), n = c.getDimSize(rank - 1),
            k = a.getDimSize(rank - 1);
    int64_t batch = rank == 3 ? c.getDimSize(0) : 1;
    if (m % kFragM || n % kFragN || k % kFragK || batch == 0)
      return;

    OpBuilder bld(op);
    Location loc = op.getLoc();
    auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(bb, loc, v);
    };
    Value one = cst(bld, 1);
    auto launch = gpu::LaunchOp::create(
        bld, loc, cst(bld, llvm::divideCeil(n, kBlockN)),
        cst(bld, llvm::divideCeil(m, kBlockM)), cst(bld, batch),
        cst(bld, kWarp * kWarpRows * kWarpCols), one, one);
    Block &body = launch.getBody().front();
    OpBuilder kb = OpBuilder::atBlockBegin(&body);
    auto terminator = gpu::TerminatorOp::create(kb, loc);
    kb.setInsertionPoint(terminator);

    // Operands of this block's batch entry, as 2-D buffers.
    auto matrix = [&](Value v) -> Value {
      if (rank == 2)
        return v;
      auto t = cast<MemRefType>(v.getType());
      SmallVector<OpFoldResult> offsets{launch.getBlockIds().z,
                                        kb.getIndexAttr(0), kb.getIndexAttr(0)};
      SmallVector<OpFoldResult> sizes{kb.getIndexAttr(1),
                                      kb.getIndexAttr(t.getDimSize(1)),
                                      kb.getIndexAttr(t.getDimSize(2))};
      SmallVector<OpFoldResult> strides(3, kb.getIndexAttr(1));
      auto type = memref::SubViewOp::inferRankReducedResultType(
          {t.getDimSize(1), t.getDimSize(2)}, t, offsets, sizes, strides);
      return memref::SubViewOp::create(kb, loc, cast<MemRefType>(type), v,
                                       offsets, sizes, strides);
    };
    Value ma = matrix(op->getOperand(0)), mb = matrix(op->getOperand(1)),
          mc = matrix(op->getOperand(2));

    Value warp = arith::DivUIOp::create(kb, loc, launch.getThreadIds().x,
                                        cst(kb, kWarp));
    Value warpRow = arith::DivUIOp::create(kb, loc, warp, cst(kb, kWarpCols));
    Value warpCol = arith::RemUIOp::create(kb, loc, warp, cst(kb, kWarpCols));
    auto base = [&](Value blockId, int64_t blockSize, Value w, int64_t frag) {
      return arith::AddIOp::create(
          kb, loc, arith::MulIOp::create(kb, loc, blockId, cst(kb, blockSize)),
          arith::MulIOp::create(kb, loc, w, cst(kb, frag * kWarpTiles)));
    };
    Value row0 = base(launch.getBlockIds().y, kBlockM, warpRow, kFragM);
    Value col0 = base(launch.getBlockIds().x, kBlockN, warpCol, kFragN);
    // Fragment origins; one past the matrix reads the origin instead (its
    // result is not stored), so every load stays in bounds.
    SmallVector<Value> rows, cols, rowOk, colOk;
    for (int64_t i = 0; i < kWarpTiles; ++i) {
      Value r = arith::AddIOp::create(kb, loc, row0, cst(kb, i * kFragM));
      rowOk.push_back(arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                            r, cst(kb, m)));
      rows.push_back(
          arith::SelectOp::create(kb, loc, rowOk.back(), r, cst(kb, 0)));
      Value c = arith::AddIOp::create(kb, loc, col0, cst(kb, i * kFragN));
      colOk.push_back(arith::CmpIOp::create(kb, loc, arith::CmpIPredicate::ult,
                                            c, cst(kb, n)));
      cols.push_back(
          arith::SelectOp::create(kb, loc, colOk.back(), c, cst(kb, 0)));
    }
    auto ld = [&](MemRefType t) { return kb.getIndexAttr(rowStride(t)); };
    auto aType = gpu::MMAMatrixType::get({kFragM, kFragK}, f32, "AOp");
    auto bType = gpu::MMAMatrixType::get({kFragK, kFragN}, f32, "BOp");
    auto cType = gpu::MMAMatrixType::get({kFragM, kFragN}, f32, "COp");
    SmallVector<Value> acc;
    for (int64_t i = 0; i < kWarpTiles; ++i)
      for (int64_t j = 0; j < kWarpTiles; ++j)
        acc.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
            kb, loc, cType, mc, ValueRange{rows[i], cols[j]}, ld(c),
            UnitAttr()));
    auto loop = scf::ForOp::create(
        kb, loc, cst(kb, 0), cst(kb, k), cst(kb, kFragK), acc,
        [&](OpBuilder &lb, Location, Value kk, ValueRange iter) {
          SmallVector<Value> as, bs, next;
          for (int64_t i = 0; i < kWarpTiles; ++i)
            as.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
                lb, loc, aType, ma, ValueRange{rows[i], kk}, ld(a),
                UnitAttr()));
          for (int64_t j = 0; j < kWarpTiles; ++j)
            bs.push_back(gpu::SubgroupMmaLoadMatrixOp::create(
                lb, loc, bType, mb, ValueRange{kk, cols[j]}, ld(b),
                UnitAttr()));
          for (int64_t i = 0; i < kWarpTiles; ++i)
            for (int64_t j = 0; j < kWarpTiles; ++j)
              next.push_back(gpu::SubgroupMmaComputeOp::create(
                  lb, loc, cType, as[i], bs[j], iter[i * kWarpTiles + j],
                  UnitAttr(), UnitAttr()));
          scf::YieldOp::create(lb, loc, next);
        });
    for (int64_t i = 0; i < kWarpTiles; ++i)
      for (int64_t j = 0; j < kWarpTiles; ++j) {
        Value ok = arith::AndIOp::create(kb, loc, rowOk[i], colOk[j]);
        auto guard = scf::IfOp::create(kb, loc, ok, false);
        OpBuilder sb = guard.getThenBodyBuilder();
        gpu::SubgroupMmaStoreMatrixOp::create(
            sb, loc, loop.getResult(i * kWarpTiles + j), mc,
            ValueRange{rows[i], cols[j]}, ld(c), UnitAttr());
      }
    op->erase();
  }
};

} // namespace
} // namespace kiln
