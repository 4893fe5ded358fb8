//===- Profile.cpp - Per-layer tables and traces for `kiln profile` -------===//

#include "compiler/driver/Profile.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <random>

namespace kiln::driver {

bool describeRunTensors(const kiln_model *m, RunTensors &t, std::string &err) {
  int64_t nIn = kiln_model_num_inputs(m), nOut = kiln_model_num_outputs(m);
  t.inDesc.clear();
  for (HostTensor &h : t.inputs)
    t.inDesc.push_back(kiln_tensor{h.dtype, (int32_t)h.dims.size(),
                                   h.dims.data(), h.bytes.data(),
                                   h.bytes.size()});
  t.outputs.assign(nOut, HostTensor());
  t.outDesc.clear();
  for (int64_t i = 0; i < nOut; ++i) {
    const kiln_tensor_info *info = kiln_model_output(m, i);
    HostTensor &h = t.outputs[i];
    h.dtype = info->dtype;
    h.name = info->name;
    h.dims.resize(info->rank);
    if (kiln_infer_output_dims(m, t.inDesc.data(), nIn, i, h.dims.data()) !=
        KILN_STATUS_OK) {
      err = kiln_last_error();
      return false;
    }
    // The run allocates an output sized at run time (runModel copies it).
    if (llvm::is_contained(h.dims, -1)) {
      t.outDesc.push_back(
          kiln_tensor{h.dtype, (int32_t)h.dims.size(), nullptr, nullptr, 0});
      continue;
    }
    h.bytes.assign(h.numElements() * dtypeByteSize(h.dtype), 0);
    t.outDesc.push_back(kiln_tensor{h.dtype, (int32_t)h.dims.size(),
                                    h.dims.data(), h.bytes.data(),
                                    h.bytes.size()});
  }
  return true;
}

bool runModel(kiln_context *ctx, RunTensors &t, std::string &err) {
  if (kiln_run(ctx, t.inDesc.data(), t.inDesc.size(), t.outDesc.data(),
               t.outDesc.size()) != KILN_STATUS_OK) {
    err = kiln_last_error();
    return false;
  }
  for (size_t i = 0; i < t.outputs.size(); ++i) {
    if (t.outDesc[i].dims)
      continue;
    kiln_tensor out;
    if (kiln_context_output(ctx, i, &out) != KILN_STATUS_OK) {
      err = kiln_last_error();
      return false;
    }
    HostTensor &h = t.outputs[i];
    h.dims.assign(out.dims, out.dims + out.rank);
    const char *data = static_cast<const char *>(out.data);
    h.bytes.assign(data, data + out.byte_size);
  }
  return true;
}

bool makeSeededInput(const kiln_tensor_info *info, uint32_t seed,
                     HostTensor &out) {
  out.dtype = info->dtype;
  out.name = info->name;
  out.dims.assign(info->dims, info->dims + info->rank);
  if (llvm::any_of(out.dims, [](int64_t d) { return d < 0; }))
    return false;
  int64_t n = out.numElements();
  out.bytes.assign(n * dtypeByteSize(out.dtype), 0);
  std::mt19937 gen(seed + 1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  if (out.dtype == KILN_DTYPE_FLOAT32)
    for (int64_t i = 0; i < n; ++i) {
      float v = dist(gen);
      std::memcpy(out.bytes.data() + 4 * i, &v, 4);
    }
  if (out.dtype == KILN_DTYPE_FLOAT64)
    for (int64_t i = 0; i < n; ++i) {
      double v = dist(gen);
      std::memcpy(out.bytes.data() + 8 * i, &v, 8);
    }
  return true;
}

/// The table's name for a kernel's node.
static std::string nodeLabel(const kiln_kernel_info *k) {
  return *k->node ? k->node : std::string("(") + k->symbol + ")";
}

ProfileReport summarizeProfile(const kiln_model *model,
                               const kiln_profile_event *events,
                               int64_t count) {
  ProfileReport report;
  llvm::StringMap<size_t> index;
  std::vector<bool> seenKernel(kiln_model_num_kernels(model), false);
  // Kernels nest (a serial K-block loop calls a parallel kernel per block)
  // and are recorded as they end, inner ones first: a kernel's own time is
  // its span less the spans of the kernels recorded inside it, so that no
  // nanosecond counts twice. `closed` holds the outermost spans seen since the
  // enclosing kernel (or the run) began.
  std::vector<const kiln_profile_event *> closed;
  for (int64_t i = 0; i < count; ++i) {
    const kiln_profile_event &e = events[i];
    double ns = (double)(e.end_ns - e.begin_ns);
    if (e.kernel == KILN_PROFILE_RUN) {
      ++report.runs;
      report.runNs += ns;
      closed.clear();
      continue;
    }
    while (!closed.empty() && closed.back()->begin_ns >= e.begin_ns &&
           closed.back()->end_ns <= e.end_ns) {
      ns -= (double)(closed.back()->end_ns - closed.back()->begin_ns);
      closed.pop_back();
    }
    closed.push_back(&e);
    const kiln_kernel_info *k = kiln_model_kernel(model, e.kernel);
    if (!k)
      continue;
    auto [it, inserted] = index.try_emplace(nodeLabel(k), report.layers.size());
    if (inserted) {
      LayerTime layer;
      layer.node = it->first().str();
      layer.opType = k->op_type;
      layer.fused = k->fused;
      layer.flops = k->node_flops;
      report.layers.push_back(layer);
    }
    LayerTime &layer = report.layers[it->second];
    layer.ns += ns;
    if (!seenKernel[e.kernel]) {
      seenKernel[e.kernel] = true;
      ++layer.kernels;
    }
    report.kernelNs += ns;
  }
  std::stable_sort(
      report.layers.begin(), report.layers.end(),
      [](const LayerTime &a, const LayerTime &b) { return a.ns > b.ns; });
  return report;
}

void printProfileTable(const ProfileReport &r, const std::string &library,
                       int threads, int64_t dropped) {
  double runs = std::max<int64_t>(r.runs, 1);
  double runMs = r.runNs / runs / 1e6;
  std::printf("profile of %s: %" PRId64 " runs, %d thread%s, %.3f ms per run\n",
              library.c_str(), r.runs, threads, threads == 1 ? "" : "s", runMs);
  std::printf("%-32s %-20s %-16s %7s %10s %7s %9s\n", "node", "op", "fused",
              "kernels", "ms/run", "%", "GF/s");
  for (const LayerTime &l : r.layers) {
    double ms = l.ns / runs / 1e6;
    std::string gflops = "-";
    if (l.flops > 0 && l.ns > 0) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.1f", l.flops * runs / l.ns);
      gflops = buf;
    }
    std::printf("%-32s %-20s %-16s %7" PRId64 " %10.4f %7.2f %9s\n",
                l.node.c_str(), l.opType.empty() ? "-" : l.opType.c_str(),
                l.fused.empty() ? "-" : l.fused.c_str(), l.kernels, ms,
                r.runNs > 0 ? 100 * l.ns / r.runNs : 0.0, gflops.c_str());
  }
  double other = std::max(0.0, r.runNs - r.kernelNs);
  std::printf("%-32s %-20s %-16s %7s %10.4f %7.2f %9s\n", "(outside kernels)",
              "-", "-", "-", other / runs / 1e6,
              r.runNs > 0 ? 100 * other / r.runNs : 0.0, "-");
  if (dropped > 0)
    std::printf("note: %" PRId64 " events did not fit the buffer and are not "
                "counted; use fewer --iters\n",
                dropped);
}

bool writeChromeTrace(const kiln_model *model, const kiln_profile_event *events,
                      int64_t count, const std::string &path,
                      std::string &err) {
  uint64_t origin = UINT64_MAX;
  for (int64_t i = 0; i < count; ++i)
    origin = std::min(origin, events[i].begin_ns);
  llvm::json::Array trace;
  auto meta = [&](int tid, const char *name) {
    trace.push_back(
        llvm::json::Object{{"name", "thread_name"},
                           {"ph", "M"},
                           {"pid", 1},
                           {"tid", tid},
                           {"args", llvm::json::Object{{"name", name}}}});
  };
  meta(1, "runs");
  meta(2, "kernels");
  for (int64_t i = 0; i < count; ++i) {
    const kiln_profile_event &e = events[i];
    llvm::json::Object event{{"ph", "X"},
                             {"pid", 1},
                             {"ts", (double)(e.begin_ns - origin) / 1e3},
                             {"dur", (double)(e.end_ns - e.begin_ns) / 1e3}};
    if (e.kernel == KILN_PROFILE_RUN) {
      event["name"] = kiln_model_name(model);
      event["cat"] = "run";
      event["tid"] = 1;
    } else if (const kiln_kernel_info *k = kiln_model_kernel(model, e.kernel)) {
      event["name"] = nodeLabel(k);
      event["cat"] = *k->op_type ? k->op_type : "kernel";
      event["tid"] = 2;
      event["args"] = llvm::json::Object{
          {"kernel", k->symbol}, {"op", k->op_type}, {"fused", k->fused}};
    } else {
      continue;
    }
    trace.push_back(std::move(event));
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    err = "cannot write " + path + ": " + ec.message();
    return false;
  }
  os << llvm::json::Value(llvm::json::Object{{"traceEvents", std::move(trace)},
                                             {"displayTimeUnit", "ms"}});
  os << "\n";
  return true;
}

} // namespace kiln::driver
