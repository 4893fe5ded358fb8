//===- BufferAliasing.cpp - Which buffers an op may touch -----------------===//

#include "lowering/cpu/BufferAliasing.h"
#include "lowering/bufferization/Passes.h"

#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kiln::cpu {

/// Ops that neither read nor write memory and only name values: views,
/// constants, index arithmetic.
bool isNonMemoryOp(Operation *op) {
  return isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::ViewOp,
             memref::SubViewOp, memref::GetGlobalOp, memref::CastOp,
             memref::ReinterpretCastOp>(op) ||
         isMemoryEffectFree(op);
}

/// `v` under its views, reshapes and casts: the memref they all view.
static Value underViews(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::CollapseShapeOp, memref::ExpandShapeOp,
             memref::CastOp, memref::ReinterpretCastOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

BufferRange rangeOf(Value v) {
  v = underViews(v);
  if (Operation *def = v.getDefiningOp()) {
    if (auto view = dyn_cast<memref::ViewOp>(def)) {
      auto type = view.getType();
      std::optional<int64_t> off = getConstantIntValue(view.getByteShift());
      // One slot per parallel iteration: the bytes of all of them.
      if (auto slots = view->getAttrOfType<DenseI64ArrayAttr>(kArenaRangeAttr))
        return {view.getSource(), slots[0], slots[1], true};
      if (!off || !type.hasStaticShape() ||
          !type.getElementType().isIntOrFloat())
        return {view.getSource(), 0, -1, true};
      int64_t bytes = type.getNumElements() *
                      type.getElementType().getIntOrFloatBitWidth() / 8;
      return {view.getSource(), *off, *off + bytes, true};
    }
    if (isa<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(def))
      return {v};
    return {v, 0, -1, false};
  }
  return {v};
}

bool mayAlias(const BufferRange &a, const BufferRange &b) {
  if (!a.known || !b.known)
    return true;
  if (a.base != b.base)
    return false;
  if (a.hi < 0 || b.hi < 0)
    return true;
  return a.lo < b.hi && b.lo < a.hi;
}

/// Whether `a` and `b` are the same buffer with the same view.
bool sameBuffer(Value a, Value b) {
  if (a == b)
    return true;
  auto va = a.getDefiningOp<memref::ViewOp>(),
       vb = b.getDefiningOp<memref::ViewOp>();
  if (!va || !vb || va.getType() != vb.getType())
    return false;
  BufferRange ra = rangeOf(a), rb = rangeOf(b);
  return ra.base == rb.base && ra.hi >= 0 && ra.lo == rb.lo && ra.hi == rb.hi;
}

/// `v` under the reshapes that keep every element where it is.
Value underReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// Whether `fill` writes all of `c`. A fill does not care about the shape of
/// its view: a 1x1 convolution's zero fill writes the 2-D view of its 4-D
/// output that the product writes.
bool fillsAll(linalg::FillOp fill, Value c) {
  return sameBuffer(underReshapes(fill.getDpsInits()[0]), underReshapes(c));
}

/// Whether `op` (or an op nested in it) may read or write any of `buffers`.
bool touches(Operation *op, ArrayRef<BufferRange> buffers) {
  bool found = false;
  op->walk([&](Operation *inner) {
    if (found || (inner != op && isNonMemoryOp(inner)))
      return;
    for (Value v : inner->getOperands())
      if (isa<MemRefType>(v.getType())) {
        BufferRange r = rangeOf(v);
        if (llvm::any_of(buffers,
                         [&](const BufferRange &b) { return mayAlias(r, b); }))
          found = true;
      }
  });
  return found;
}

/// The first op after (before) `op` in its block that may touch `buffer`.
Operation *nextToucher(Operation *op, const BufferRange &buffer, bool after) {
  for (Operation *cur = after ? op->getNextNode() : op->getPrevNode(); cur;
       cur = after ? cur->getNextNode() : cur->getPrevNode())
    if (!isNonMemoryOp(cur) && touches(cur, buffer))
      return cur;
  return nullptr;
}

/// Whether no op strictly between `from` and `to` (same block, in order)
/// may touch any of `buffers`.
bool untouchedBetween(Operation *from, Operation *to,
                      ArrayRef<BufferRange> buffers) {
  for (Operation *cur = from->getNextNode(); cur && cur != to;
       cur = cur->getNextNode())
    if (!isNonMemoryOp(cur) && touches(cur, buffers))
      return false;
  return true;
}

/// Whether `op` reaches the bytes of the arena view `c` only through other
/// views: buffers the memory plan placed there after C's last use.
bool reusesBytesOf(Operation *op, Value c) {
  if (!c.getDefiningOp<memref::ViewOp>())
    return false;
  BufferRange cRange = rangeOf(c);
  bool other = true;
  op->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<MemRefType>(v.getType()) && mayAlias(rangeOf(v), cRange)) {
        auto view = underViews(v).getDefiningOp<memref::ViewOp>();
        if (!view || sameBuffer(view, c))
          other = false;
      }
  });
  return other;
}

/// Whether `v` views a constant global (weights, biases): nothing writes
/// it, so ops that read it in between do not matter.
bool isConstantGlobal(Value v) {
  v = underReshapes(v);
  while (auto sv = v.getDefiningOp<memref::SubViewOp>())
    v = underReshapes(sv.getSource());
  auto get = v.getDefiningOp<memref::GetGlobalOp>();
  if (!get)
    return false;
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      get, get.getNameAttr());
  return global && global.getConstant();
}

/// Whether `v` is available before `top`, moving the views and constants
/// that make it (a buffer's interior viewed after the product) there.
bool availableBefore(Value v, Operation *top, DominanceInfo &dom) {
  if (dom.properlyDominates(v, top))
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() ||
      !isa<memref::ViewOp, memref::SubViewOp, memref::CollapseShapeOp,
           memref::ExpandShapeOp, memref::CastOp, arith::ConstantOp>(def) ||
      def->getBlock() != top->getBlock())
    return false;
  for (Value operand : def->getOperands())
    if (!availableBefore(operand, top, dom))
      return false;
  def->moveBefore(top);
  return true;
}

} // namespace kiln::cpu
