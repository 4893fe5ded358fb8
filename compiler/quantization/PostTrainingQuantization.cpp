//===- PostTrainingQuantization.cpp - INT8 QDQ models from calibration ----===//

#include "compiler/quantization/PostTrainingQuantization.h"
#include "compiler/pruning/WeightPruning.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace kiln {

bool parseCalibrationMethod(const std::string &text,
                            QuantizeOptions::Method &method) {
  if (text == "minmax")
    method = QuantizeOptions::Method::MinMax;
  else if (text == "percentile")
    method = QuantizeOptions::Method::Percentile;
  else if (text == "entropy")
    method = QuantizeOptions::Method::Entropy;
  else
    return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Calibration statistics
//===----------------------------------------------------------------------===//

void ActivationStats::observeRange(const float *x, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]))
      continue;
    min = std::min(min, double(x[i]));
    max = std::max(max, double(x[i]));
  }
}

double ActivationStats::histogramTop() const {
  return min >= 0 ? max : std::max(std::fabs(min), std::fabs(max));
}

void ActivationStats::observeHistogram(const float *x, int64_t n) {
  if (histogram.empty())
    histogram.assign(kBins, 0);
  double top = histogramTop();
  if (!(top > 0))
    return;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]))
      continue;
    double v = std::fabs(double(x[i]));
    int64_t bin = std::min<int64_t>(kBins - 1, int64_t(v / top * kBins));
    histogram[bin] += 1;
  }
}

/// The bin count whose upper edge keeps `percent` of the histogram.
static int64_t percentileBins(const std::vector<double> &h, double percent) {
  double total = 0;
  for (double c : h)
    total += c;
  double want = total * percent / 100, sum = 0;
  for (size_t i = 0; i < h.size(); ++i) {
    sum += h[i];
    if (sum >= want)
      return i + 1;
  }
  return h.size();
}

/// The bin count whose threshold minimizes the KL divergence between the
/// clipped distribution and its `levels`-level quantization (the TensorRT
/// entropy calibration).
static int64_t entropyBins(const std::vector<double> &h, int64_t levels) {
  int64_t bins = h.size(), best = bins;
  double bestKl = INFINITY;
  std::vector<double> p, q;
  for (int64_t i = levels; i <= bins; i += 8) {
    p.assign(h.begin(), h.begin() + i);
    for (int64_t k = i; k < bins; ++k)
      p[i - 1] += h[k];
    // Spread each of the `levels` chunks' total evenly over its non-empty
    // bins: what the quantized values can express.
    q.assign(i, 0);
    for (int64_t j = 0; j < levels; ++j) {
      int64_t start = j * i / levels, end = (j + 1) * i / levels;
      double total = 0;
      int64_t nonEmpty = 0;
      for (int64_t k = start; k < end; ++k) {
        total += h[k];
        nonEmpty += h[k] > 0;
      }
      for (int64_t k = start; k < end; ++k)
        if (h[k] > 0)
          q[k] = total / nonEmpty;
    }
    double sp = 0, sq = 0;
    for (int64_t k = 0; k < i; ++k) {
      sp += p[k];
      sq += q[k];
    }
    if (sp <= 0 || sq <= 0)
      continue;
    double kl = 0;
    for (int64_t k = 0; k < i; ++k) {
      if (p[k] <= 0)
        continue;
      double pk = p[k] / sp, qk = std::max(q[k] / sq, 1e-12);
      kl += pk * std::log(pk / qk);
    }
    if (kl < bestKl) {
      bestKl = kl;
      best = i;
    }
  }
  return best;
}

