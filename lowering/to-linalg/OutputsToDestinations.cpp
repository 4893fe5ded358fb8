//===- OutputsToDestinations.cpp - Results into caller-owned buffers ------===//

#include "lowering/to-linalg/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

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

    SmallVector<Type> newInputs(type.getInputs());
    SmallVector<DictionaryAttr> argAttrs;
    for (unsigned i = 0; i < type.getNumInputs(); ++i)
      argAttrs.push_back(fn.getArgAttrDict(i));
    for (unsigned i = 0; i < type.getNumResults(); ++i) {
      auto tensor = dyn_cast<RankedTensorType>(type.getResult(i));
      if (!tensor) {
        fn.emitError("entry results must be ranked tensors");
        return signalPassFailure();
      }
      newInputs.push_back(
          MemRefType::get(tensor.getShape(), tensor.getElementType()));
      argAttrs.push_back(fn.getResultAttrDict(i));
    }
    Block &body = fn.getBody().front();
    auto ret = cast<func::ReturnOp>(body.getTerminator());
    OpBuilder b(ret);
    for (auto [i, value] : llvm::enumerate(ret.getOperands())) {
      Value dest =
          body.addArgument(newInputs[type.getNumInputs() + i], fn.getLoc());
      auto op = bufferization::MaterializeInDestinationOp::create(
          b, ret.getLoc(), TypeRange{}, value, dest);
      op.setWritable(true);
      op.setRestrict(true);
    }
    func::ReturnOp::create(b, ret.getLoc());
    ret.erase();
    fn.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    fn.setFunctionType(FunctionType::get(ctx, newInputs, {}));
    for (DictionaryAttr &attrs : argAttrs)
      if (!attrs)
        attrs = DictionaryAttr::get(ctx);
    fn.setAllArgAttrs(argAttrs);
  }
};
} // namespace
} // namespace kiln
