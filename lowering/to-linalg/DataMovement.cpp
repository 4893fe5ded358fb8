//===- DataMovement.cpp - kiln.graph to linalg patterns ---------------------------===//

#include "lowering/to-linalg/Patterns.h"

using namespace mlir;

namespace kiln {

void populateDataMovementLoweringPatterns(GraphTypeConverter &converter,
                                  RewritePatternSet &patterns) {}

} // namespace kiln
