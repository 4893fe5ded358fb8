//===- OnnxImporter.h - ONNX model to kiln.graph ----------------*- C++ -*-===//
//
// Turns an ONNX ModelProto into a module holding one `func.func @main` of
// kiln_graph ops. Older opsets are upgraded to the newest operator forms the
// dialect models. Every failure is reported as one line in `error`; malformed
// input never crashes the importer.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_COMPILER_IMPORTER_ONNXIMPORTER_H
#define KILN_COMPILER_IMPORTER_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace kiln::importer {

/// Default-domain opsets the importer accepts.
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;

/// Choices the user makes at import time.
struct ImportOptions {
  /// Graph input name -> dims that replace the model's (ShapedType::kDynamic
  /// keeps a dim symbolic). Every name must be a graph input, and the rank
  /// must match; a static dim of the model may not be changed.
  std::map<std::string, llvm::SmallVector<int64_t>> inputShapes;
};

/// Parses `--input-shape` values, `NAME=1x3x48x320` with `?` for a dim left
/// dynamic, into `options`; false with `error` set for a malformed one.
bool parseInputShape(llvm::StringRef text, ImportOptions &options,
                     std::string &error);

/// Imports the ONNX model stored at `path`. Loads the kiln_graph and func
/// dialects into `ctx`. On failure returns `mlir::failure()` and sets `error`
/// to one line starting with `path`, e.g.
///   `model.onnx: node 'conv1' (Conv, opset 11): attribute 'strides' must be
///   ints, got floats`.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(mlir::MLIRContext &ctx, llvm::StringRef path,
                std::string &error, const ImportOptions &options = {});

/// Same as importOnnxModel, from the serialized bytes of a ModelProto;
/// `displayName` stands in for the file name in messages and locations.
/// External data is read relative to `modelDir`, and refused without one.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModelFromBuffer(mlir::MLIRContext &ctx, llvm::StringRef bytes,
                          llvm::StringRef displayName, std::string &error,
                          llvm::StringRef modelDir = "",
                          const ImportOptions &options = {});

/// ONNX ops the importer rewrites into kiln_graph ops of other names
/// (Dropout into Identity, Upsample into Resize, ...).
std::vector<std::string> getRewrittenOpTypes();

/// ONNX ops that kiln_graph does not model but the importer expands into
/// their ONNX function bodies, where every op of the body is in `supported`
/// or is itself such an op.
std::vector<std::string>
getFunctionExpandedOpTypes(llvm::ArrayRef<std::string> supported);

} // namespace kiln::importer

#endif // KILN_COMPILER_IMPORTER_ONNXIMPORTER_H
