//===- WeightPruning.cpp - Magnitude pruning of ONNX weights --------------===//

#include "compiler/pruning/WeightPruning.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>

namespace kiln {

bool parsePrunePattern(const std::string &text, PruneOptions &options,
                       std::string &error) {
  using Pattern = PruneOptions::Pattern;
  if (text == "unstructured") {
    options.pattern = Pattern::Unstructured;
    return true;
  }
  if (text == "2:4") {
    options.pattern = Pattern::TwoFour;
    return true;
  }
  long long r = 0, c = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "block:%lldx%lld%c", &r, &c, &tail) == 2 &&
      r > 0 && c > 0 && r <= 256 && c <= 256) {
    options.pattern = Pattern::Block;
    options.blockRows = r;
    options.blockCols = c;
    return true;
  }
  error = "unknown pattern '" + text +
          "' (unstructured, 2:4 or block:RxC with 1 <= R, C <= 256)";
  return false;
}

namespace {

/// A weight seen as a matrix: `rows` output units by `cols` reduction
/// elements, element (r, c) of batch b at b * batchStride + r * rowStride +
/// c * colStride.
struct WeightView {
  int64_t batches = 1, rows = 0, cols = 0;
  int64_t batchStride = 0, rowStride = 0, colStride = 0;
  int64_t at(int64_t b, int64_t r, int64_t c) const {
    return b * batchStride + r * rowStride + c * colStride;
  }
};

/// The view of a Conv W [M, C/g, k...], a MatMul B [..., K, N] or a Gemm B
/// ([K, N], or [N, K] with transB).
bool viewOf(const onnx::NodeProto &node, const std::vector<int64_t> &dims,
            WeightView &v) {
  if (dims.size() < 2)
    return false;
  int64_t n = std::accumulate(dims.begin(), dims.end(), int64_t(1),
                              std::multiplies<int64_t>());
  if (node.op_type() == "Conv") {
    v.rows = dims[0];
    v.cols = n / std::max<int64_t>(dims[0], 1);
    v.rowStride = v.cols;
    v.colStride = 1;
    return true;
  }
  bool transB = false;
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == "transB")
      transB = a.i() != 0;
  int64_t k = dims[dims.size() - 2], m = dims.back();
  v.batches = n / std::max<int64_t>(k * m, 1);
  v.batchStride = k * m;
  if (node.op_type() == "Gemm" && transB) { // [N, K]
    v.rows = k;
    v.cols = m;
    v.rowStride = m;
    v.colStride = 1;
  } else { // [K, N]: rows are the N columns, the reduction runs along K
    v.rows = m;
    v.cols = k;
    v.rowStride = 1;
    v.colStride = m;
  }
  return true;
}

/// Zeroes the `count` entries of `groups` with the smallest score; each
/// group is a list of element offsets.
void zeroSmallest(std::vector<float> &w,
                  const std::vector<std::vector<int64_t>> &groups,
                  int64_t count) {
  std::vector<double> score(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) {
    double s = 0;
    for (int64_t i : groups[g])
      s += std::fabs(w[i]);
    // Edge blocks are smaller: compare means, not sums.
    score[g] = groups[g].empty() ? 0 : s / groups[g].size();
  }
  std::vector<size_t> order(groups.size());
  std::iota(order.begin(), order.end(), 0);
  count = std::min<int64_t>(count, order.size());
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score[a] < score[b]; });
  for (int64_t k = 0; k < count; ++k)
    for (int64_t i : groups[order[k]])
      w[i] = 0.0f;
}

