//===- SparseWeights.cpp - Block-sparse kernels for sparse weights --------===//
//
// Pruned weights are still stored dense, so the product would multiply
// zeros. Here the weight's segments of V consecutive outputs (one vector
// register) are kept only when non-zero, grouped by column block:
//
//   ptr[nb] .. ptr[nb+1]   the non-zero segments of column block nb
//   k[p]                   the reduction index of segment p
//   vals[p][0..V)          its values
//
// and C[m, nb*V .. +V) += sum_p A[m, k[p]] * vals[p] for a tile of rows at a
// time. Per non-zero segment that is what one reduction step of the dense
// register kernel costs (a vector load, a broadcast and an FMA per row),
// plus an index load and gathered reads of A's row: the time falls with the
// density of segments, not of elements.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "dialects/graph/ConstantData.h"

#include "mlir/IR/SymbolTable.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_SPARSEWEIGHTS
#include "lowering/cpu/Passes.h.inc"

namespace {

constexpr int64_t kTileRows = 8;

struct Packed {
  std::vector<float> values; // nnz x V
  std::vector<int32_t> k;    // nnz
  std::vector<int32_t> ptr;  // NB + 1
};

struct SparseWeightsPass : impl::SparseWeightsBase<SparseWeightsPass> {
  using SparseWeightsBase::SparseWeightsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    int64_t lanes = vectorBits / 32;
    if (!enabled || lanes < 2)
      return;
    SymbolTable symbols(module);
    SmallVector<linalg::MatmulOp> products;
    module.walk([&](linalg::MatmulOp op) { products.push_back(op); });
    for (linalg::MatmulOp op : products)
      rewrite(op, symbols, lanes);
  }

  void rewrite(linalg::MatmulOp op, SymbolTable &symbols, int64_t lanes) {
    if (!op.hasPureBufferSemantics() ||
        !llvm::equal(op.getIndexingMapsArray(),
                     linalg::MatmulOp::getDefaultIndexingMaps(&getContext())))
      return;
    auto get = op.getInputs()[1].getDefiningOp<memref::GetGlobalOp>();
    if (!get)
      return;
    auto global = symbols.lookup<memref::GlobalOp>(get.getName());
    auto init =
        global ? dyn_cast_or_null<ElementsAttr>(global.getInitialValueAttr())
               : ElementsAttr();
    auto a = cast<MemRefType>(op.getInputs()[0].getType());
    auto b = cast<MemRefType>(get.getType());
    auto c = cast<MemRefType>(op.getOutputs()[0].getType());
    Type f32 = Float32Type::get(&getContext());
    if (!init || !global.getConstant() || b.getElementType() != f32 ||
        a.getElementType() != f32 || c.getElementType() != f32 ||
        !b.hasStaticShape() || !a.getLayout().isIdentity() ||
        !c.getLayout().isIdentity())
      return;
    int64_t kDim = b.getDimSize(0), n = b.getDimSize(1);
    if (n % lanes)
      return; // Column blocks of whole registers only.
    std::optional<ConstantData> data = getConstantData(init);
    if (!data || data->elementBytes != 4)
      return;
    auto weight = [&](int64_t k, int64_t j) {
      float v;
      std::memcpy(&v, data->getElement(k * n + j), 4);
      return v;
    };
    int64_t blocks = n / lanes;
    Packed packed;
    packed.ptr.push_back(0);
    for (int64_t nb = 0; nb < blocks; ++nb) {
      for (int64_t k = 0; k < kDim; ++k) {
        bool nonzero = false;
        for (int64_t j = 0; j < lanes && !nonzero; ++j)
          nonzero = weight(k, nb * lanes + j) != 0.0f;
        if (!nonzero)
          continue;
        packed.k.push_back(k);
        for (int64_t j = 0; j < lanes; ++j)
          packed.values.push_back(weight(k, nb * lanes + j));
      }
      packed.ptr.push_back(packed.k.size());
    }
    double density = double(packed.k.size()) / double(kDim * blocks);
    bool sparse = !packed.k.empty() &&
                  (enabled == 2 ? density < 1.0 : density <= maxDensity);
    op.emitRemark() << llvm::formatv(
        "{0}: {1:P1} of the weight's 1x{2} segments are non-zero ({3} of {4}); "
        "{5}",
        sparse ? "block-sparse kernel" : "dense kernel kept", density, lanes,
        packed.k.size(), kDim * blocks,
        sparse
            ? llvm::formatv("estimated {0:F1}x fewer steps", 1.0 / density)
                  .str()
            : llvm::formatv("sparse pays below {0:P0}", maxDensity.getValue())
                  .str());
    if (!sparse)
      return;
    build(op, symbols, packed, lanes, get.getName());
  }

