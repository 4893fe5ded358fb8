//===- FlattenConstantGlobals.cpp - One-dimensional weight globals --------===//
//
// Translation to LLVM IR builds a nested constant per row of a nested array:
// a 384x384x1x1 convolution weight becomes 147456 one-element
// ConstantDataArrays wrapped in as many ConstantArrays, each uniqued in the
// LLVMContext. For the PP-OCRv4 detector that took 2 s to build and again
// time to free. A flat array of the same elements has the same bytes and
// layout, and with opaque pointers every access carries its own element type
// (the getelementptr of the memref descriptor), so only the global changes.
// Floats and wider integers become bytes: LLVM emits those one block at a
// time, and arrays of floats one element at a time.
//
//===----------------------------------------------------------------------===//

#include "lowering/emit/FlattenConstantGlobals.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>

using namespace mlir;

namespace kiln {

/// Whether `element` arrays are emitted element by element by LLVM's
/// AsmPrinter (floats and integers wider than a byte, whose bytes are laid
/// out as in memory), where a byte array is one copy.
static bool emittedPerElement(Type element) {
  if (isa<FloatType>(element))
    return true;
  auto integer = dyn_cast<IntegerType>(element);
  return integer && integer.getWidth() > 8 && integer.getWidth() % 8 == 0;
}

void flattenConstantGlobals(ModuleOp module) {
  MLIRContext *ctx = module.getContext();
  Type byte = IntegerType::get(ctx, 8);
  for (auto global : module.getOps<LLVM::GlobalOp>()) {
    auto type = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (!global.getConstant() || !type)
      continue;
    Type element = type;
    while (auto inner = dyn_cast<LLVM::LLVMArrayType>(element))
      element = inner.getElementType();
    Attribute value = global.getValueOrNull();
    auto elements = dyn_cast_or_null<ElementsAttr>(value);
    if (!elements || elements.getElementType() != element)
      continue;
    int64_t count = elements.getNumElements();
    // As bytes where LLVM would emit the elements one by one: the
    // AsmPrinter writes a float array element by element (VGG-11's 507 MB
    // of weights: most of its 8 s of code generation), a byte array as one
    // block. Splats stay: they are emitted as fills.
    auto dense = dyn_cast<DenseElementsAttr>(value);
    auto resource = dyn_cast<DenseResourceElementsAttr>(value);
    int64_t width = element.isIntOrFloat()
                        ? int64_t(element.getIntOrFloatBitWidth()) / 8
                        : 0;
    if (emittedPerElement(element) && width > 0 &&
        ((dense && !dense.isSplat()) || resource)) {
      auto bytesType = RankedTensorType::get({count * width}, byte);
      Attribute bytes = dense ? Attribute(DenseElementsAttr::getFromRawBuffer(
                                    bytesType, dense.getRawData()))
                              : Attribute(DenseResourceElementsAttr::get(
                                    bytesType, resource.getRawHandle()));
      // The bytes keep the elements' alignment (at least 16, as LLVM gives
      // a large array of floats).
      uint64_t align = std::max<uint64_t>(
          {global.getAlignment().value_or(0), uint64_t(width), 16});
      global.setAlignment(align);
      global.setGlobalType(LLVM::LLVMArrayType::get(byte, count * width));
      global.setValueAttr(bytes);
      continue;
    }
    if (!isa<LLVM::LLVMArrayType>(type.getElementType()))
      continue;
    auto flatType = RankedTensorType::get({count}, element);
    Attribute flat;
    if (dense)
      flat = dense.reshape(flatType);
    else if (resource)
      flat = DenseResourceElementsAttr::get(flatType, resource.getRawHandle());
    else
      continue;
    global.setGlobalType(LLVM::LLVMArrayType::get(element, count));
    global.setValueAttr(flat);
  }
}

} // namespace kiln
