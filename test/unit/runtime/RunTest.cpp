//===- RunTest.cpp - Validation, shape binding and kiln_run ---------------===//
#include "kiln_rt.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_ADDRESS_SANITIZER 1
#endif
#endif
#if !defined(KILN_TEST_ADDRESS_SANITIZER) && defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_ADDRESS_SANITIZER 1
#endif
#ifndef KILN_TEST_ADDRESS_SANITIZER
#define KILN_TEST_ADDRESS_SANITIZER 0
#endif

namespace {

std::string lastError() { return kiln_last_error(); }

// A float32 tensor that owns its dims and data.
struct Buffer {
  std::vector<int64_t> dims;
  std::vector<float> data;
  kiln_tensor tensor() {
    kiln_tensor t;
    t.dtype = KILN_DTYPE_FLOAT32;
    t.rank = static_cast<int32_t>(dims.size());
    t.dims = dims.data();
    t.data = data.data();
    t.byte_size = data.size() * sizeof(float);
    return t;
  }
};

Buffer makeBuffer(std::vector<int64_t> dims, float start = 0.0f) {
  Buffer b{std::move(dims), {}};
  int64_t n = 1;
  for (int64_t d : b.dims)
    n *= d;
  for (int64_t i = 0; i < n; ++i)
    b.data.push_back(start + static_cast<float>(i));
  return b;
}

class FakeAddTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(kiln_model_load(KILN_FAKE_ADD_MODEL, &model), KILN_STATUS_OK)
        << lastError();
    ASSERT_EQ(kiln_context_create(model, &ctx), KILN_STATUS_OK) << lastError();
  }
  void TearDown() override {
    kiln_context_destroy(ctx);
    kiln_model_unload(model);
  }

  // Runs with the given tensors; returns the status.
  kiln_status run(std::vector<kiln_tensor> in, std::vector<kiln_tensor> out) {
    return kiln_run(ctx, in.data(), static_cast<int64_t>(in.size()), out.data(),
                    static_cast<int64_t>(out.size()));
  }

  // Expects `status` and a message containing `fragment`.
  void expectError(kiln_status got, kiln_status want,
                   const std::string &fragment) {
    EXPECT_EQ(got, want) << kiln_status_string(got) << ": " << lastError();
    EXPECT_NE(lastError().find(fragment), std::string::npos)
        << "message: " << lastError();
  }

  kiln_model *model = nullptr;
  kiln_context *ctx = nullptr;
};

TEST_F(FakeAddTest, InfersOutputDims) {
  Buffer x = makeBuffer({5, 3}), y = makeBuffer({5, 3});
  kiln_tensor in[] = {x.tensor(), y.tensor()};
  int64_t dims[2] = {-7, -7};
  ASSERT_EQ(kiln_infer_output_dims(model, in, 2, 0, dims), KILN_STATUS_OK)
      << lastError();
  EXPECT_EQ(dims[0], 5);
  EXPECT_EQ(dims[1], 3);
  EXPECT_EQ(kiln_infer_output_dims(model, in, 2, 1, dims),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_infer_output_dims(nullptr, in, 2, 0, dims),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_infer_output_dims(model, in, 2, 0, nullptr),
            KILN_STATUS_INVALID_ARGUMENT);
}

TEST_F(FakeAddTest, InferRejectsInconsistentBinding) {
  Buffer x = makeBuffer({5, 3}), y = makeBuffer({4, 3});
  kiln_tensor in[] = {x.tensor(), y.tensor()};
  int64_t dims[2];
  expectError(kiln_infer_output_dims(model, in, 2, 0, dims),
              KILN_STATUS_SHAPE_MISMATCH,
              "input 'y' dim 0: expected 5 ('batch' from input 'x'), got 4");
}

TEST_F(FakeAddTest, RunsAndComputesSum) {
  for (int64_t batch : {1, 2, 17}) {
    Buffer x = makeBuffer({batch, 3}, 1.0f), y = makeBuffer({batch, 3}, 0.5f);
    Buffer z = makeBuffer({batch, 3}, -100.0f);
    ASSERT_EQ(run({x.tensor(), y.tensor()}, {z.tensor()}), KILN_STATUS_OK)
        << lastError();
    for (size_t i = 0; i < z.data.size(); ++i)
      EXPECT_EQ(z.data[i], x.data[i] + y.data[i]) << "batch " << batch;
  }
}

