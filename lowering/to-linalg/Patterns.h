//===- Patterns.h - kiln.graph to linalg patterns ---------------*- C++ -*-===//
//
// One populate function per op family; ConvertGraphToLinalg.cpp assembles
// them. Every pattern is an OpConversionPattern using GraphTypeConverter.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TOLINALG_PATTERNS_H
#define KILN_LOWERING_TOLINALG_PATTERNS_H

#include "mlir/Transforms/DialectConversion.h"

namespace kiln {

/// Maps unsigned integer element types to signless ones; everything else is
/// kept. `none` (absent optional inputs) converts to itself and is only used
/// by patterns to test for absence.
class GraphTypeConverter : public mlir::TypeConverter {
public:
  GraphTypeConverter();
};

void populateElementwiseLoweringPatterns(GraphTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
void populateElementwiseMathLoweringPatterns(GraphTypeConverter &converter,
                                             mlir::RewritePatternSet &patterns);
void populateQuantizationLoweringPatterns(GraphTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);
void populateEinsumLoweringPatterns(GraphTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateRecurrentLoweringPatterns(GraphTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);
void populateControlFlowLoweringPatterns(GraphTypeConverter &converter,
                                         mlir::RewritePatternSet &patterns);
void populateMatMulLoweringPatterns(GraphTypeConverter &converter,
                                    mlir::RewritePatternSet &patterns);
void populateConvPoolLoweringPatterns(GraphTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);
void populateNormalizationLoweringPatterns(GraphTypeConverter &converter,
                                           mlir::RewritePatternSet &patterns);
void populateReductionLoweringPatterns(GraphTypeConverter &converter,
                                       mlir::RewritePatternSet &patterns);
void populateDataMovementLoweringPatterns(GraphTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);
/// NonZero, Compress, Unique, NonMaxSuppression (DataDependent.cpp).
void populateDataDependentPatterns(GraphTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);
/// QuantizedConv and QuantizedMatMul (integer products, packed weights).
void populateQuantizedContractionPatterns(GraphTypeConverter &converter,
                                          mlir::RewritePatternSet &patterns);
/// Convs and matmuls marked for bf16/f16 (dialects/graph/ComputeType.h).
void populateReducedPrecisionPatterns(GraphTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns);
/// kiln.kernel convolutions and max pooling (channels-last) to upstream
/// named ops.
void populateKernelConvLoweringPatterns(GraphTypeConverter &converter,
                                        mlir::RewritePatternSet &patterns);

/// All of the above: the kiln.graph to linalg conversion.
void populateGraphToLinalgPatterns(GraphTypeConverter &converter,
                                   mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_PATTERNS_H
