//===- RealModelChecks.cpp - kiln_rt misuse, threads and leaks on a model -===//
//
// Runs a model library produced by `kiln compile` (one float32 input, one
// float32 output, static shapes) through kiln_rt:
//   misuse    every bad call returns a status and a message, never crashes;
//   threads   N threads with separate contexts and different inputs produce
//             bit-identical outputs to a single-threaded run of each input;
//   loop      repeated runs do not grow the resident set.
// The fake models in this folder cover the validation logic in detail; this
// program checks that a real compiled descriptor behaves the same.
//
// Usage: KilnRuntimeRealModel --model M.so --input x.bin --output y.bin
//          --bad-abi B.so --not-a-model libm.so.6 [--threads 4]
//          [--iterations 50] [--loop 10000] [--rss-bound-kib 1024]
// Writes the output for x.bin (raw float32) to y.bin for the caller to check
// against its own reference. Exits 1 on any failed check.
//
//===----------------------------------------------------------------------===//
#include "kiln_rt.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

int failures = 0;

void check(bool ok, const std::string &what) {
  if (!ok) {
    ++failures;
    std::printf("FAIL %s\n", what.c_str());
  }
}

// Expects `got` == `want` and a non-empty message containing `fragment`.
void expectStatus(kiln_status got, kiln_status want, const char *fragment,
                  const std::string &what) {
  std::string msg = kiln_last_error();
  bool ok =
      got == want && !msg.empty() && msg.find(fragment) != std::string::npos;
  std::printf("%-4s %-36s %s: %s\n", ok ? "ok" : "FAIL", what.c_str(),
              kiln_status_string(got), msg.c_str());
  if (!ok) {
    ++failures;
    std::printf("     expected %s with '%s'\n", kiln_status_string(want),
                fragment);
  }
}

// A float32 tensor matching one tensor_info of the model.
struct Buffer {
  std::vector<int64_t> dims;
  std::vector<float> data;
  explicit Buffer(const kiln_tensor_info *info) {
    int64_t n = 1;
    for (int32_t k = 0; k < info->rank; ++k) {
      dims.push_back(info->dims[k]);
      n *= info->dims[k];
    }
    data.assign(static_cast<size_t>(n), 0.0f);
  }
  kiln_tensor tensor() {
    return {KILN_DTYPE_FLOAT32, static_cast<int32_t>(dims.size()), dims.data(),
            data.data(), data.size() * sizeof(float)};
  }
};

// Deterministic inputs in [-1, 1) that differ per seed.
void fill(std::vector<float> &v, uint64_t seed) {
  uint64_t s = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (float &x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<float>(static_cast<int64_t>(s >> 40) % 2000) / 1000.0f;
  }
}

kiln_status runOnce(kiln_context *ctx, Buffer &in, Buffer &out) {
  kiln_tensor i = in.tensor(), o = out.tensor();
  return kiln_run(ctx, &i, 1, &o, 1);
}

bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

void checkLoading(const std::string &badAbi, const std::string &notModel,
                  const std::string &garbage) {
  kiln_model *m = reinterpret_cast<kiln_model *>(0x1);
  expectStatus(kiln_model_load(badAbi.c_str(), &m), KILN_STATUS_ABI_MISMATCH,
               "ABI version", "load: other ABI version");
  check(m == nullptr, "load: other ABI version leaves *out NULL");
  expectStatus(kiln_model_load(notModel.c_str(), &m), KILN_STATUS_LOAD_FAILED,
               "kiln_model_get", "load: non-kiln shared library");
  check(m == nullptr, "load: non-kiln library leaves *out NULL");
  expectStatus(kiln_model_load(garbage.c_str(), &m), KILN_STATUS_LOAD_FAILED,
               "cannot load", "load: file that is not ELF");
}

