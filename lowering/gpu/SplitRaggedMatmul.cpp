//===- SplitRaggedMatmul.cpp - Aligned part of a product for MMA ----------===//

#include "lowering/gpu/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_SPLITRAGGEDMATMUL
#include "lowering/gpu/Passes.h.inc"

namespace {

struct SplitRaggedMatmulPass
    : impl::SplitRaggedMatmulBase<SplitRaggedMatmulPass> {
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> ops;
    getOperation().walk([&](linalg::MatmulOp op) { ops.push_back(op); });
    for (linalg::MatmulOp op : ops)
      split(op);
  }

  void split(linalg::MatmulOp op) {
    if (!op.hasPureBufferSemantics() ||
        !llvm::equal(op.getIndexingMapsArray(),
                     linalg::MatmulOp::getDefaultIndexingMaps(&getContext())))
      return;
    Value a = op.getInputs()[0], b = op.getInputs()[1], c = op.getOutputs()[0];
    auto at = cast<MemRefType>(a.getType());
    auto ct = cast<MemRefType>(c.getType());
    if (!at.hasStaticShape() || !ct.hasStaticShape() ||
        !at.getElementType().isF32())
      return;
    int64_t m = ct.getDimSize(0), n = ct.getDimSize(1), k = at.getDimSize(1);
    int64_t m0 = m - m % 16, n0 = n - n % 16, k0 = k - k % 8;
    if ((m0 == m && n0 == n && k0 == k) || !m0 || !n0 || !k0)
      return;
    OpBuilder bld(op);
    Location loc = op.getLoc();
    auto view = [&](Value v, int64_t r, int64_t rows, int64_t col,
                    int64_t cols) -> Value {
      SmallVector<OpFoldResult> offsets = {bld.getIndexAttr(r),
                                           bld.getIndexAttr(col)};
      SmallVector<OpFoldResult> sizes = {bld.getIndexAttr(rows),
                                         bld.getIndexAttr(cols)};
      SmallVector<OpFoldResult> strides(2, bld.getIndexAttr(1));
      return memref::SubViewOp::create(bld, loc, v, offsets, sizes, strides);
    };
    auto product = [&](int64_t r, int64_t rows, int64_t col, int64_t cols,
                       int64_t kk, int64_t depth) {
      if (!rows || !cols || !depth)
        return;
      linalg::MatmulOp::create(bld, loc,
                               ValueRange{view(a, r, rows, kk, depth),
                                          view(b, kk, depth, col, cols)},
                               ValueRange{view(c, r, rows, col, cols)});
    };
    product(0, m0, 0, n0, 0, k0);      // tensor cores
    product(0, m0, 0, n0, k0, k - k0); // the rest of K
    product(0, m, n0, n - n0, 0, k);   // the last columns
    product(m0, m - m0, 0, n0, 0, k);  // the last rows
    op->erase();
  }
};

} // namespace
} // namespace kiln
