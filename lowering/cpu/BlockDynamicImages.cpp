//===- BlockDynamicImages.cpp - Dynamic-size image ops as static tiles ----===//
//
// The convolution and pooling kernels (im2col, register tiles, channel
// vectors) need static extents; over a run-time batch or image size the ops
// would take scalar loops. Here the output is covered by static tiles of
// [1, K, Bh, Bw] pixels, each computed by a static op on the input window
// it reads; the last tile of a row or column is shifted back to end at the
// edge (it recomputes a few pixels, from the op's initial value, so the
// overlap is written twice with the same values). Images smaller than one
// tile keep the dynamic op.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_BLOCKDYNAMICIMAGES
#include "lowering/cpu/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

/// An NCHW image op: input [N, C, H, W], a static window [.., kh, kw] (a
/// filter or a pooling window), output [N, K, OH, OW].
struct ImageOp {
  linalg::LinalgOp op;
  int64_t kh, kw, sh, sw, dh, dw;
};

std::optional<ImageOp> matchImageOp(Operation *op) {
  DenseIntElementsAttr strides, dilations;
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
    strides = conv.getStrides();
    dilations = conv.getDilations();
  } else if (auto dw = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op)) {
    strides = dw.getStrides();
    dilations = dw.getDilations();
  } else if (auto sum = dyn_cast<linalg::PoolingNchwSumOp>(op)) {
    strides = sum.getStrides();
    dilations = sum.getDilations();
  } else if (auto max = dyn_cast<linalg::PoolingNchwMaxOp>(op)) {
    strides = max.getStrides();
    dilations = max.getDilations();
  } else {
    return std::nullopt;
  }
  auto linalgOp = cast<linalg::LinalgOp>(op);
  if (!linalgOp.hasPureTensorSemantics())
    return std::nullopt;
  auto in = dyn_cast<RankedTensorType>(linalgOp.getDpsInputs()[0].getType());
  auto window =
      dyn_cast<RankedTensorType>(linalgOp.getDpsInputs()[1].getType());
  auto out = dyn_cast<RankedTensorType>(linalgOp.getDpsInits()[0].getType());
  if (!in || !window || !out || in.getRank() != 4 || out.getRank() != 4 ||
      !window.hasStaticShape() || in.isDynamicDim(1) || out.isDynamicDim(1) ||
      out.hasStaticShape())
    return std::nullopt;
  int64_t wr = window.getRank();
  auto s = strides.getValues<int64_t>(), d = dilations.getValues<int64_t>();
  return ImageOp{linalgOp,
                 window.getDimSize(wr - 2),
                 window.getDimSize(wr - 1),
                 s[0],
                 s[1],
                 d[0],
                 d[1]};
}

/// Tile extents: whole static dims, and about `pixels` output pixels per
/// tile (at least 8 columns) where H and W are run-time extents.
std::pair<int64_t, int64_t> tileExtents(RankedTensorType out, int64_t pixels) {
  int64_t oh = out.getDimSize(2), ow = out.getDimSize(3);
  if (!out.isDynamicDim(2) && !out.isDynamicDim(3))
    return {oh, ow};
  if (!out.isDynamicDim(2))
    return {oh, std::max<int64_t>(
                    8, llvm::PowerOf2Ceil(llvm::divideCeil(pixels, oh)))};
  if (!out.isDynamicDim(3))
    return {
        std::max<int64_t>(1, llvm::PowerOf2Ceil(llvm::divideCeil(pixels, ow))),
        ow};
  return {8, std::max<int64_t>(8, pixels / 8)};
}