void checkMisuse(kiln_model *model, kiln_context *ctx) {
  const kiln_tensor_info *inInfo = kiln_model_input(model, 0);
  const kiln_tensor_info *outInfo = kiln_model_output(model, 0);
  Buffer x(inInfo), y(outInfo);
  fill(x.data, 1);
  kiln_tensor in = x.tensor(), out = y.tensor();

  // NULL handles and arrays.
  kiln_context *c = reinterpret_cast<kiln_context *>(0x1);
  expectStatus(kiln_context_create(nullptr, &c), KILN_STATUS_INVALID_ARGUMENT,
               "model is NULL", "context_create: NULL model");
  check(c == nullptr, "context_create: NULL model leaves *out NULL");
  expectStatus(kiln_run(nullptr, &in, 1, &out, 1), KILN_STATUS_INVALID_ARGUMENT,
               "ctx is NULL", "run: NULL ctx");
  expectStatus(kiln_run(ctx, nullptr, 1, &out, 1), KILN_STATUS_INVALID_ARGUMENT,
               "inputs is NULL", "run: NULL inputs");
  expectStatus(kiln_run(ctx, &in, 1, nullptr, 1), KILN_STATUS_INVALID_ARGUMENT,
               "outputs is NULL", "run: NULL outputs");
  expectStatus(kiln_run(ctx, &in, -1, &out, 1), KILN_STATUS_INVALID_ARGUMENT,
               "expected 1 inputs, got -1", "run: negative input count");
  expectStatus(kiln_run(ctx, &in, 1, &out, -3), KILN_STATUS_INVALID_ARGUMENT,
               "expected 1 outputs, got -3", "run: negative output count");
  expectStatus(kiln_infer_output_dims(nullptr, &in, 1, 0, y.dims.data()),
               KILN_STATUS_INVALID_ARGUMENT, "model is NULL",
               "infer: NULL model");
  expectStatus(kiln_infer_output_dims(model, nullptr, 1, 0, y.dims.data()),
               KILN_STATUS_INVALID_ARGUMENT, "inputs is NULL",
               "infer: NULL inputs");
  expectStatus(kiln_infer_output_dims(model, &in, 1, 5, y.dims.data()),
               KILN_STATUS_INVALID_ARGUMENT, "out of range",
               "infer: output index out of range");

  // Per-tensor defects; each names the tensor.
  std::string inName = std::string("input '") + inInfo->name + "'";
  std::string outName = std::string("output '") + outInfo->name + "'";
  auto runWith = [&](kiln_tensor i, kiln_tensor o) {
    return kiln_run(ctx, &i, 1, &o, 1);
  };
  kiln_tensor t = in;
  t.dims = nullptr;
  expectStatus(runWith(t, out), KILN_STATUS_INVALID_ARGUMENT,
               (inName + ": dims is NULL").c_str(), "run: NULL input dims");
  t = in;
  t.data = nullptr;
  expectStatus(runWith(t, out), KILN_STATUS_INVALID_ARGUMENT,
               (inName + ": data is NULL").c_str(), "run: NULL input data");
  t = out;
  t.dims = nullptr;
  expectStatus(runWith(in, t), KILN_STATUS_INVALID_ARGUMENT,
               (outName + ": dims is NULL").c_str(), "run: NULL output dims");
  t = out;
  t.data = nullptr;
  expectStatus(runWith(in, t), KILN_STATUS_INVALID_ARGUMENT,
               (outName + ": data is NULL").c_str(), "run: NULL output data");
  t = in;
  t.byte_size -= 1;
  expectStatus(runWith(t, out), KILN_STATUS_INVALID_ARGUMENT,
               (inName + ": buffer holds").c_str(), "run: input buffer short");
  t = out;
  t.byte_size = sizeof(float);
  expectStatus(runWith(in, t), KILN_STATUS_INVALID_ARGUMENT,
               (outName + ": buffer holds 4 bytes").c_str(),
               "run: output buffer short");
  t = in;
  t.dtype = KILN_DTYPE_FLOAT64;
  expectStatus(runWith(t, out), KILN_STATUS_DTYPE_MISMATCH,
               (inName + ": expected dtype float32, got float64").c_str(),
               "run: input dtype");
  t = out;
  t.dtype = KILN_DTYPE_INT32;
  expectStatus(runWith(in, t), KILN_STATUS_DTYPE_MISMATCH,
               (outName + ": expected dtype float32, got int32").c_str(),
               "run: output dtype");
  t = in;
  t.dtype = 12345;
  expectStatus(runWith(t, out), KILN_STATUS_DTYPE_MISMATCH, "unknown",
               "run: input dtype code unknown");
  t = in;
  t.rank = in.rank + 1;
  expectStatus(runWith(t, out), KILN_STATUS_SHAPE_MISMATCH,
               (inName + ": expected rank").c_str(), "run: input rank");
  t = in;
  t.rank = -1;
  expectStatus(runWith(t, out), KILN_STATUS_SHAPE_MISMATCH,
               (inName + ": expected rank").c_str(), "run: negative rank");
  t = out;
  t.rank = 0;
  expectStatus(runWith(in, t), KILN_STATUS_SHAPE_MISMATCH,
               (outName + ": expected rank").c_str(), "run: output rank");
  std::vector<int64_t> bad = x.dims;
  bad.back() += 1;
  t = in;
  t.dims = bad.data();
  expectStatus(runWith(t, out), KILN_STATUS_SHAPE_MISMATCH,
               (inName + " dim").c_str(), "run: input static dim");
  std::vector<int64_t> huge(x.dims.size(), int64_t(1) << 40);
  t = in;
  t.dims = huge.data();
  expectStatus(runWith(t, out), KILN_STATUS_SHAPE_MISMATCH,
               (inName + " dim").c_str(), "run: input dims of 2^40");

  // After all of that, the context still runs and gives the same answer.
  Buffer y1(outInfo), y2(outInfo);
  check(runOnce(ctx, x, y1) == KILN_STATUS_OK, "run after misuse");
  kiln_context *fresh = nullptr;
  check(kiln_context_create(model, &fresh) == KILN_STATUS_OK, "fresh context");
  check(runOnce(fresh, x, y2) == KILN_STATUS_OK, "run on a fresh context");
  check(sameBits(y1.data, y2.data),
        "a context used for misuse matches a fresh one bit for bit");
  kiln_context_destroy(fresh);
}

