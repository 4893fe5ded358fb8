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
// Convolutions over a static batch of two images or more go the same way,
// one whole image a tile: the im2col paths multiply one image's matrix, and
// a batch left the product a generic contraction in scalar loops (a 1x1
// convolution over two 32x32 images 128x ONNX Runtime's time, a grouped
// one 31x its own time for one image).
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

/// An image op: input [N, C.., H, W], a static window [.., kh, kw] (a
/// filter or a pooling window), output [N, K.., OH, OW] (grouped
/// convolutions: [N, G, C, H, W] and [N, G, F, OH, OW]); channels-last
/// convolutions [N, H, W, C] with a [kh, kw, C, F] filter. `hd` and `wd`
/// are the image's height and width dims.
struct ImageOp {
  linalg::LinalgOp op;
  int64_t kh, kw, sh, sw, dh, dw, hd, wd;
};

std::optional<ImageOp> matchImageOp(Operation *op) {
  DenseIntElementsAttr strides, dilations;
  bool product = false, channelsLast = false;
  if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op)) {
    strides = conv.getStrides();
    dilations = conv.getDilations();
    product = true;
  } else if (auto nhwc = dyn_cast<linalg::Conv2DNhwcHwcfOp>(op)) {
    strides = nhwc.getStrides();
    dilations = nhwc.getDilations();
    product = channelsLast = true;
  } else if (auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op)) {
    strides = grouped.getStrides();
    dilations = grouped.getDilations();
    product = true;
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
  if (!in || !window || !out || in.getRank() < 4 ||
      out.getRank() != in.getRank() || !window.hasStaticShape())
    return std::nullopt;
  int64_t rank = out.getRank();
  int64_t hd = channelsLast ? 1 : rank - 2, wd = hd + 1;
  for (int64_t d = 1; d < rank; ++d)
    if (d != hd && d != wd && (in.isDynamicDim(d) || out.isDynamicDim(d)))
      return std::nullopt;
  // Channels-last ops only over a static batch (their dynamic images keep
  // the generic paths).
  if (channelsLast && (out.isDynamicDim(hd) || out.isDynamicDim(wd)))
    return std::nullopt;
  // Static images: only the products over a batch (pooling and depthwise
  // kernels take the batch as it is).
  if (out.hasStaticShape() &&
      (!product || out.getDimSize(0) == 1 || !in.hasStaticShape()))
    return std::nullopt;
  int64_t wh = channelsLast ? 0 : window.getRank() - 2;
  auto s = strides.getValues<int64_t>(), d = dilations.getValues<int64_t>();
  return ImageOp{linalgOp,
                 window.getDimSize(wh),
                 window.getDimSize(wh + 1),
                 s[0],
                 s[1],
                 d[0],
                 d[1],
                 hd,
                 wd};
}

