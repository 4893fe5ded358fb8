//===- ModelSignature.h - Graph inputs/outputs as the ABI sees them -*- C++
//-*-===//
#ifndef KILN_LOWERING_EMIT_MODELSIGNATURE_H
#define KILN_LOWERING_EMIT_MODELSIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// One graph input or output: dims >= 0 are static, -(k+1) is symbol k.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; // ONNX TensorProto.DataType code
  std::vector<int64_t> dims;
};

struct ModelSignature {
  std::string name; // a C identifier
  std::vector<TensorSignature> inputs, outputs;
  std::vector<std::string> symbols;
};

/// Reads names, types and symbolic dims of the entry function as produced
/// by the importer (`kiln.name`, `kiln.dim_params` argument/result attrs).
/// A dynamic output dim must be tied to an input dim: by dim_param name, or
/// as the leading (batch) dim. Fails with a message otherwise.
llvm::Expected<ModelSignature> extractModelSignature(mlir::func::FuncOp entry);

/// Turns any string into a C identifier (used for names in the header).
std::string sanitizeIdentifier(llvm::StringRef name);

} // namespace kiln

#endif // KILN_LOWERING_EMIT_MODELSIGNATURE_H