// Every thread runs every input of its own several times, on its own
// context; results must match the single-threaded reference bit for bit.
void checkThreads(kiln_model *model, int numThreads, int iterations) {
  const kiln_tensor_info *inInfo = kiln_model_input(model, 0);
  const kiln_tensor_info *outInfo = kiln_model_output(model, 0);
  constexpr int kInputsPerThread = 3;
  int numInputs = numThreads * kInputsPerThread;
  std::vector<Buffer> inputs, reference;
  kiln_context *ctx = nullptr;
  check(kiln_context_create(model, &ctx) == KILN_STATUS_OK, "ref context");
  for (int i = 0; i < numInputs; ++i) {
    inputs.emplace_back(inInfo);
    fill(inputs.back().data, 100 + i);
    reference.emplace_back(outInfo);
    check(runOnce(ctx, inputs.back(), reference.back()) == KILN_STATUS_OK,
          "reference run " + std::to_string(i));
  }
  // The same inputs with kiln_rt's own pool reduced to the calling thread.
  kiln_rt_set_num_threads(1);
  int poolMismatches = 0;
  for (int i = 0; i < numInputs; ++i) {
    Buffer y(outInfo);
    if (runOnce(ctx, inputs[i], y) != KILN_STATUS_OK ||
        !sameBits(y.data, reference[i].data))
      ++poolMismatches;
  }
  kiln_rt_set_num_threads(0);
  check(poolMismatches == 0, "one pool thread matches the default pool (" +
                                 std::to_string(poolMismatches) +
                                 " mismatches)");
  kiln_context_destroy(ctx);

  std::vector<int> mismatches(numThreads, 0), errors(numThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < numThreads; ++t)
    threads.emplace_back([&, t] {
      kiln_context *c = nullptr;
      if (kiln_context_create(model, &c) != KILN_STATUS_OK) {
        errors[t] = -1;
        return;
      }
      Buffer y(outInfo);
      for (int it = 0; it < iterations; ++it) {
        // Rotate so threads run different inputs at the same moment.
        int i = t * kInputsPerThread + (it + t) % kInputsPerThread;
        std::fill(y.data.begin(), y.data.end(), -1.0f);
        if (runOnce(c, inputs[i], y) != KILN_STATUS_OK)
          ++errors[t];
        else if (!sameBits(y.data, reference[i].data))
          ++mismatches[t];
      }
      kiln_context_destroy(c);
    });
  for (std::thread &th : threads)
    th.join();
  int total = 0;
  for (int t = 0; t < numThreads; ++t) {
    total += mismatches[t] + errors[t];
    check(errors[t] == 0 && mismatches[t] == 0,
          "thread " + std::to_string(t) + ": " + std::to_string(errors[t]) +
              " errors, " + std::to_string(mismatches[t]) + " mismatches");
  }
  std::printf("%-4s %-36s %d threads x %d runs, bit-identical\n",
              total ? "FAIL" : "ok", "threads: separate contexts", numThreads,
              iterations);
}

uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