std::pair<double, double>
ActivationStats::range(const QuantizeOptions &options) const {
  if (!seen())
    return {0, 0};
  double lo = std::min(min, 0.0), hi = std::max(max, 0.0);
  if (options.method == QuantizeOptions::Method::MinMax || histogram.empty())
    return {lo, hi};
  bool nonNegative = min >= 0;
  // The KL minimum of a sparse histogram (few samples) can sit far inside
  // the bulk of the values: entropy never clips more than 1 % of them.
  int64_t bins = options.method == QuantizeOptions::Method::Percentile
                     ? percentileBins(histogram, options.percentile)
                     : std::max(entropyBins(histogram, nonNegative ? 256 : 128),
                                percentileBins(histogram, 99.0));
  double threshold = histogramTop() * double(bins) / kBins;
  return {std::max(lo, -threshold), std::min(hi, threshold)};
}

//===----------------------------------------------------------------------===//
// Finding what to quantize
//===----------------------------------------------------------------------===//

namespace {

bool isDefaultDomain(const onnx::NodeProto &n) {
  return n.domain().empty() || n.domain() == "ai.onnx";
}

/// The output-channel axis of a quantizable node's weight of rank `rank`,
/// or -1 when the node is not one kiln quantizes.
int64_t weightChannelAxis(const onnx::NodeProto &n, int64_t rank) {
  if (!isDefaultDomain(n) || n.input_size() < 2)
    return -1;
  if (n.op_type() == "Conv")
    return rank >= 3 ? 0 : -1;
  if (n.op_type() == "MatMul")
    return rank == 2 ? 1 : -1;
  if (n.op_type() == "Gemm") {
    if (rank != 2)
      return -1;
    for (const onnx::AttributeProto &a : n.attribute())
      if (a.name() == "transB" && a.i() != 0)
        return 0;
    return 1;
  }
  return -1;
}

std::map<std::string, const onnx::TensorProto *>
floatInitializers(const onnx::GraphProto &g) {
  std::map<std::string, const onnx::TensorProto *> out;
  for (const onnx::TensorProto &t : g.initializer())
    if (t.data_type() == onnx::TensorProto::FLOAT)
      out[t.name()] = &t;
  return out;
}

} // namespace

std::vector<std::string> findCalibrationTensors(const onnx::ModelProto &model) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  auto weights = floatInitializers(model.graph());
  for (const onnx::NodeProto &n : model.graph().node()) {
    if (n.input_size() < 2)
      continue;
    auto w = weights.find(n.input(1));
    if (w == weights.end() || weightChannelAxis(n, w->second->dims_size()) < 0)
      continue;
    const std::string &x = n.input(0);
    if (!x.empty() && !weights.count(x) && seen.insert(x).second)
      out.push_back(x);
  }
  return out;
}

onnx::ModelProto
addCalibrationOutputs(const onnx::ModelProto &model,
                      const std::vector<std::string> &tensors) {
  onnx::ModelProto out = model;
  std::set<std::string> outputs;
  for (const onnx::ValueInfoProto &vi : out.graph().output())
    outputs.insert(vi.name());
  for (const std::string &t : tensors) {
    if (outputs.count(t))
      continue;
    onnx::ValueInfoProto *vi = out.mutable_graph()->add_output();
    vi->set_name(t);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
  }
  return out;
}

//===----------------------------------------------------------------------===//
// The QDQ rewrite
//===----------------------------------------------------------------------===//

namespace {

/// Builds new initializers and nodes with names the graph does not use.
struct GraphBuilder {
  onnx::GraphProto &graph;
  std::set<std::string> names;