TEST_F(FakeAddTest, EmptyBatchAllowsNullData) {
  std::vector<int64_t> dims = {0, 3};
  kiln_tensor t = {KILN_DTYPE_FLOAT32, 2, dims.data(), nullptr, 0};
  EXPECT_EQ(run({t, t}, {t}), KILN_STATUS_OK) << lastError();
}

TEST_F(FakeAddTest, ModelFailureIsRunFailed) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  x.data[0] = -999.0f;
  expectError(run({x.tensor(), y.tensor()}, {z.tensor()}),
              KILN_STATUS_RUN_FAILED, "returned 42");
}

TEST_F(FakeAddTest, NullPointers) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  kiln_tensor in[] = {x.tensor(), y.tensor()};
  kiln_tensor out[] = {z.tensor()};
  expectError(kiln_run(nullptr, in, 2, out, 1), KILN_STATUS_INVALID_ARGUMENT,
              "ctx");
  expectError(kiln_run(ctx, nullptr, 2, out, 1), KILN_STATUS_INVALID_ARGUMENT,
              "inputs is NULL");
  expectError(kiln_run(ctx, in, 2, nullptr, 1), KILN_STATUS_INVALID_ARGUMENT,
              "outputs is NULL");

  kiln_tensor noData = x.tensor();
  noData.data = nullptr;
  expectError(run({noData, y.tensor()}, {z.tensor()}),
              KILN_STATUS_INVALID_ARGUMENT, "input 'x': data is NULL");
  kiln_tensor noDims = y.tensor();
  noDims.dims = nullptr;
  expectError(run({x.tensor(), noDims}, {z.tensor()}),
              KILN_STATUS_INVALID_ARGUMENT, "input 'y': dims is NULL");
  kiln_tensor noOut = z.tensor();
  noOut.data = nullptr;
  expectError(run({x.tensor(), y.tensor()}, {noOut}),
              KILN_STATUS_INVALID_ARGUMENT, "output 'z': data is NULL");
}

TEST_F(FakeAddTest, WrongCounts) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  expectError(run({x.tensor()}, {z.tensor()}), KILN_STATUS_INVALID_ARGUMENT,
              "expected 2 inputs, got 1");
  expectError(run({x.tensor(), y.tensor()}, {}), KILN_STATUS_INVALID_ARGUMENT,
              "expected 1 outputs, got 0");
  expectError(run({x.tensor(), y.tensor()}, {z.tensor(), z.tensor()}),
              KILN_STATUS_INVALID_ARGUMENT, "expected 1 outputs, got 2");
}

TEST_F(FakeAddTest, WrongDtype) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  kiln_tensor bad = y.tensor();
  bad.dtype = KILN_DTYPE_INT32;
  expectError(run({x.tensor(), bad}, {z.tensor()}), KILN_STATUS_DTYPE_MISMATCH,
              "input 'y': expected dtype float32, got int32");
  kiln_tensor badOut = z.tensor();
  badOut.dtype = KILN_DTYPE_FLOAT64;
  expectError(run({x.tensor(), y.tensor()}, {badOut}),
              KILN_STATUS_DTYPE_MISMATCH, "output 'z'");
}

TEST_F(FakeAddTest, WrongRank) {
  Buffer x = makeBuffer({2, 3, 1}), y = makeBuffer({2, 3}),
         z = makeBuffer({2, 3});
  expectError(run({x.tensor(), y.tensor()}, {z.tensor()}),
              KILN_STATUS_SHAPE_MISMATCH, "input 'x': expected rank 2, got 3");
}

TEST_F(FakeAddTest, WrongStaticDim) {
  Buffer x = makeBuffer({2, 4}), y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  expectError(run({x.tensor(), y.tensor()}, {z.tensor()}),
              KILN_STATUS_SHAPE_MISMATCH, "input 'x' dim 1: expected 3, got 4");
}

TEST_F(FakeAddTest, NegativeDim) {
  Buffer y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  Buffer x = makeBuffer({2, 3});
  x.dims[0] = -2;
  expectError(run({x.tensor(), y.tensor()}, {z.tensor()}),
              KILN_STATUS_SHAPE_MISMATCH, "negative extent");
}

TEST_F(FakeAddTest, InconsistentBatch) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({3, 3}), z = makeBuffer({2, 3});
  expectError(run({x.tensor(), y.tensor()}, {z.tensor()}),
              KILN_STATUS_SHAPE_MISMATCH,
              "input 'y' dim 0: expected 2 ('batch' from input 'x'), got 3");
}

