//===- GraphDialect.cpp - kiln.graph dialect registration -----------------===//

#include "dialects/graph/GraphDialect.h"
#include "dialects/graph/GraphOps.h"

using namespace mlir;
using namespace kiln::graph;

#include "dialects/graph/GraphDialect.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/graph/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder,
                                             Attribute value, Type type,
                                             Location loc) {
  if (isa<NoneType>(type))
    return NoValueOp::create(builder, loc);
  if (auto elements = dyn_cast<ElementsAttr>(value))
    if (elements.getType() == type)
      return ConstantOp::create(builder, loc, elements);
  return nullptr;
}