void prune(std::vector<float> &w, const WeightView &v, const PruneOptions &o) {
  using Pattern = PruneOptions::Pattern;
  std::vector<std::vector<int64_t>> groups;
  if (o.pattern == Pattern::Unstructured) {
    groups.reserve(w.size());
    for (int64_t i = 0; i < (int64_t)w.size(); ++i)
      groups.push_back({i});
    zeroSmallest(w, groups, (int64_t)std::floor(o.sparsity * w.size()));
    return;
  }
  if (o.pattern == Pattern::TwoFour) {
    // Two of every four consecutive weights along the reduction; a trailing
    // group of three keeps two, shorter ones stay whole.
    for (int64_t b = 0; b < v.batches; ++b)
      for (int64_t r = 0; r < v.rows; ++r)
        for (int64_t c = 0; c + 2 < v.cols; c += 4) {
          std::vector<std::vector<int64_t>> four;
          for (int64_t j = c; j < std::min(c + 4, v.cols); ++j)
            four.push_back({v.at(b, r, j)});
          zeroSmallest(w, four, (int64_t)four.size() - 2);
        }
    return;
  }
  for (int64_t b = 0; b < v.batches; ++b)
    for (int64_t r = 0; r < v.rows; r += o.blockRows)
      for (int64_t c = 0; c < v.cols; c += o.blockCols) {
        std::vector<int64_t> block;
        for (int64_t i = r; i < std::min(r + o.blockRows, v.rows); ++i)
          for (int64_t j = c; j < std::min(c + o.blockCols, v.cols); ++j)
            block.push_back(v.at(b, i, j));
        groups.push_back(std::move(block));
      }
  zeroSmallest(w, groups, (int64_t)std::floor(o.sparsity * groups.size()));
}

} // namespace

bool readFloats(const onnx::TensorProto &t, std::vector<float> &out,
                int64_t elements, std::string &why) {
  if (t.data_type() != onnx::TensorProto::FLOAT) {
    why = "not float32";
    return false;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    why = "external data";
    return false;
  }
  out.resize(elements);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != (size_t)elements * 4) {
      why = "raw_data size does not match the dims";
      return false;
    }
    std::memcpy(out.data(), t.raw_data().data(), t.raw_data().size());
    return true;
  }
  if (t.float_data_size() != elements) {
    why = "float_data size does not match the dims";
    return false;
  }
  std::copy(t.float_data().begin(), t.float_data().end(), out.begin());
  return true;
}

bool pruneModel(onnx::ModelProto &model, const PruneOptions &options,
                std::vector<PrunedTensor> &report, std::string &error) {
  if (!model.has_graph()) {
    error = "not a valid ONNX model (no graph)";
    return false;
  }
  if (!(options.sparsity >= 0 && options.sparsity < 1)) {
    error = "sparsity must be in [0, 1)";
    return false;
  }
  onnx::GraphProto &graph = *model.mutable_graph();
  std::map<std::string, onnx::TensorProto *> initializers;
  for (onnx::TensorProto &t : *graph.mutable_initializer())
    initializers[t.name()] = &t;
  std::map<std::string, bool> done;
  for (const onnx::NodeProto &node : graph.node()) {
    const std::string &op = node.op_type();
    bool defaultDomain = node.domain().empty() || node.domain() == "ai.onnx";
    if (!defaultDomain || (op != "Conv" && op != "MatMul" && op != "Gemm") ||
        node.input_size() < 2)
      continue;
    const std::string &name = node.input(1);
    auto it = initializers.find(name);
    if (it == initializers.end() || done[name])
      continue;
    done[name] = true;
    onnx::TensorProto &t = *it->second;
    PrunedTensor entry{name, node.name(), op, {}, 0, 1, ""};
    for (int64_t d : t.dims()) {
      if (d < 0 || (d > 0 && entry.elements > INT64_MAX / d)) {
        error = "initializer '" + name + "' has invalid dims";
        return false;
      }
      entry.dims.push_back(d);
      entry.elements *= d;
    }
    std::vector<float> w;
    WeightView view;
    if (!viewOf(node, entry.dims, view))
      entry.skipped = "rank below 2";
    else if (entry.elements < options.minElements)
      entry.skipped = "fewer than --min-elements";
    else if (readFloats(t, w, entry.elements, entry.skipped)) {
      prune(w, view, options);
      entry.zeros = std::count(w.begin(), w.end(), 0.0f);
      t.clear_float_data();
      t.set_raw_data(std::string(reinterpret_cast<const char *>(w.data()),
                                 w.size() * sizeof(float)));
    }
    report.push_back(entry);
  }
  return true;
}

} // namespace kiln