TEST_F(FakeAddTest, WrongOutputDims) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({2, 3}), z = makeBuffer({3, 3});
  expectError(run({x.tensor(), y.tensor()}, {z.tensor()}),
              KILN_STATUS_SHAPE_MISMATCH,
              "output 'z' dim 0: expected 2, got 3");
  Buffer w = makeBuffer({2});
  expectError(run({x.tensor(), y.tensor()}, {w.tensor()}),
              KILN_STATUS_SHAPE_MISMATCH, "output 'z': expected rank 2, got 1");
}

TEST_F(FakeAddTest, BufferTooSmall) {
  Buffer x = makeBuffer({2, 3}), y = makeBuffer({2, 3}), z = makeBuffer({2, 3});
  kiln_tensor small = z.tensor();
  small.byte_size = 20;
  expectError(run({x.tensor(), y.tensor()}, {small}),
              KILN_STATUS_INVALID_ARGUMENT,
              "output 'z': buffer holds 20 bytes, need 24");
}

TEST_F(FakeAddTest, ContextNullArguments) {
  kiln_context *c = nullptr;
  EXPECT_EQ(kiln_context_create(nullptr, &c), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_context_create(model, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_context_model(ctx), model);
  kiln_context_destroy(nullptr); // no-op
}

// Separate contexts on one model must not share state: the fake model fills
// and re-checks its whole arena with a per-batch pattern on every run.
TEST(FakeAddConcurrency, SeparateContextsRunInParallel) {
  kiln_model *model = nullptr;
  ASSERT_EQ(kiln_model_load(KILN_FAKE_ADD_MODEL, &model), KILN_STATUS_OK);
  constexpr int kThreads = 8, kIters = 300;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      kiln_context *ctx = nullptr;
      if (kiln_context_create(model, &ctx) != KILN_STATUS_OK) {
        failures[t] = -1;
        return;
      }
      for (int it = 0; it < kIters; ++it) {
        int64_t batch = 1 + (t * 7 + it) % 13;
        Buffer x = makeBuffer({batch, 3}, static_cast<float>(t)),
               y = makeBuffer({batch, 3}, static_cast<float>(it)),
               z = makeBuffer({batch, 3}, 0.0f);
        kiln_tensor in[] = {x.tensor(), y.tensor()};
        kiln_tensor out[] = {z.tensor()};
        int64_t dims[2];
        if (kiln_infer_output_dims(model, in, 2, 0, dims) != KILN_STATUS_OK ||
            dims[0] != batch) {
          ++failures[t];
          continue;
        }
        if (kiln_run(ctx, in, 2, out, 1) != KILN_STATUS_OK) {
          ++failures[t];
          continue;
        }
        for (size_t i = 0; i < z.data.size(); ++i)
          if (z.data[i] != x.data[i] + y.data[i])
            ++failures[t];
        // An error on another thread must not leak into this one.
        if (!lastError().empty())
          ++failures[t];
      }
      kiln_context_destroy(ctx);
    });
  for (std::thread &th : threads)
    th.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], 0) << "thread " << t;
  kiln_model_unload(model);
}

// Scalars (rank 0) and purely static shapes through an in-process model.
int32_t negateRun(void **buffers, int64_t *, void *arena) {
  if (arena)
    return 1; // arena_bytes is 0, so no arena is expected
  *static_cast<double *>(buffers[1]) = -*static_cast<double *>(buffers[0]);
  return 0;
}

TEST(StaticModel, ScalarTensors) {
  static const kiln_tensor_info in = {"s", KILN_DTYPE_FLOAT64, 0, nullptr};
  static const kiln_tensor_info out = {"neg", KILN_DTYPE_FLOAT64, 0, nullptr};
  kiln_model_desc d = {};
  d.abi_version = KILN_MODEL_ABI_VERSION;
  d.num_inputs = 1;
  d.inputs = &in;
  d.num_outputs = 1;
  d.outputs = &out;
  d.run = negateRun;
  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK) << lastError();
  kiln_context *ctx = nullptr;
  ASSERT_EQ(kiln_context_create(m, &ctx), KILN_STATUS_OK);
  double a = 2.5, b = 0;
  kiln_tensor ti = {KILN_DTYPE_FLOAT64, 0, nullptr, &a, sizeof a};
  kiln_tensor to = {KILN_DTYPE_FLOAT64, 0, nullptr, &b, sizeof b};
  EXPECT_EQ(kiln_infer_output_dims(m, &ti, 1, 0, nullptr), KILN_STATUS_OK);
  ASSERT_EQ(kiln_run(ctx, &ti, 1, &to, 1), KILN_STATUS_OK) << lastError();
  EXPECT_EQ(b, -2.5);
  kiln_context_destroy(ctx);
  kiln_model_unload(m);
}