/// The op's initial value over one output tile, written into `dest` (the
/// tile of the result): a fill or bias broadcast made again at the tile's
/// shape, else a copy of the initial value's tile.
Value tileInit(OpBuilder &b, Location loc, Value init, Value dest,
               ArrayRef<OpFoldResult> offsets, ArrayRef<OpFoldResult> sizes) {
  auto tileType = cast<RankedTensorType>(dest.getType());
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return linalg::FillOp::create(b, loc, fill.getInputs()[0], dest)
        .getResult(0);
  if (auto bcast = init.getDefiningOp<linalg::BroadcastOp>()) {
    auto source = cast<RankedTensorType>(bcast.getInput().getType());
    if (source.hasStaticShape())
      return linalg::BroadcastOp::create(b, loc, bcast.getInput(), dest,
                                         bcast.getDimensions())
          .getResult()[0];
  }
  OpFoldResult one = b.getIndexAttr(1);
  Value slice =
      tensor::ExtractSliceOp::create(b, loc, tileType, init, offsets, sizes,
                                     SmallVector<OpFoldResult>(4, one));
  return linalg::CopyOp::create(b, loc, slice, dest).getResult(0);
}

struct BlockDynamicImagesPass
    : impl::BlockDynamicImagesBase<BlockDynamicImagesPass> {
  using BlockDynamicImagesBase::BlockDynamicImagesBase;

  void runOnOperation() override {
    SmallVector<ImageOp> ops;
    getOperation().walk([&](Operation *op) {
      if (std::optional<ImageOp> m = matchImageOp(op))
        ops.push_back(*m);
    });
    IRRewriter rewriter(&getContext());
    for (ImageOp &m : ops)
      rewrite(rewriter, m);
  }

  void rewrite(IRRewriter &rewriter, ImageOp m) {
    rewriter.setInsertionPoint(m.op);
    auto outType = cast<RankedTensorType>(m.op.getDpsInits()[0].getType());
    // Smaller tiles for smaller images, down to single pixels along the
    // run-time extents; the dynamic op only for empty images.
    auto [bh, bw] = tileExtents(outType, tilePixels);
    SmallVector<std::pair<int64_t, int64_t>> levels = {{bh, bw}};
    for (int64_t div : {8, 64}) {
      std::pair<int64_t, int64_t> next = {
          outType.isDynamicDim(2) ? std::max<int64_t>(1, bh / div) : bh,
          outType.isDynamicDim(3) ? std::max<int64_t>(1, bw / div) : bw};
      if (next != levels.back())
        levels.push_back(next);
    }
    Value result = buildLevels(rewriter, m.op->getLoc(), m, levels);
    rewriter.replaceOp(m.op, result);
  }

  /// Tiles of the first extents that fit the image, else the next ones.
  Value buildLevels(OpBuilder &b, Location loc, ImageOp m,
                    ArrayRef<std::pair<int64_t, int64_t>> levels) {
    Value init = m.op.getDpsInits()[0];
    if (levels.empty()) {
      // The initial value over the whole output only where the dynamic op
      // runs.
      IRMapping map;
      if (Operation *def = init.getDefiningOp();
          isa_and_nonnull<linalg::FillOp, linalg::BroadcastOp>(def))
        map.map(init, b.clone(*def)->getResult(0));
      return b.clone(*m.op.getOperation(), map)->getResult(0);
    }
    int64_t bh = levels.front().first, bw = levels.front().second;
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    Value oh = tensor::DimOp::create(b, loc, init, 2);
    Value ow = tensor::DimOp::create(b, loc, init, 3);
    Value fits = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, oh, index(bh)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, ow,
                              index(bw)));
    auto ifOp = scf::IfOp::create(
        b, loc, fits,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, buildTiles(b, l, m, bh, bw));
        },
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(b, l, buildLevels(b, l, m, levels.drop_front()));
        });
    return ifOp.getResult(0);
  }

  /// Loops over the [1, K, bh, bw] output tiles, the last of each row and
  /// column shifted back to end at the edge.
  Value buildTiles(OpBuilder &b, Location l, ImageOp m, int64_t bh,
                   int64_t bw) {
    Value input = m.op.getDpsInputs()[0], window = m.op.getDpsInputs()[1];
    Value init = m.op.getDpsInits()[0];
    auto inType = cast<RankedTensorType>(input.getType());
    auto outType = cast<RankedTensorType>(init.getType());
    int64_t ih = (bh - 1) * m.sh + (m.kh - 1) * m.dh + 1;
    int64_t iw = (bw - 1) * m.sw + (m.kw - 1) * m.dw + 1;
    auto tileType = RankedTensorType::get({1, outType.getDimSize(1), bh, bw},
                                          outType.getElementType());
    auto inTileType = RankedTensorType::get({1, inType.getDimSize(1), ih, iw},
                                            inType.getElementType());
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    Value n = tensor::DimOp::create(b, l, init, 0);
    Value oh = tensor::DimOp::create(b, l, init, 2);
    Value ow = tensor::DimOp::create(b, l, init, 3);
    // The channels are static (matchImageOp).
    SmallVector<Value> dynamicDims;
    for (auto [d, extent] : llvm::zip(std::array<int64_t, 3>{0, 2, 3},
                                      std::array<Value, 3>{n, oh, ow}))
      if (outType.isDynamicDim(d))
        dynamicDims.push_back(extent);
    Value lastRow = arith::SubIOp::create(b, l, oh, index(bh));
    Value lastCol = arith::SubIOp::create(b, l, ow, index(bw));
    Value result = tensor::EmptyOp::create(
        b, l, outType.getShape(), outType.getElementType(), dynamicDims);
    Value zero = index(0), one = index(1);
    auto batches = scf::ForOp::create(
        b, l, zero, n, one, ValueRange{result},
        [&](OpBuilder &b, Location l, Value bi, ValueRange acc) {
          auto rows = scf::ForOp::create(
              b, l, zero, oh, index(bh), acc,
              [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
                auto cols = scf::ForOp::create(
                    b, l, zero, ow, index(bw), acc,
                    [&](OpBuilder &b, Location l, Value j, ValueRange acc) {
                      Value h = arith::MinSIOp::create(b, l, i, lastRow);
                      Value w = arith::MinSIOp::create(b, l, j, lastCol);
                      scf::YieldOp::create(b, l,
                                           computeTile(b, l, m, input, window,
                                                       init, acc[0], bi, h, w,
                                                       tileType, inTileType));
                    });
                scf::YieldOp::create(b, l, cols.getResults());
              });
          scf::YieldOp::create(b, l, rows.getResults());
        });
    return batches.getResult(0);
  }

  /// The static op over output tile [bi, :, h.., w..] of `acc`, computed in
  /// place (the tile is an extract of `acc` inserted back).
  Value computeTile(OpBuilder &b, Location l, ImageOp m, Value input,
                    Value window, Value init, Value acc, Value bi, Value h,
                    Value w, RankedTensorType tileType,
                    RankedTensorType inTileType) {
    OpFoldResult c0 = b.getIndexAttr(0), c1 = b.getIndexAttr(1);
    SmallVector<OpFoldResult> ones(4, c1);
    auto scaled = [&](Value v, int64_t s) -> OpFoldResult {
      if (s == 1)
        return v;
      return arith::MulIOp::create(b, l, v,
                                   arith::ConstantIndexOp::create(b, l, s))
          .getResult();
    };
    auto sizesOf = [&](RankedTensorType t) {
      SmallVector<OpFoldResult> sizes;
      for (int64_t e : t.getShape())
        sizes.push_back(b.getIndexAttr(e));
      return sizes;
    };
    SmallVector<OpFoldResult> inOffsets = {bi, c0, scaled(h, m.sh),
                                           scaled(w, m.sw)};
    Value inTile = tensor::ExtractSliceOp::create(
        b, l, inTileType, input, inOffsets, sizesOf(inTileType), ones);
    SmallVector<OpFoldResult> outOffsets = {bi, c0, h, w};
    SmallVector<OpFoldResult> outSizes = sizesOf(tileType);
    Value dest = tensor::ExtractSliceOp::create(b, l, tileType, acc, outOffsets,
                                                outSizes, ones);
    Value start = tileInit(b, l, init, dest, outOffsets, outSizes);
    Operation *tile = mlir::clone(b, m.op.getOperation(), TypeRange{tileType},
                                  ValueRange{inTile, window, start});
    return tensor::InsertSliceOp::create(b, l, tile->getResult(0), acc,
                                         outOffsets, outSizes, ones);
  }
};

} // namespace
} // namespace kiln
