//===- ImageRowStores.cpp - Register tiles stored across image rows -------===//
//
// A 1x1 convolution runs as a product whose columns are the pixels of its
// image, flattened. When its epilogue writes into the interior of a padded
// buffer (the next convolution's input), D's rows of pixels are not
// contiguous, so the epilogue could not be computed in the register tiles:
// the product wrote C, and a pass of its own read C and wrote D
// (MobileNetV2's expansion convolutions at 112x112: 0.30 of 0.71 ms). Here
// a tile's row of lanes is stored through a flat view of D's buffer: as is
// where it lies within one image row, else in pieces, one per image row it
// crosses (a masked store, or below 512 bits a read, select and store).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;

namespace kiln {

std::optional<cpu::ImageRows>
cpu::matchImageRows(MemRefType type, ArrayRef<ReassociationIndices> groups) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (groups.size() != 2 || !type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return std::nullopt;
  auto nonUnit = [&](const ReassociationIndices &group) {
    SmallVector<int64_t> dims;
    for (int64_t d : group)
      if (type.getDimSize(d) != 1)
        dims.push_back(d);
    return dims;
  };
  SmallVector<int64_t> m = nonUnit(groups[0]), n = nonUnit(groups[1]);
  // One dim of rows; columns over (height, width), the width contiguous.
  if (m.size() > 1 || n.size() != 2 || strides[n[1]] != 1 ||
      strides[n[0]] < type.getDimSize(n[1]))
    return std::nullopt;
  ImageRows rows;
  rows.width = type.getDimSize(n[1]);
  rows.rowStride = strides[n[0]];
  rows.mStride = m.empty() ? 0 : strides[m[0]];
  rows.extent = 1;
  for (int64_t d = 0; d < type.getRank(); ++d)
    rows.extent += (type.getDimSize(d) - 1) * strides[d];
  return rows;
}

Value cpu::flatImageRowsView(OpBuilder &b, Location loc, Value d,
                             const ImageRows &rows) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, d);
  auto elt = cast<MemRefType>(d.getType()).getElementType();
  auto type = MemRefType::get(
      {rows.extent}, elt,
      StridedLayoutAttr::get(b.getContext(), ShapedType::kDynamic, {1}));
  return memref::ReinterpretCastOp::create(
      b, loc, type, meta.getBaseBuffer(), OpFoldResult(meta.getOffset()),
      ArrayRef<OpFoldResult>{b.getIndexAttr(rows.extent)},
      ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
}

