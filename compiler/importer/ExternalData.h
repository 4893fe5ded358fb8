//===- ExternalData.h - Initializers stored beside the model ----*- C++ -*-===//
//
// ONNX models over 2 GiB (and many exports) keep initializers in files next
// to the model: `data_location = EXTERNAL` with `location`, `offset` and
// `length` entries. These are read into the tensors before import. A
// location must stay inside the model's folder: absolute paths, `..` and
// symbolic links that lead out are refused, as are offsets and lengths
// beyond the file.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_IMPORTER_EXTERNALDATA_H
#define KILN_COMPILER_IMPORTER_EXTERNALDATA_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace kiln::importer {

/// Replaces the external data of every initializer of `model`'s graph with
/// the bytes it names, read relative to `modelDir`. An empty `modelDir` (a
/// model from memory) refuses external data. Returns false and sets `error`
/// to one line naming the initializer on failure.
bool loadExternalData(onnx::ModelProto &model, llvm::StringRef modelDir,
                      std::string &error);

} // namespace kiln::importer

#endif // KILN_COMPILER_IMPORTER_EXTERNALDATA_H
