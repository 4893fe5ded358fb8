//===- TensorConversion.h - ONNX tensors and types to MLIR ------*- C++ -*-===//
//
// Element types, value types and TensorProto contents. All functions validate
// their input and describe a problem in `why` (without a location prefix) so
// callers can add the node or initializer they were converting.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_IMPORTER_TENSORCONVERSION_H
#define KILN_COMPILER_IMPORTER_TENSORCONVERSION_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

#include <onnx/onnx_pb.h>

#include <string>

namespace kiln::importer {

/// Tensors with more elements than this become DenseResourceElementsAttr
/// blobs; smaller ones stay DenseElementsAttr so folders and shape inference
/// can read them.
constexpr int64_t kMaxInlineElements = 64;

/// Largest tensor rank accepted from a model; real models stay far below.
constexpr int kMaxRank = 64;

/// Whether the static dims of `shape` (dynamic ones are skipped) give a byte
/// size that fits in int64 for any element type (8 bytes at most): larger
/// tensors cannot exist, and their sizes would wrap in the memory plan.
bool hasAddressableSize(llvm::ArrayRef<int64_t> shape);

/// Name of an ONNX TensorProto.DataType code, e.g. "float16" or "string".
std::string onnxTypeName(int32_t dataType);

/// Maps an ONNX element type: floats, bfloat16, signless iN for intN,
/// unsigned uiN for uintN, i1 for bool. Fails for string, complex, float8...
mlir::FailureOr<mlir::Type>
convertElementType(mlir::MLIRContext &ctx, int32_t dataType, std::string &why);

/// A graph input/output or value_info type. Symbolic or unknown dims are
/// dynamic; `dimParams` keeps their names ("" for static or unnamed dims).
struct ValueTypeInfo {
  mlir::TensorType type;
  llvm::SmallVector<std::string> dimParams;
};
mlir::FailureOr<ValueTypeInfo> convertTypeProto(mlir::MLIRContext &ctx,
                                                const onnx::TypeProto &type,
                                                std::string &why);

/// Converts the contents of `tensor`. Large tensors become a resource blob
/// named after `blobName`; the data is copied exactly once.
mlir::FailureOr<mlir::ElementsAttr>
convertTensorProto(mlir::MLIRContext &ctx, const onnx::TensorProto &tensor,
                   llvm::StringRef blobName, std::string &why);

} // namespace kiln::importer

#endif // KILN_COMPILER_IMPORTER_TENSORCONVERSION_H
