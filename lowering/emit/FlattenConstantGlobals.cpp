//===- FlattenConstantGlobals.cpp - One-dimensional weight globals --------===//
//
// Translation to LLVM IR builds a nested constant per row of a nested array:
// a 384x384x1x1 convolution weight becomes 147456 one-element
// ConstantDataArrays wrapped in as many ConstantArrays, each uniqued in the
// LLVMContext. For the PP-OCRv4 detector that took 2 s to build and again
// time to free. A flat array of the same elements has the same bytes and
// layout, and with opaque pointers every access carries its own element type
// (the getelementptr of the memref descriptor), so only the global changes.
//
//===----------------------------------------------------------------------===//

#include "lowering/emit/FlattenConstantGlobals.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace kiln {

void flattenConstantGlobals(ModuleOp module) {
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto type = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (!global.getConstant() || !type ||
        !isa<LLVM::LLVMArrayType>(type.getElementType()))
      continue;
    Type element = type;
    while (auto inner = dyn_cast<LLVM::LLVMArrayType>(element))
      element = inner.getElementType();
    Attribute value = global.getValueOrNull();
    auto elements = dyn_cast_or_null<ElementsAttr>(value);
    if (!elements || elements.getElementType() != element)
      continue;
    auto flatType = RankedTensorType::get({elements.getNumElements()}, element);
    Attribute flat;
    if (auto dense = dyn_cast<DenseElementsAttr>(value))
      flat = dense.reshape(flatType);
    else if (auto resource = dyn_cast<DenseResourceElementsAttr>(value))
      flat = DenseResourceElementsAttr::get(flatType, resource.getRawHandle());
    else
      continue;
    global.setGlobalType(
        LLVM::LLVMArrayType::get(element, elements.getNumElements()));
    global.setValueAttr(flat);
  }
}

} // namespace kiln