// A model whose memory plan places buffers sized by its symbolic dim: the
// context's arena grows to what the run's dims need and is kept.
uint64_t scratchBytesFor(const int64_t *dims) {
  return dims[0] > (int64_t(1) << 40) ? UINT64_MAX / 2 : 64 + 8 * dims[0];
}

void *lastArena = nullptr;

int32_t scratchRun(void **buffers, int64_t *dims, void *arena) {
  lastArena = arena;
  // Uses every byte the model asked for (the sanitized build checks it).
  auto *scratch = static_cast<double *>(arena) + 8;
  const auto *x = static_cast<const float *>(buffers[0]);
  auto *y = static_cast<float *>(buffers[1]);
  for (int64_t i = 0; i < dims[0]; ++i)
    scratch[i] = 2.0 * x[i];
  for (int64_t i = 0; i < dims[0]; ++i)
    y[i] = static_cast<float>(scratch[dims[0] - 1 - i]);
  return 0;
}

TEST(SymbolicArena, GrowsToWhatTheDimsNeed) {
  static const int64_t dims[] = {-1};
  static const char *const symbols[] = {"n"};
  static const kiln_tensor_info in = {"x", KILN_DTYPE_FLOAT32, 1, dims};
  static const kiln_tensor_info out = {"y", KILN_DTYPE_FLOAT32, 1, dims};
  kiln_model_desc d = {};
  d.abi_version = KILN_MODEL_ABI_VERSION;
  d.num_inputs = 1;
  d.inputs = &in;
  d.num_outputs = 1;
  d.outputs = &out;
  d.num_symbols = 1;
  d.symbols = symbols;
  d.arena_bytes = 64;
  d.arena_alignment = 64;
  d.arena_bytes_for = scratchBytesFor;
  d.run = scratchRun;
  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK) << lastError();
  kiln_context *ctx = nullptr;
  ASSERT_EQ(kiln_context_create(m, &ctx), KILN_STATUS_OK);
  EXPECT_EQ(kiln_context_arena_bytes(ctx), 64u);

  for (int64_t n : {1000, 10, 3000}) {
    std::vector<float> x(n), y(n);
    for (int64_t i = 0; i < n; ++i)
      x[i] = float(i);
    kiln_tensor ti = {KILN_DTYPE_FLOAT32, 1, &n, x.data(), 4 * uint64_t(n)};
    kiln_tensor to = {KILN_DTYPE_FLOAT32, 1, &n, y.data(), 4 * uint64_t(n)};
    uint64_t need = 0;
    ASSERT_EQ(kiln_model_arena_bytes_for(m, &ti, 1, &need), KILN_STATUS_OK);
    EXPECT_EQ(need, 64 + 8 * uint64_t(n));
    ASSERT_EQ(kiln_run(ctx, &ti, 1, &to, 1), KILN_STATUS_OK) << lastError();
    EXPECT_EQ(y[0], 2.0f * float(n - 1));
    EXPECT_EQ(y[n - 1], 0.0f);
    // Grown to the largest run so far (a multiple of the alignment), never
    // shrunk.
    uint64_t most = 64 + 8 * uint64_t(n == 10 ? 1000 : n);
    EXPECT_EQ(kiln_context_arena_bytes(ctx), (most + 63) / 64 * 64);
    // The arena the run was given, for tools that flush it from the caches.
    EXPECT_EQ(kiln_context_arena(ctx), lastArena);
  }
  EXPECT_EQ(kiln_context_arena(nullptr), nullptr);

#if !KILN_TEST_ADDRESS_SANITIZER
  // Dims whose arena cannot be allocated: a status and a message (the
  // sanitizer's allocator reports such a request instead of failing it).
  int64_t huge = (int64_t(1) << 41);
  float one = 0;
  kiln_tensor ti = {KILN_DTYPE_FLOAT32, 1, &huge, &one, 0};
  kiln_tensor to = {KILN_DTYPE_FLOAT32, 1, &huge, &one, 0};
  EXPECT_EQ(kiln_run(ctx, &ti, 1, &to, 1), KILN_STATUS_OUT_OF_MEMORY);
  EXPECT_NE(lastError().find("arena of"), std::string::npos) << lastError();
#endif
  kiln_context_destroy(ctx);
  kiln_model_unload(m);
}

} // namespace
