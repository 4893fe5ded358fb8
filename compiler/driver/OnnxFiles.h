//===- OnnxFiles.h - ONNX model files read and written as protobuf -*- C++
//-*-===//
//
// `kiln prune` and `kiln quantize` rewrite an ONNX model as protobuf (no
// import): both read, name and write the files the same way.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_ONNXFILES_H
#define KILN_COMPILER_DRIVER_ONNXFILES_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace kiln::driver {

/// Reads and parses the model at `path`; 0, or the exit code after printing
/// why ("cannot read ..." or "...: not a valid ONNX model").
int readOnnxModel(const std::string &path, onnx::ModelProto &model);

/// Writes `model` to `path`; "" or why not.
std::string writeOnnxModel(const onnx::ModelProto &model,
                           const std::string &path);

/// `input` without its ".onnx" and with `suffix` ("m.onnx", ".int8.onnx" ->
/// "m.int8.onnx"): the default output of a model rewrite.
std::string derivedModelPath(llvm::StringRef input, llvm::StringRef suffix);

} // namespace kiln::driver

#endif // KILN_COMPILER_DRIVER_ONNXFILES_H
