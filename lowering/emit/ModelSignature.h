//===- ModelSignature.h - Graph inputs/outputs as the ABI sees them -*- C++
//-*-===//
#ifndef KILN_LOWERING_EMIT_MODELSIGNATURE_H
#define KILN_LOWERING_EMIT_MODELSIGNATURE_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// One graph input or output: dims >= 0 are static, -(k+1) is symbol k,
/// KILN_DIM_AT_RUN_TIME an extent only the run computes.
struct TensorSignature {
  std::string name;
  int32_t dtype = 0; // ONNX TensorProto.DataType code
  std::vector<int64_t> dims;
  /// An output the run allocates: some dim is neither static nor an input's.
  bool sizedAtRunTime = false;
  /// Each symbolic dim of an output and the (input, dim) it is assumed to
  /// equal: one with the same dim_param, or the inputs' leading dim for a
  /// leading dim without one. checkOutputTies decides.
  std::vector<std::pair<int64_t, std::pair<int64_t, int64_t>>> ties;
};

struct ModelSignature {
  std::string name; // a C identifier
  std::vector<TensorSignature> inputs, outputs;
  std::vector<std::string> symbols;
};

/// Reads names, types and symbolic dims of the entry function as produced
/// by the importer (`kiln.name`, `kiln.dim_params` argument/result attrs).
/// A dynamic output dim is tied to an input dim by dim_param name, or as
/// the leading (batch) dim (to be checked by checkOutputTies); an output
/// with any other dynamic dim is sized at run time (all its dynamic dims
/// KILN_DIM_AT_RUN_TIME).
llvm::Expected<ModelSignature> extractModelSignature(mlir::func::FuncOp entry);

/// Checks on the lowered entry (tensors, before destination passing) that
/// each assumed tie holds: the output's extent provably equals the input's
/// (ValueBoundsConstraintSet). An output where one cannot be shown, a model
/// whose dim names promise more than its computation gives included, is
/// sized at run time. Returns the indices of the outputs sized at run time.
llvm::SmallVector<int64_t> checkOutputTies(mlir::func::FuncOp entry,
                                           ModelSignature &sig);

/// "[N, 3, (run time)]": `t`'s dims with symbols by name, as the header and
/// `kiln inspect` print them.
std::string formatDims(const TensorSignature &t, const ModelSignature &sig);

/// Turns any string into a C identifier (used for names in the header).
std::string sanitizeIdentifier(llvm::StringRef name);

} // namespace kiln

#endif // KILN_LOWERING_EMIT_MODELSIGNATURE_H
