//===- PostTrainingQuantization.h - INT8 QDQ models from calibration -*- C++
//-*-===//
//
// `kiln quantize`: the float inputs of Conv, MatMul and Gemm nodes with
// constant float weights are calibrated on sample inputs (their value ranges
// observed by running the fp32 model), and the model is rewritten in the
// standard ONNX QDQ form: activations through QuantizeLinear/
// DequantizeLinear to uint8 with a per-tensor scale and zero point
// (asymmetric), weights stored as int8 with symmetric per-tensor or
// per-output-channel scales and a DequantizeLinear. Any ONNX runtime runs
// the result; kiln imports it like any QDQ model.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_QUANTIZATION_POSTTRAININGQUANTIZATION_H
#define KILN_COMPILER_QUANTIZATION_POSTTRAININGQUANTIZATION_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace kiln {

struct QuantizeOptions {
  enum class Method { MinMax, Percentile, Entropy } method = Method::MinMax;
  /// Percentile of |x| kept by Method::Percentile.
  double percentile = 99.999;
  /// Weight scales per output channel (else one per tensor).
  bool perChannel = false;
};

/// Parses "minmax", "percentile" or "entropy"; false for anything else.
bool parseCalibrationMethod(const std::string &text,
                            QuantizeOptions::Method &method);

/// What one activation's samples looked like: the range, then (for the
/// percentile and entropy methods) a histogram over it, filled in a second
/// pass over the samples once the range is known.
class ActivationStats {
public:
  static constexpr int kBins = 2048;
  void observeRange(const float *x, int64_t n);
  /// Needs the range of every sample first.
  void observeHistogram(const float *x, int64_t n);
  /// The clipping range [lo, hi] the method picks (lo <= 0 <= hi).
  std::pair<double, double> range(const QuantizeOptions &options) const;
  bool seen() const { return min <= max; }

private:
  double min = 1e300, max = -1e300;
  /// Of x over [0, max] when min >= 0 (after a ReLU), else of |x| over
  /// [0, max(|min|, |max|)].
  std::vector<double> histogram;
  double histogramTop() const;
};

/// The activations to calibrate: the first input of every Conv, MatMul and
/// Gemm whose weight (second input) is a float initializer, in node order,
/// each once.
std::vector<std::string> findCalibrationTensors(const onnx::ModelProto &model);

/// `model` with `tensors` added as graph outputs (float, shape unknown), so
/// that a run reports their values.
onnx::ModelProto addCalibrationOutputs(const onnx::ModelProto &model,
                                       const std::vector<std::string> &tensors);

/// What happened to one node.
struct QuantizedNode {
  std::string node, opType, activation, weight;
  double scale = 0; ///< of the activation
  int64_t zeroPoint = 0;
  int64_t weightScales = 0; ///< 1 per tensor, else per channel
  std::string skipped;      ///< why it stayed fp32; empty if quantized
};

/// Rewrites `model` in place into QDQ form with the activation `ranges`
/// (from ActivationStats::range). Nodes whose activation has no range stay
/// fp32 (reported). False with `error` when the model cannot take it (an
/// opset below 13 with per-channel weights, below 10 at all).
bool quantizeModel(
    onnx::ModelProto &model,
    const std::map<std::string, std::pair<double, double>> &ranges,
    const QuantizeOptions &options, std::vector<QuantizedNode> &report,
    std::string &error);

} // namespace kiln

#endif // KILN_COMPILER_QUANTIZATION_POSTTRAININGQUANTIZATION_H
