//===- FillPadBorders.cpp - Padding fills only the border -----------------===//
//
// A padded tensor is a fill of the whole padded shape with the interior
// inserted over it: bufferized, the fill writes every element and the copy
// (or the producer writing in place) writes the interior again. For the
// input of a 3x3 convolution that is a pass over the whole buffer: 96
// channels at 114x114 (MobileNetV2's second block) is 5 MB of zeros, most
// of them overwritten. Here a fill marked by kiln-mark-pad-interiors covers
// only the slabs around the interior.
//
// On buffers, after bufferization: on tensors the slabs were four inserts
// and extracts per padded buffer, whose aliasing one-shot bufferization
// analyzed pair by pair (DenseNet-121: 2.1 of its 2.6 s of bufferization).
//
//===----------------------------------------------------------------------===//

#include "lowering/bufferization/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_FILLPADBORDERS
#include "lowering/bufferization/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {

bool isView(Operation *op) {
  return isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::ReinterpretCastOp>(op);
}

/// Whether `op` uses `buffer` or a view of it.
bool touches(Operation *op, Value buffer) {
  bool found = false;
  op->walk([&](Operation *nested) {
    for (Value v : nested->getOperands())
      for (Value root = v; !found;) {
        if (root == buffer) {
          found = true;
          break;
        }
        Operation *def = root.getDefiningOp();
        if (!def || !isView(def))
          break;
        root = def->getOperand(0);
      }
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

struct FillPadBordersPass : impl::FillPadBordersBase<FillPadBordersPass> {
  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    getOperation().walk([&](linalg::FillOp op) {
      if (op.hasPureBufferSemantics() && op->hasAttr(kPadInteriorAttr))
        fills.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills)
      fillBorders(rewriter, fill);
  }

  void fillBorders(RewriterBase &rewriter, linalg::FillOp fill) {
    auto interior = fill->getAttrOfType<DenseI64ArrayAttr>(kPadInteriorAttr);
    fill->removeAttr(kPadInteriorAttr);
    Value buffer = fill.getOutputs()[0];
    auto type = dyn_cast<MemRefType>(buffer.getType());
    if (!interior || !type || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() ||
        int64_t(interior.size()) != 2 * type.getRank())
      return;
    ArrayRef<int64_t> full = type.getShape();
    int64_t rank = full.size();
    ArrayRef<int64_t> offsets = interior.asArrayRef().take_front(rank);
    ArrayRef<int64_t> sizes = interior.asArrayRef().drop_front(rank);
    for (int64_t d = 0; d < rank; ++d)
      if (offsets[d] < 0 || sizes[d] < 0 || offsets[d] + sizes[d] > full[d])
        return;

    // After the first op that touches the buffer (the interior's writer),
    // as on tensors, where the depthwise kernel finds the slabs and fills
    // each plane's border just before it reads the plane
    // (VectorizeDepthwiseConv.cpp). The slabs and the interior are
    // disjoint, so either order is correct.
    Operation *after = fill;
    for (Operation *op = fill->getNextNode(); op; op = op->getNextNode())
      if (!isView(op) && touches(op, buffer)) {
        after = op;
        break;
      }
    rewriter.setInsertionPointAfter(after);
    Value value = fill.getInputs()[0];
    Location loc = fill.getLoc();
    // Along each dim, the slabs before and after the interior: earlier dims
    // restricted to the interior (their slabs are filled already), later
    // dims whole.
    for (int64_t d = 0; d < rank; ++d) {
      for (bool end : {false, true}) {
        int64_t lo = end ? offsets[d] + sizes[d] : 0;
        int64_t hi = end ? full[d] : offsets[d];
        if (hi <= lo)
          continue;
        SmallVector<int64_t> slabOffsets, slabSizes;
        for (int64_t e = 0; e < rank; ++e) {
          if (e < d) {
            slabOffsets.push_back(offsets[e]);
            slabSizes.push_back(sizes[e]);
          } else if (e == d) {
            slabOffsets.push_back(lo);
            slabSizes.push_back(hi - lo);
          } else {
            slabOffsets.push_back(0);
            slabSizes.push_back(full[e]);
          }
        }
        SmallVector<int64_t> ones(rank, 1);
        Value slab = memref::SubViewOp::create(rewriter, loc, buffer,
                                               slabOffsets, slabSizes, ones);
        linalg::FillOp::create(rewriter, loc, value, slab);
      }
    }
    rewriter.eraseOp(fill);
  }
};

} // namespace
} // namespace kiln
