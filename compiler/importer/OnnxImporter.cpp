//===- OnnxImporter.cpp - ONNX model to kiln.graph ------------------------===//
//
// Model-level checks (protobuf, IR version, opset imports) and the module
// around the imported graph.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/OnnxImporter.h"
#include "compiler/importer/ExternalData.h"
#include "compiler/importer/GraphImporter.h"

#include "dialects/graph/GraphDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <climits>

using namespace mlir;

namespace kiln::importer {

FailureOr<OwningOpRef<ModuleOp>>
importOnnxModelFromBuffer(MLIRContext &ctx, llvm::StringRef bytes,
                          llvm::StringRef displayName, std::string &error,
                          llvm::StringRef modelDir,
                          const ImportOptions &options) {
  ctx.loadDialect<kiln::graph::GraphDialect, func::FuncDialect>();
  std::string file = escaped(displayName);
  auto fail = [&](const llvm::Twine &msg) {
    error = file + ": " + msg.str();
    return failure();
  };
  if (bytes.empty())
    return fail("not a valid ONNX model (empty file)");
  if (bytes.size() > size_t(INT_MAX))
    return fail("models larger than 2 GiB are not supported");

  onnx::ModelProto model;
  if (!model.ParseFromArray(bytes.data(), int(bytes.size())))
    return fail("not a valid ONNX model (protobuf parse failed)");
  // Protobuf accepts many byte strings; a model needs at least these.
  if (!model.has_graph())
    return fail("not a valid ONNX model (no graph)");
  if (model.ir_version() < 3)
    return fail("not a valid ONNX model (IR version " +
                std::to_string(model.ir_version()) +
                "; opset imports need IR version 3 or newer)");

  std::optional<int64_t> opset;
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (!id.domain().empty() && id.domain() != "ai.onnx")
      continue;
    if (opset && *opset != id.version())
      return fail("conflicting opset imports for the default domain");
    opset = id.version();
  }
  if (!opset)
    return fail("no opset import for the default ONNX domain");
  if (*opset < kMinOpset || *opset > kMaxOpset)
    return fail("unsupported default-domain opset " + std::to_string(*opset) +
                " (supported: " + std::to_string(kMinOpset) + " to " +
                std::to_string(kMaxOpset) + ")");

  std::string externalError;
  if (!loadExternalData(model, modelDir, externalError))
    return fail(externalError);

  Builder b(&ctx);
  OwningOpRef<ModuleOp> module =
      ModuleOp::create(FileLineColLoc::get(&ctx, file, 0, 0));
  std::string producer = model.producer_name();
  if (!model.producer_version().empty())
    producer += " " + model.producer_version();
  (*module)->setAttr("kiln.opset", b.getI64IntegerAttr(*opset));
  (*module)->setAttr("kiln.producer", b.getStringAttr(producer));

  GraphImporter importer(ctx, file, *opset, error, &options);
  if (failed(importer.importGraph(model.graph(), *module)))
    return failure();
  return module;
}

FailureOr<OwningOpRef<ModuleOp>> importOnnxModel(MLIRContext &ctx,
                                                 llvm::StringRef modelPath,
                                                 std::string &error,
                                                 const ImportOptions &options) {
  llvm::StringRef path = modelPath;
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error =
        escaped(path) + ": cannot read file: " + buffer.getError().message();
    return failure();
  }
  llvm::SmallString<256> dir(modelPath);
  llvm::sys::path::remove_filename(dir);
  if (dir.empty())
    dir = ".";
  return importOnnxModelFromBuffer(ctx, (*buffer)->getBuffer(), path, error,
                                   dir, options);
}

bool parseInputShape(llvm::StringRef text, ImportOptions &options,
                     std::string &error) {
  auto [name, dims] = text.rsplit('=');
  if (name.empty() || dims.empty() || name == text) {
    error = "--input-shape '" + text.str() +
            "': expected NAME=DxDx... (e.g. "
            "x=1x3x224x224, ? for a dynamic dim)";
    return false;
  }
  llvm::SmallVector<llvm::StringRef> parts;
  dims.split(parts, 'x');
  llvm::SmallVector<int64_t> shape;
  for (llvm::StringRef d : parts) {
    int64_t v;
    if (d == "?")
      v = ShapedType::kDynamic;
    else if (d.getAsInteger(10, v) || v < 0) {
      error = "--input-shape '" + text.str() + "': '" + d.str() +
              "' is not a dim (a number, or ? for dynamic)";
      return false;
    }
    shape.push_back(v);
  }
  if (!options.inputShapes.emplace(name.str(), shape).second) {
    error = "--input-shape: input '" + name.str() + "' is given twice";
    return false;
  }
  return true;
}

} // namespace kiln::importer
