//===- OutputsToDestinations.cpp - Results into caller-owned buffers ------===//

#include "lowering/to-linalg/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_OUTPUTSTODESTINATIONS
#include "lowering/to-linalg/Passes.h.inc"
} // namespace kiln

namespace kiln {
namespace {
struct OutputsToDestinationsPass
    : impl::OutputsToDestinationsBase<OutputsToDestinationsPass> {
  void runOnOperation() override {
    func::FuncOp fn = getOperation();
    if (fn.isExternal() || fn.getNumResults() == 0)
      return;
    MLIRContext *ctx = &getContext();
    FunctionType type = fn.getFunctionType();
    for (unsigned i = 0; i < type.getNumInputs(); ++i)
      if (isa<TensorType>(type.getInput(i)))
        fn.setArgAttr(i, bufferization::BufferizationDialect::kWritableAttrName,
                      BoolAttr::get(ctx, false));

    // Results sized at run time stay results: the run allocates them.
    llvm::SmallDenseSet<int64_t> keep;
    if (auto list = fn->getAttrOfType<DenseI64ArrayAttr>(kRunTimeOutputsAttr))
      keep.insert(list.asArrayRef().begin(), list.asArrayRef().end());
    SmallVector<Type> newInputs(type.getInputs()), newResults;
    SmallVector<DictionaryAttr> argAttrs;
    for (unsigned i = 0; i < type.getNumInputs(); ++i)
      argAttrs.push_back(fn.getArgAttrDict(i));
    for (unsigned i = 0; i < type.getNumResults(); ++i) {
      auto tensor = dyn_cast<RankedTensorType>(type.getResult(i));
      if (!tensor) {
        fn.emitError("entry results must be ranked tensors");
        return signalPassFailure();
      }
      if (keep.contains(i)) {
        newResults.push_back(tensor);
        continue;
      }
      newInputs.push_back(
          MemRefType::get(tensor.getShape(), tensor.getElementType()));
      argAttrs.push_back(fn.getResultAttrDict(i));
    }
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder b(ret);
    SmallVector<Value> kept;
    unsigned nextArg = type.getNumInputs();
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      if (keep.contains(i)) {
        // A returned view (a slice, a reshape) would reach the caller as a
        // memref.cast to the identity layout, which bufferization accepts
        // whenever the dims are dynamic even if the view is not contiguous:
        // the run hands back a copy of its own.
        kept.push_back(bufferization::AllocTensorOp::create(
            b, ret.getLoc(), cast<RankedTensorType>(value.getType()),
            ValueRange{}, value));
        continue;
      }
      Value dest = body.addArgument(newInputs[nextArg++], fn.getLoc());
      auto op = bufferization::MaterializeInDestinationOp::create(
          b, ret.getLoc(), TypeRange{}, value, dest);
      op.setWritable(true);
      op.setRestrict(true);
    }
    func::ReturnOp::create(b, ret.getLoc(), kept);
    ret.erase();
    fn.setFunctionType(FunctionType::get(ctx, newInputs, newResults));
    fn.setAllResultAttrs(SmallVector<DictionaryAttr>(newResults.size(),
                                                     DictionaryAttr::get(ctx)));
    for (DictionaryAttr &attrs : argAttrs)
      if (!attrs)
        attrs = DictionaryAttr::get(ctx);
    fn.setAllArgAttrs(argAttrs);
  }
};
} // namespace
} // namespace kiln
