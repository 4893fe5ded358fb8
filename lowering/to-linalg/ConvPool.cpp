//===- ConvPool.cpp - kiln.graph to linalg patterns ---------------------------===//

#include "lowering/to-linalg/Patterns.h"

using namespace mlir;

namespace kiln {

void populateConvPoolLoweringPatterns(GraphTypeConverter &converter,
                                  RewritePatternSet &patterns) {}

} // namespace kiln
