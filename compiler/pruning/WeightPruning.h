//===- WeightPruning.h - Magnitude pruning of ONNX weights ------*- C++ -*-===//
//
// `kiln prune`: zeroes the smallest-magnitude weights of the Conv, MatMul and
// Gemm nodes of an ONNX model, unstructured, 2:4 (two of every four
// consecutive weights along the reduction, what sparse tensor cores run) or in
// blocks (RxC tiles of the output x reduction view, what block-sparse kernels
// skip). The result is a standard ONNX model: any runtime can run it, and
// kiln's sparsity pass finds the zeros at compile time.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_PRUNING_WEIGHTPRUNING_H
#define KILN_COMPILER_PRUNING_WEIGHTPRUNING_H

#include <cstdint>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
class TensorProto;
} // namespace onnx

namespace kiln {

struct PruneOptions {
  enum class Pattern {
    Unstructured,
    TwoFour,
    Block
  } pattern = Pattern::Unstructured;
  /// Fraction of weights (of blocks, for Block) set to zero; 2:4 is 0.5.
  double sparsity = 0.5;
  int64_t blockRows = 4, blockCols = 4;
  /// Weights with fewer elements stay dense (first and last layers are
  /// often small and sensitive).
  int64_t minElements = 0;
};

/// Parses "unstructured", "2:4" or "block:RxC"; false with `error` set.
bool parsePrunePattern(const std::string &text, PruneOptions &options,
                       std::string &error);

/// What happened to one weight tensor.
struct PrunedTensor {
  std::string name, node, opType;
  std::vector<int64_t> dims;
  int64_t zeros = 0, elements = 0; ///< after pruning
  std::string skipped;             ///< why it stayed as it was; empty if pruned
};

/// Prunes `model`'s weights in place; false with `error` set for a model it
/// cannot read (a weight that is not plain float data is skipped, with the
/// reason in the report).
bool pruneModel(onnx::ModelProto &model, const PruneOptions &options,
                std::vector<PrunedTensor> &report, std::string &error);

/// Reads a float initializer's `elements` values (raw_data or float_data);
/// false, with `why`, for other types, external data or a size mismatch.
/// Shared with `kiln quantize`.
bool readFloats(const onnx::TensorProto &t, std::vector<float> &out,
                int64_t elements, std::string &why);

} // namespace kiln

#endif // KILN_COMPILER_PRUNING_WEIGHTPRUNING_H
