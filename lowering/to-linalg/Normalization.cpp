//===- Normalization.cpp - kiln.graph to linalg patterns ---------------------------===//

#include "lowering/to-linalg/Patterns.h"

using namespace mlir;

namespace kiln {

void populateNormalizationLoweringPatterns(GraphTypeConverter &converter,
                                  RewritePatternSet &patterns) {}

} // namespace kiln
