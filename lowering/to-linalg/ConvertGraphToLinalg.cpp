//===- ConvertGraphToLinalg.cpp - Assemble the to-linalg patterns ---------===//

#include "dialects/graph/GraphOps.h"
#include "dialects/kernel/KernelDialect.h"
#include "lowering/to-linalg/Passes.h"
#include "lowering/to-linalg/Patterns.h"

#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALG
#include "lowering/to-linalg/Passes.h.inc"
} // namespace kiln

namespace kiln {

static Type toSignless(Type t) {
  auto i = dyn_cast<IntegerType>(t);
  if (i && !i.isSignless())
    return IntegerType::get(t.getContext(), i.getWidth());
  return t;
}

GraphTypeConverter::GraphTypeConverter() {
  addConversion([](Type t) { return t; });
  addConversion([](RankedTensorType t) -> Type {
    return t.clone(toSignless(t.getElementType()));
  });
  addConversion([](UnrankedTensorType t) -> Type {
    return UnrankedTensorType::get(toSignless(t.getElementType()));
  });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  addSourceMaterialization(materialize);
  addTargetMaterialization(materialize);
}

void populateGraphToLinalgPatterns(GraphTypeConverter &converter,
                                   RewritePatternSet &patterns) {
  populateElementwiseLoweringPatterns(converter, patterns);
  populateElementwiseMathLoweringPatterns(converter, patterns);
  populateQuantizationLoweringPatterns(converter, patterns);
  populateQuantizedContractionPatterns(converter, patterns);
  populateMatMulLoweringPatterns(converter, patterns);
  populateEinsumLoweringPatterns(converter, patterns);
  populateRecurrentLoweringPatterns(converter, patterns);
  populateControlFlowLoweringPatterns(converter, patterns);
  populateConvPoolLoweringPatterns(converter, patterns);
  populateNormalizationLoweringPatterns(converter, patterns);
  populateReductionLoweringPatterns(converter, patterns);
  populateDataMovementLoweringPatterns(converter, patterns);
  populateKernelConvLoweringPatterns(converter, patterns);
  populateReducedPrecisionPatterns(converter, patterns);
  populateDataDependentPatterns(converter, patterns);
}

namespace {
struct ConvertGraphToLinalgPass
    : impl::ConvertGraphToLinalgBase<ConvertGraphToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    GraphTypeConverter converter;
    RewritePatternSet patterns(ctx);
    populateGraphToLinalgPatterns(converter, patterns);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, scf::SCFDialect,
                           tensor::TensorDialect,
                           bufferization::BufferizationDialect>();
    target.addIllegalDialect<graph::GraphDialect>();
    target.addIllegalDialect<kernel::KernelDialect>();
    // Absent-input placeholders are read by the patterns of their users and
    // erased once unused.
    target.addLegalOp<ModuleOp, graph::NoValueOp>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return converter.isSignatureLegal(op.getFunctionType()) &&
             converter.isLegal(&op.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp>(
        [&](func::ReturnOp op) { return converter.isLegal(op); });

    ModuleOp module = getOperation();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      return signalPassFailure();
    module.walk([](graph::NoValueOp op) {
      if (op->use_empty())
        op->erase();
    });
  }
};
} // namespace

} // namespace kiln