void checkLoop(kiln_model *model, int loops, uint64_t boundKiB) {
  Buffer x(kiln_model_input(model, 0)), y(kiln_model_output(model, 0));
  fill(x.data, 7);
  kiln_context *shared = nullptr;
  int errors = kiln_context_create(model, &shared) != KILN_STATUS_OK;
  auto run = [&](int n) {
    for (int i = 0; shared && i < n; ++i) {
      errors += runOnce(shared, x, y) != KILN_STATUS_OK;
      // A failing call between runs must not leak either.
      kiln_tensor bad = x.tensor(), o = y.tensor();
      bad.rank += 1;
      errors += kiln_run(shared, &bad, 1, &o, 1) != KILN_STATUS_SHAPE_MISMATCH;
      // Contexts come and go too: their arenas must be freed.
      if (i % 100 == 0) {
        kiln_context *c = nullptr;
        errors += kiln_context_create(model, &c) != KILN_STATUS_OK;
        errors += c && runOnce(c, x, y) != KILN_STATUS_OK;
        kiln_context_destroy(c);
      }
    }
  };
  int warmup = loops / 10;
  run(warmup);
  uint64_t before = residentBytes();
  run(loops - warmup);
  uint64_t after = residentBytes();
  kiln_context_destroy(shared);
  int64_t growth = static_cast<int64_t>(after) - static_cast<int64_t>(before);
  bool ok = errors == 0 && growth <= static_cast<int64_t>(boundKiB * 1024);
  std::printf("%-4s %-36s %d runs: RSS %llu KiB after %d warm-up runs, %llu "
              "KiB at the end (%+lld KiB, bound %llu KiB), %d errors\n",
              ok ? "ok" : "FAIL", "loop: resident set", loops,
              static_cast<unsigned long long>(before / 1024), warmup,
              static_cast<unsigned long long>(after / 1024),
              static_cast<long long>(growth / 1024),
              static_cast<unsigned long long>(boundKiB), errors);
  failures += !ok;
}

bool readFloats(const std::string &path, std::vector<float> &v) {
  std::ifstream f(path, std::ios::binary);
  f.read(reinterpret_cast<char *>(v.data()),
         static_cast<std::streamsize>(v.size() * sizeof(float)));
  return f.gcount() == static_cast<std::streamsize>(v.size() * sizeof(float)) &&
         f.peek() == EOF;
}

} // namespace

int main(int argc, char **argv) {
  std::map<std::string, std::string> args = {{"--threads", "4"},
                                             {"--iterations", "50"},
                                             {"--loop", "10000"},
                                             {"--rss-bound-kib", "1024"}};
  for (int i = 1; i + 1 < argc; i += 2)
    args[argv[i]] = argv[i + 1];
  for (const char *key :
       {"--model", "--input", "--output", "--bad-abi", "--not-a-model"})
    if (args[key].empty()) {
      std::fprintf(stderr, "missing %s (see the file header for usage)\n", key);
      return 2;
    }

  // A file that is not a shared library at all.
  std::string garbage = args["--output"] + ".garbage.so";
  std::ofstream(garbage) << "not an ELF file\n";
  checkLoading(args["--bad-abi"], args["--not-a-model"], garbage);
  std::remove(garbage.c_str());

  kiln_model *model = nullptr;
  if (kiln_model_load(args["--model"].c_str(), &model) != KILN_STATUS_OK) {
    std::printf("FAIL load %s: %s\n", args["--model"].c_str(),
                kiln_last_error());
    return 1;
  }
  if (kiln_model_num_inputs(model) != 1 || kiln_model_num_outputs(model) != 1 ||
      kiln_model_input(model, 0)->dtype != KILN_DTYPE_FLOAT32 ||
      kiln_model_output(model, 0)->dtype != KILN_DTYPE_FLOAT32) {
    std::printf("FAIL the model must have one float32 input and output\n");
    return 1;
  }
  kiln_context *ctx = nullptr;
  if (kiln_context_create(model, &ctx) != KILN_STATUS_OK) {
    std::printf("FAIL context: %s\n", kiln_last_error());
    return 1;
  }

  // The output for the caller's input, compared with its reference.
  Buffer x(kiln_model_input(model, 0)), y(kiln_model_output(model, 0));
  check(readFloats(args["--input"], x.data),
        "read " + args["--input"] + " (size must match the model's input)");
  check(runOnce(ctx, x, y) == KILN_STATUS_OK,
        std::string("run: ") + kiln_last_error());
  std::ofstream(args["--output"], std::ios::binary)
      .write(reinterpret_cast<const char *>(y.data.data()),
             static_cast<std::streamsize>(y.data.size() * sizeof(float)));

  checkMisuse(model, ctx);
  kiln_context_destroy(ctx);
  checkThreads(model, std::atoi(args["--threads"].c_str()),
               std::atoi(args["--iterations"].c_str()));
  checkLoop(model, std::atoi(args["--loop"].c_str()),
            std::strtoull(args["--rss-bound-kib"].c_str(), nullptr, 10));
  kiln_model_unload(model);
  std::printf("%d failed checks\n", failures);
  return failures ? 1 : 0;
}