void cpu::storeTileByImageRows(OpBuilder &b, Location loc, Value tile,
                               Value flat, const ImageRows &rows, Value m,
                               Value n, bool maskedStores) {
  auto type = cast<VectorType>(tile.getType());
  int64_t tileRows = type.getDimSize(0), lanes = type.getDimSize(1);
  // Lanes from `pos` on start at pixel n + pos; at most this many image
  // rows hold the tile's lanes.
  int64_t pieces = lanes < 2 ? 1 : (lanes - 2) / rows.width + 2;
  auto maskType = VectorType::get({lanes}, b.getI1Type());
  AffineExpr d0, d1, d2, d3;
  bindDims(b.getContext(), d0, d1, d2, d3);
  Value lanesValue = arith::ConstantIndexOp::create(b, loc, lanes);
  // The image row and column of pixel `col`.
  auto rowAndColumn = [&](OpBuilder &pb, Location pl, Value col) {
    Value h = affine::AffineApplyOp::create(
        pb, pl, AffineMap::get(1, 0, d0.floorDiv(rows.width)), col);
    Value w = affine::AffineApplyOp::create(
        pb, pl, AffineMap::get(1, 0, d0 % rows.width), col);
    return std::make_pair(h, w);
  };
  // The place of lane 0 of the tile's row `r` when its lane `pos` is the
  // pixel at (h, w).
  auto laneZeroAt = [&](OpBuilder &pb, Location pl, int64_t r, Value h, Value w,
                        Value pos) -> Value {
    return affine::AffineApplyOp::create(
        pb, pl,
        AffineMap::get(4, 0,
                       (d0 + r) * rows.mStride + d1 * rows.rowStride + d2 - d3),
        ValueRange{m, h, w, pos});
  };
  std::function<void(OpBuilder &, Location, Value, int64_t)> piece =
      [&](OpBuilder &pb, Location pl, Value pos, int64_t left) {
        Value col = affine::AffineApplyOp::create(
            pb, pl, AffineMap::get(2, 0, d0 + d1), ValueRange{n, pos});
        auto [h, w] = rowAndColumn(pb, pl, col);
        // This piece: lanes [pos, end), up to the end of the image row.
        Value rowEnd = affine::AffineApplyOp::create(
            pb, pl, AffineMap::get(2, 0, d0 + rows.width - d1),
            ValueRange{pos, w});
        Value end = arith::MinSIOp::create(pb, pl, rowEnd, lanesValue);
        Value mask = arith::XOrIOp::create(
            pb, pl, vector::CreateMaskOp::create(pb, pl, maskType, end),
            vector::CreateMaskOp::create(pb, pl, maskType, pos));
        for (int64_t r = 0; r < tileRows; ++r) {
          // The lanes before `pos` are masked off.
          Value at = laneZeroAt(pb, pl, r, h, w, pos);
          Value row = vector::ExtractOp::create(pb, pl, tile, r);
          if (maskedStores) {
            vector::MaskedStoreOp::create(pb, pl, flat, ValueRange{at}, mask,
                                          row);
            continue;
          }
          // The lanes masked off fall on this tile's own pixels, which its
          // other pieces write after or wrote before, or on padding, which
          // no other tile writes: read back and stored unchanged, they need
          // no masked store (vmaskmovps to memory is microcoded on AMD
          // cores; with rows of 14, where every tile crosses, both forms
          // measured the same on a Zen 3 core).
          Value old = vector::LoadOp::create(
              pb, pl, cast<VectorType>(row.getType()), flat, ValueRange{at});
          Value merged = arith::SelectOp::create(pb, pl, mask, row, old);
          vector::StoreOp::create(pb, pl, merged, flat, ValueRange{at});
        }
        if (left <= 1)
          return;
        Value more = arith::CmpIOp::create(pb, pl, arith::CmpIPredicate::slt,
                                           end, lanesValue);
        scf::IfOp::create(pb, pl, more, [&](OpBuilder &ib, Location il) {
          piece(ib, il, end, left - 1);
          scf::YieldOp::create(ib, il);
        });
      };
  // Most tiles lie within one image row (all of them where the width is a
  // multiple of the lanes): plain stores, as AVX2 has no cheap masked store
  // (vmaskmovps to memory is microcoded on AMD cores): MobileNetV2's 16 ->
  // 96 expansion at 112x112 spent half its time in them, 1.45 ms in the
  // model against 0.5 ms writing an unpadded output. Images narrower than
  // a tile take pieces only.
  if (rows.width < lanes) {
    piece(b, loc, arith::ConstantIndexOp::create(b, loc, 0), pieces);
    return;
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value h0, w0;
  std::tie(h0, w0) = rowAndColumn(b, loc, n);
  Value fits = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::sle, w0,
      arith::ConstantIndexOp::create(b, loc, rows.width - lanes));
  scf::IfOp::create(
      b, loc, fits,
      [&](OpBuilder &tb, Location tl) {
        for (int64_t r = 0; r < tileRows; ++r) {
          Value at = laneZeroAt(tb, tl, r, h0, w0, zero);
          Value row = vector::ExtractOp::create(tb, tl, tile, r);
          vector::StoreOp::create(tb, tl, row, flat, ValueRange{at});
        }
        scf::YieldOp::create(tb, tl);
      },
      [&](OpBuilder &eb, Location el) {
        piece(eb, el, zero, pieces);
        scf::YieldOp::create(eb, el);
      });
}

} // namespace kiln