  explicit GraphBuilder(onnx::GraphProto &g) : graph(g) {
    for (const onnx::ValueInfoProto &vi : g.input())
      names.insert(vi.name());
    for (const onnx::TensorProto &t : g.initializer())
      names.insert(t.name());
    for (const onnx::NodeProto &n : g.node()) {
      names.insert(n.name());
      for (const std::string &o : n.output())
        names.insert(o);
    }
  }
  std::string fresh(const std::string &base) {
    std::string name = base;
    for (int k = 1; names.count(name); ++k)
      name = base + "_" + std::to_string(k);
    names.insert(name);
    return name;
  }
  onnx::TensorProto &initializer(const std::string &base, int type,
                                 const std::vector<int64_t> &dims,
                                 const void *data, size_t bytes) {
    onnx::TensorProto &t = *graph.add_initializer();
    t.set_name(fresh(base));
    t.set_data_type(type);
    for (int64_t d : dims)
      t.add_dims(d);
    t.set_raw_data(std::string(static_cast<const char *>(data), bytes));
    return t;
  }
  static onnx::NodeProto node(const std::string &op, const std::string &name,
                              std::vector<std::string> inputs,
                              const std::string &output) {
    onnx::NodeProto n;
    n.set_op_type(op);
    n.set_name(name);
    for (const std::string &i : inputs)
      n.add_input(i);
    n.add_output(output);
    return n;
  }
};

/// uint8 scale and zero point for the range [lo, hi] (lo <= 0 <= hi).
std::pair<float, uint8_t> activationParams(double lo, double hi) {
  double scale = (hi - lo) / 255;
  if (!(scale > 0) || !std::isfinite(scale))
    return {1.0f, 0};
  double zp = std::round(-lo / scale);
  return {float(scale), uint8_t(std::clamp(zp, 0.0, 255.0))};
}

int64_t opsetOf(const onnx::ModelProto &m) {
  for (const onnx::OperatorSetIdProto &o : m.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx")
      return o.version();
  return 0;
}

} // namespace

bool quantizeModel(
    onnx::ModelProto &model,
    const std::map<std::string, std::pair<double, double>> &ranges,
    const QuantizeOptions &options, std::vector<QuantizedNode> &report,
    std::string &error) {
  if (!model.has_graph()) {
    error = "not a valid ONNX model (no graph)";
    return false;
  }
  int64_t opset = opsetOf(model);
  if (opset < 10) {
    error = "opset " + std::to_string(opset) +
            ": QuantizeLinear needs opset 10 or later";
    return false;
  }
  if (options.perChannel && opset < 13) {
    error = "opset " + std::to_string(opset) +
            ": per-channel weights (DequantizeLinear's axis) need opset 13 or "
            "later; quantize without --per-channel";
    return false;
  }
  onnx::GraphProto &graph = *model.mutable_graph();
  GraphBuilder b(graph);
  auto weights = floatInitializers(graph);
  std::map<std::string, std::string> dequantized; // activation -> its DQ
  std::map<std::string, std::string> weightDq;    // weight -> its DQ
  std::vector<onnx::NodeProto> nodes;
  for (const onnx::NodeProto &original : graph.node()) {
    onnx::NodeProto n = original;
    auto w = n.input_size() >= 2 ? weights.find(n.input(1)) : weights.end();
    int64_t axis =
        w == weights.end() ? -1 : weightChannelAxis(n, w->second->dims_size());
    if (axis < 0) {
      nodes.push_back(std::move(n));
      continue;
    }
    QuantizedNode entry;
    entry.node = n.name();
    entry.opType = n.op_type();
    entry.activation = n.input(0);
    entry.weight = n.input(1);
    auto range = ranges.find(n.input(0));
    std::vector<int64_t> dims(w->second->dims().begin(),
                              w->second->dims().end());
    int64_t elements = 1;
    for (int64_t d : dims)
      elements *= d;
    std::vector<float> values;
    if (range == ranges.end())
      entry.skipped = "its input was not calibrated (not float, or not run)";
    else if (!readFloats(*w->second, values, elements, entry.skipped))
      entry.skipped = "weight: " + entry.skipped;
    if (!entry.skipped.empty()) {
      report.push_back(entry);
      nodes.push_back(std::move(n));
      continue;
    }

    // The activation: Q -> DQ once per tensor, before its first consumer.
    auto [scale, zp] =
        activationParams(range->second.first, range->second.second);
    entry.scale = scale;
    entry.zeroPoint = zp;
    const std::string &x = n.input(0);
    if (!dequantized.count(x)) {
      std::string s =
          b.initializer(x + "_scale", onnx::TensorProto::FLOAT, {}, &scale, 4)
              .name();
      std::string z =
          b.initializer(x + "_zero_point", onnx::TensorProto::UINT8, {}, &zp, 1)
              .name();
      std::string q = b.fresh(x + "_quantized");
      std::string dq = b.fresh(x + "_dequantized");
      nodes.push_back(GraphBuilder::node(
          "QuantizeLinear", b.fresh(x + "_QuantizeLinear"), {x, s, z}, q));
      nodes.push_back(GraphBuilder::node(
          "DequantizeLinear", b.fresh(x + "_DequantizeLinear"), {q, s, z}, dq));
      dequantized[x] = dq;
    }
    n.set_input(0, dequantized[x]);

    // The weight: int8, symmetric, per channel or per tensor.
    const std::string &wName = n.input(1);
    if (!weightDq.count(wName)) {
      int64_t channels = options.perChannel ? dims[axis] : 1;
      int64_t inner = 1;
      for (size_t d = axis + 1; d < dims.size(); ++d)
        inner *= dims[d];
      auto channelOf = [&](int64_t i) {
        return options.perChannel ? (i / inner) % dims[axis] : 0;
      };
      std::vector<float> scales(channels, 0);
      for (int64_t i = 0; i < elements; ++i)
        scales[channelOf(i)] =
            std::max(scales[channelOf(i)], std::fabs(values[i]));
      for (float &s : scales)
        s = s > 0 ? s / 127 : 1.0f;
      std::vector<int8_t> q(elements);
      for (int64_t i = 0; i < elements; ++i)
        q[i] = int8_t(std::clamp(std::round(values[i] / scales[channelOf(i)]),
                                 -127.0f, 127.0f));
      std::vector<int8_t> zeros(channels, 0);
      std::vector<int64_t> scaleDims;
      if (options.perChannel)
        scaleDims.push_back(channels);
      std::string qw =
          b.initializer(wName + "_quantized", onnx::TensorProto::INT8, dims,
                        q.data(), q.size())
              .name();
      std::string s = b.initializer(wName + "_scale", onnx::TensorProto::FLOAT,
                                    scaleDims, scales.data(), 4 * channels)
                          .name();
      std::string z =
          b.initializer(wName + "_zero_point", onnx::TensorProto::INT8,
                        scaleDims, zeros.data(), channels)
              .name();
      std::string dq = b.fresh(wName + "_dequantized");
      onnx::NodeProto d = GraphBuilder::node(
          "DequantizeLinear", b.fresh(wName + "_DequantizeLinear"), {qw, s, z},
          dq);
      if (options.perChannel) {
        onnx::AttributeProto *a = d.add_attribute();
        a->set_name("axis");
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(axis);
      }
      nodes.push_back(std::move(d));
      weightDq[wName] = dq;
      entry.weightScales = channels;
    } else {
      entry.weightScales = options.perChannel ? dims[axis] : 1;
    }
    n.set_input(1, weightDq[wName]);
    report.push_back(entry);
    nodes.push_back(std::move(n));
  }

  graph.clear_node();
  std::set<std::string> used;
  for (onnx::NodeProto &n : nodes) {
    for (const std::string &i : n.input())
      used.insert(i);
    *graph.add_node() = std::move(n);
  }
  for (const onnx::ValueInfoProto &vi : graph.output())
    used.insert(vi.name());
  // The float weights now only read through their int8 copies go.
  auto *inits = graph.mutable_initializer();
  inits->erase(std::remove_if(inits->begin(), inits->end(),
                              [&](const onnx::TensorProto &t) {
                                return weightDq.count(t.name()) &&
                                       !used.count(t.name());
                              }),
               inits->end());
  return true;
}

} // namespace kiln