  Value global(OpBuilder &mb, SymbolTable &symbols, Location loc,
               StringRef name, MemRefType type, DenseElementsAttr value,
               OpBuilder &fb) {
    auto g = memref::GlobalOp::create(
        mb, loc, name, mb.getStringAttr("private"), type, value,
        /*constant=*/true, mb.getI64IntegerAttr(64));
    symbols.insert(g);
    return memref::GetGlobalOp::create(fb, loc, type, g.getSymName());
  }

  void build(linalg::MatmulOp op, SymbolTable &symbols, const Packed &packed,
             int64_t lanes, StringRef weightName) {
    Location loc = op.getLoc();
    ModuleOp module = getOperation();
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    OpBuilder b(op);
    int64_t nnz = packed.k.size(), blocks = packed.ptr.size() - 1;
    Type f32 = b.getF32Type(), i32 = b.getI32Type();
    auto valsType = MemRefType::get({nnz, lanes}, f32);
    auto idxType = MemRefType::get({nnz}, i32);
    auto ptrType = MemRefType::get({blocks + 1}, i32);
    std::string base = (weightName + "_sparse").str();
    Value vals =
        global(mb, symbols, loc, base + "_values", valsType,
               DenseElementsAttr::get(RankedTensorType::get({nnz, lanes}, f32),
                                      ArrayRef<float>(packed.values)),
               b);
    Value kIdx =
        global(mb, symbols, loc, base + "_k", idxType,
               DenseElementsAttr::get(RankedTensorType::get({nnz}, i32),
                                      ArrayRef<int32_t>(packed.k)),
               b);
    Value ptr =
        global(mb, symbols, loc, base + "_ptr", ptrType,
               DenseElementsAttr::get(RankedTensorType::get({blocks + 1}, i32),
                                      ArrayRef<int32_t>(packed.ptr)),
               b);
    Value aBuf = op.getInputs()[0], cBuf = op.getOutputs()[0];
    auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
      return arith::ConstantIndexOp::create(bb, loc, v);
    };
    Value m = memref::DimOp::create(b, loc, aBuf, 0);
    Value full = arith::SubIOp::create(
        b, loc, m, arith::RemUIOp::create(b, loc, m, cst(b, kTileRows)));
    auto vecType = VectorType::get({lanes}, f32);
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{b.getIndexAttr(blocks)}, ValueRange(),
        std::nullopt);
    OpBuilder fb = OpBuilder::atBlockBegin(forall.getBody());
    Value nb = forall.getInductionVar(0);
    auto loadPtr = [&](Value i) -> Value {
      Value v = memref::LoadOp::create(fb, loc, ptr, ValueRange{i});
      return arith::IndexCastOp::create(fb, loc, fb.getIndexType(), v);
    };
    Value p0 = loadPtr(nb);
    Value p1 = loadPtr(arith::AddIOp::create(fb, loc, nb, cst(fb, 1)));
    Value col = arith::MulIOp::create(fb, loc, nb, cst(fb, lanes));
    // Rows in tiles of kTileRows, then one at a time.
    auto rowLoop = [&](Value from, Value to, int64_t rows) {
      scf::ForOp::create(
          fb, loc, from, to, cst(fb, rows), ValueRange(),
          [&](OpBuilder &rb, Location, Value m0, ValueRange) {
            SmallVector<Value> rowsIdx, accs;
            for (int64_t r = 0; r < rows; ++r) {
              rowsIdx.push_back(
                  r ? arith::AddIOp::create(rb, loc, m0, cst(rb, r)).getResult()
                    : m0);
              accs.push_back(vector::LoadOp::create(
                  rb, loc, vecType, cBuf, ValueRange{rowsIdx.back(), col}));
            }
            auto walk = scf::ForOp::create(
                rb, loc, p0, p1, cst(rb, 1), accs,
                [&](OpBuilder &pb, Location, Value p, ValueRange acc) {
                  Value k = arith::IndexCastOp::create(
                      pb, loc, pb.getIndexType(),
                      memref::LoadOp::create(pb, loc, kIdx, ValueRange{p}));
                  Value w = vector::LoadOp::create(pb, loc, vecType, vals,
                                                   ValueRange{p, cst(pb, 0)});
                  SmallVector<Value> next;
                  for (int64_t r = 0; r < rows; ++r) {
                    Value x = memref::LoadOp::create(pb, loc, aBuf,
                                                     ValueRange{rowsIdx[r], k});
                    Value xs = vector::BroadcastOp::create(pb, loc, vecType, x);
                    next.push_back(
                        vector::FMAOp::create(pb, loc, xs, w, acc[r]));
                  }
                  scf::YieldOp::create(pb, loc, next);
                });
            for (int64_t r = 0; r < rows; ++r)
              vector::StoreOp::create(rb, loc, walk.getResult(r), cBuf,
                                      ValueRange{rowsIdx[r], col});
            scf::YieldOp::create(rb, loc);
          });
    };
    rowLoop(cst(fb, 0), full, kTileRows);
    rowLoop(full, m, 1);
    op->erase();
  }
};

} // namespace
} // namespace kiln
