//===- LowerAmx.cpp - AMX tile ops to LLVM before the control flow --------===//
//
// The tiles of AmxTiles.cpp are loop-carried values (scf.for iter_args). The
// upstream AMX lowering converts tile types only inside convert-vector-to-
// llvm, after scf and cf have been lowered with a type converter that does
// not know them; so this pass converts the amx ops and the tile types of the
// structured control flow that carries them first, to LLVM intrinsics on
// x86_amx values. Memrefs and indices reach the intrinsics through casts
// that the final conversions reconcile.
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/AMX/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_LOWERAMX
#include "lowering/cpu/Passes.h.inc"

namespace {

struct LowerAmxPass : impl::LowerAmxBase<LowerAmxPass> {
  void runOnOperation() override {
    bool hasAmx = false;
    getOperation().walk([&](Operation *op) {
      if (isa<amx::AMXDialect>(op->getDialect()))
        hasAmx = true;
    });
    if (!hasAmx)
      return;
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    ConversionTarget target(*ctx);
    populateAMXLegalizeForLLVMExportPatterns(converter, patterns);
    target.addIllegalDialect<amx::AMXDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
} // namespace kiln
