//===- SymbolicSizes.cpp - Sizes computed from the entry's argument dims --===//

#include "lowering/bufferization/SymbolicSizes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace kiln {

bool isComputableOnEntry(Value v, func::FuncOp fn,
                         DenseMap<Value, bool> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  bool ok = false;
  // Arguments are tensors' buffers: only their dims (below) may be read.
  Operation *def = v.getDefiningOp();
  if (def && def->getParentOp() == fn.getOperation() &&
      def->getNumRegions() == 0 && isMemoryEffectFree(def)) {
    if (auto dim = dyn_cast<memref::DimOp>(def)) {
      auto source = dyn_cast<BlockArgument>(dim.getSource());
      ok = source && source.getOwner()->getParentOp() == fn.getOperation() &&
           isComputableOnEntry(dim.getIndex(), fn, memo);
    } else {
      ok = llvm::all_of(def->getOperands(), [&](Value operand) {
        return operand.getType().isIntOrIndex() &&
               isComputableOnEntry(operand, fn, memo);
      });
    }
  }
  memo[v] = ok;
  return ok;
}

Value cloneComputation(OpBuilder &b, Value v, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (!def) // an argument: the same value on entry
    return v;
  for (Value operand : def->getOperands())
    cloneComputation(b, operand, map);
  Operation *copy = b.clone(*def, map);
  return copy->getResult(cast<OpResult>(v).getResultNumber());
}

std::optional<int64_t> evaluateWithExtent(Value v, int64_t extent) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto dim = dyn_cast<memref::DimOp>(def)) {
    std::optional<int64_t> index = dim.getConstantIndex();
    auto type = cast<MemRefType>(dim.getSource().getType());
    if (!index)
      return std::nullopt;
    return type.isDynamicDim(*index) ? extent : type.getDimSize(*index);
  }
  IntegerAttr constant;
  if (matchPattern(v, m_Constant(&constant)))
    return constant.getValue().getSExtValue();
  SmallVector<int64_t> x;
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> value = evaluateWithExtent(operand, extent);
    if (!value)
      return std::nullopt;
    x.push_back(*value);
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp>(def))
    return x[0];
  if (isa<arith::AddIOp>(def))
    return x[0] + x[1];
  if (isa<arith::SubIOp>(def))
    return x[0] - x[1];
  if (isa<arith::MulIOp>(def))
    return x[0] * x[1];
  if (isa<arith::MaxSIOp, arith::MaxUIOp>(def))
    return std::max(x[0], x[1]);
  if (isa<arith::MinSIOp, arith::MinUIOp>(def))
    return std::min(x[0], x[1]);
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::FloorDivSIOp,
          arith::CeilDivSIOp, arith::CeilDivUIOp, arith::RemSIOp,
          arith::RemUIOp>(def)) {
    if (x[1] == 0)
      return std::nullopt;
    if (isa<arith::CeilDivSIOp, arith::CeilDivUIOp>(def))
      return llvm::divideCeilSigned(x[0], x[1]);
    if (isa<arith::FloorDivSIOp>(def))
      return llvm::divideFloorSigned(x[0], x[1]);
    if (isa<arith::RemSIOp, arith::RemUIOp>(def))
      return x[0] % x[1];
    return x[0] / x[1];
  }
  if (isa<arith::SelectOp>(def)) {
    // Both sides are plausible sizes; the larger ranks conservatively.
    return std::max(x[1], x[2]);
  }
  auto fold = [&](AffineMap map) -> std::optional<SmallVector<int64_t>> {
    SmallVector<Attribute> operands;
    Builder b(def->getContext());
    for (int64_t value : x)
      operands.push_back(b.getIndexAttr(value));
    SmallVector<Attribute> results;
    if (failed(map.constantFold(operands, results)))
      return std::nullopt;
    SmallVector<int64_t> values;
    for (Attribute r : results)
      values.push_back(cast<IntegerAttr>(r).getInt());
    return values;
  };
  if (auto apply = dyn_cast<affine::AffineApplyOp>(def)) {
    if (auto r = fold(apply.getAffineMap()))
      return (*r)[0];
  } else if (auto max = dyn_cast<affine::AffineMaxOp>(def)) {
    if (auto r = fold(max.getAffineMap()))
      return *llvm::max_element(*r);
  } else if (auto min = dyn_cast<affine::AffineMinOp>(def)) {
    if (auto r = fold(min.getAffineMap()))
      return *llvm::min_element(*r);
  }
  return std::nullopt;
}

} // namespace kiln