/// Tile extents: whole static dims, and about `pixels` output pixels per
/// tile (at least 8 columns) where H and W are run-time extents.
std::pair<int64_t, int64_t> tileExtents(RankedTensorType out, int64_t hd,
                                        int64_t wd, int64_t pixels) {
  int64_t oh = out.getDimSize(hd), ow = out.getDimSize(wd);
  if (!out.isDynamicDim(hd) && !out.isDynamicDim(wd))
    return {oh, ow};
  if (!out.isDynamicDim(hd))
    return {oh, std::max<int64_t>(
                    8, llvm::PowerOf2Ceil(llvm::divideCeil(pixels, oh)))};
  if (!out.isDynamicDim(wd))
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
  Value slice = tensor::ExtractSliceOp::create(
      b, loc, tileType, init, offsets, sizes,
      SmallVector<OpFoldResult>(tileType.getRank(), one));
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
    auto [bh, bw] = tileExtents(outType, m.hd, m.wd, tilePixels);
    if (!outType.isDynamicDim(m.hd) && !outType.isDynamicDim(m.wd)) {
      // Whole images: every image holds the tile.
      rewriter.replaceOp(m.op, buildTiles(rewriter, m.op->getLoc(), m, bh, bw));
      return;
    }
    // Smaller tiles for smaller images, down to single pixels along the
    // run-time extents; the dynamic op only for empty images.
    SmallVector<std::pair<int64_t, int64_t>> levels = {{bh, bw}};
    for (int64_t div : {8, 64}) {
      std::pair<int64_t, int64_t> next = {
          outType.isDynamicDim(m.hd) ? std::max<int64_t>(1, bh / div) : bh,
          outType.isDynamicDim(m.wd) ? std::max<int64_t>(1, bw / div) : bw};
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
    Value oh = tensor::DimOp::create(b, loc, init, m.hd);
    Value ow = tensor::DimOp::create(b, loc, init, m.wd);
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

  /// Loops over the [1, K.., bh, bw] output tiles, the last of each row and
  /// column shifted back to end at the edge; none along an extent that one
  /// tile covers.
  Value buildTiles(OpBuilder &b, Location l, ImageOp m, int64_t bh,
                   int64_t bw) {
    Value input = m.op.getDpsInputs()[0], window = m.op.getDpsInputs()[1];
    Value init = m.op.getDpsInits()[0];
    auto inType = cast<RankedTensorType>(input.getType());
    auto outType = cast<RankedTensorType>(init.getType());
    int64_t ih = (bh - 1) * m.sh + (m.kh - 1) * m.dh + 1;
    int64_t iw = (bw - 1) * m.sw + (m.kw - 1) * m.dw + 1;
    auto tileShape = [&](RankedTensorType t, int64_t h, int64_t w) {
      SmallVector<int64_t> shape(t.getShape());
      shape[0] = 1;
      shape[m.hd] = h;
      shape[m.wd] = w;
      return RankedTensorType::get(shape, t.getElementType());
    };
    RankedTensorType tileType = tileShape(outType, bh, bw);
    RankedTensorType inTileType = tileShape(inType, ih, iw);
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, l, v);
    };
    Value n = tensor::DimOp::create(b, l, init, 0);
    Value oh = tensor::DimOp::create(b, l, init, m.hd);
    Value ow = tensor::DimOp::create(b, l, init, m.wd);
    // The channels are static (matchImageOp).
    SmallVector<Value> dynamicDims;
    for (auto [d, extent] : llvm::zip(std::array<int64_t, 3>{0, m.hd, m.wd},
                                      std::array<Value, 3>{n, oh, ow}))
      if (outType.isDynamicDim(d))
        dynamicDims.push_back(extent);
    Value result = tensor::EmptyOp::create(
        b, l, outType.getShape(), outType.getElementType(), dynamicDims);
    Value zero = index(0), one = index(1);
    // Tiles along one extent (`d`, `size` a tile), then `inner` at each.
    using Body = function_ref<Value(OpBuilder &, Location, Value, Value)>;
    auto along = [&](OpBuilder &b, Location l, int64_t d, Value extent,
                     int64_t size, Value acc, Body inner) -> Value {
      if (!outType.isDynamicDim(d) && outType.getDimSize(d) == size)
        return inner(b, l, zero, acc);
      Value last = arith::SubIOp::create(b, l, extent, index(size));
      auto loop = scf::ForOp::create(
          b, l, zero, extent, index(size), ValueRange{acc},
          [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
            Value at = arith::MinSIOp::create(b, l, i, last);
            scf::YieldOp::create(b, l, inner(b, l, at, acc[0]));
          });
      return loop.getResult(0);
    };
    auto batches = scf::ForOp::create(
        b, l, zero, n, one, ValueRange{result},
        [&](OpBuilder &b, Location l, Value bi, ValueRange acc) {
          Value done = along(
              b, l, m.hd, oh, bh, acc[0],
              [&](OpBuilder &b, Location l, Value h, Value acc) {
                return along(b, l, m.wd, ow, bw, acc,
                             [&](OpBuilder &b, Location l, Value w, Value acc) {
                               return computeTile(b, l, m, input, window, init,
                                                  acc, bi, h, w, tileType,
                                                  inTileType);
                             });
              });
          scf::YieldOp::create(b, l, done);
        });
    return batches.getResult(0);
  }

  /// The static op over output tile [bi, :.., h.., w..] of `acc`, computed
  /// in place (the tile is an extract of `acc` inserted back).
  Value computeTile(OpBuilder &b, Location l, ImageOp m, Value input,
                    Value window, Value init, Value acc, Value bi, Value h,
                    Value w, RankedTensorType tileType,
                    RankedTensorType inTileType) {
    int64_t r = tileType.getRank();
    OpFoldResult c0 = b.getIndexAttr(0), c1 = b.getIndexAttr(1);
    SmallVector<OpFoldResult> ones(r, c1);
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
    auto offsetsAt = [&](OpFoldResult y, OpFoldResult x) {
      SmallVector<OpFoldResult> offsets(r, c0);
      offsets[0] = bi;
      offsets[m.hd] = y;
      offsets[m.wd] = x;
      return offsets;
    };
    SmallVector<OpFoldResult> inOffsets =
        offsetsAt(scaled(h, m.sh), scaled(w, m.sw));
    Value inTile = tensor::ExtractSliceOp::create(
        b, l, inTileType, input, inOffsets, sizesOf(inTileType), ones);
    SmallVector<OpFoldResult> outOffsets = offsetsAt(h, w);
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
