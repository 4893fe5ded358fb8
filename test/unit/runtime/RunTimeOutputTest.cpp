//===- RunTimeOutputTest.cpp - Outputs the run allocates (ABI 6) ----------===//
//
// An in-process model whose output holds the positive elements of its input:
// its extent is known only after the run, which allocates the data as a
// compiled library does (an over-allocated block, the data inside it).
//
//===----------------------------------------------------------------------===//

#include "kiln_rt.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string lastError() { return kiln_last_error(); }

const int64_t kInDims[] = {-1};
const int64_t kOutDims[] = {KILN_DIM_AT_RUN_TIME};
const char *const kSymbols[] = {"n"};
const kiln_tensor_info kIn = {"x", KILN_DTYPE_FLOAT32, 1, kInDims};
const kiln_tensor_info kOut = {"positives", KILN_DTYPE_FLOAT32, 1, kOutDims};

int32_t positivesRun(void **buffers, int64_t *dims, void *) {
  const float *x = static_cast<const float *>(buffers[0]);
  int64_t n = dims[0];
  // The data starts 16 bytes into the block, as an aligned memref may.
  char *block = static_cast<char *>(malloc(16 + sizeof(float) * (n + 1)));
  float *out = reinterpret_cast<float *>(block + 16);
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i)
    if (x[i] > 0)
      out[count++] = x[i];
  buffers[1] = out;   // the output's data
  buffers[2] = block; // what to free
  dims[1] = count;
  return 0;
}

kiln_model_desc positivesDesc() {
  kiln_model_desc d = {};
  d.abi_version = KILN_MODEL_ABI_VERSION;
  d.num_inputs = 1;
  d.inputs = &kIn;
  d.num_outputs = 1;
  d.outputs = &kOut;
  d.num_symbols = 1;
  d.symbols = kSymbols;
  d.run = positivesRun;
  return d;
}

TEST(RunTimeOutput, RunAllocatesAndContextOwns) {
  kiln_model_desc d = positivesDesc();
  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK) << lastError();
  kiln_context *ctx = nullptr;
  ASSERT_EQ(kiln_context_create(m, &ctx), KILN_STATUS_OK);

  float x[] = {1, -2, 3, 0, 5};
  int64_t n = 5;
  kiln_tensor in = {KILN_DTYPE_FLOAT32, 1, &n, x, sizeof x};
  int64_t inferred = 7;
  ASSERT_EQ(kiln_infer_output_dims(m, &in, 1, 0, &inferred), KILN_STATUS_OK);
  EXPECT_EQ(inferred, -1);

  kiln_tensor got;
  EXPECT_EQ(kiln_context_output(ctx, 0, &got), KILN_STATUS_INVALID_ARGUMENT)
      << "no run yet";
  // Only dtype and rank are the caller's: dims and data may be NULL.
  kiln_tensor out = {KILN_DTYPE_FLOAT32, 1, nullptr, nullptr, 0};
  ASSERT_EQ(kiln_run(ctx, &in, 1, &out, 1), KILN_STATUS_OK) << lastError();
  ASSERT_EQ(kiln_context_output(ctx, 0, &got), KILN_STATUS_OK) << lastError();
  ASSERT_EQ(got.rank, 1);
  ASSERT_EQ(got.dims[0], 3);
  EXPECT_EQ(got.byte_size, 3 * sizeof(float));
  const float *values = static_cast<const float *>(got.data);
  EXPECT_EQ(values[0], 1);
  EXPECT_EQ(values[1], 3);
  EXPECT_EQ(values[2], 5);

  // A second run replaces (and frees) the first one's output.
  float y[] = {-1, -1};
  int64_t m2 = 2;
  kiln_tensor in2 = {KILN_DTYPE_FLOAT32, 1, &m2, y, sizeof y};
  ASSERT_EQ(kiln_run(ctx, &in2, 1, &out, 1), KILN_STATUS_OK) << lastError();
  ASSERT_EQ(kiln_context_output(ctx, 0, &got), KILN_STATUS_OK);
  EXPECT_EQ(got.dims[0], 0);
  EXPECT_EQ(got.byte_size, 0u);

  // The caller's type is still checked; a failed run leaves nothing to read.
  kiln_tensor wrong = {KILN_DTYPE_INT32, 1, nullptr, nullptr, 0};
  EXPECT_EQ(kiln_run(ctx, &in, 1, &wrong, 1), KILN_STATUS_DTYPE_MISMATCH);
  EXPECT_NE(lastError().find("positives"), std::string::npos) << lastError();
  EXPECT_EQ(kiln_context_output(ctx, 0, &got), KILN_STATUS_INVALID_ARGUMENT);
  kiln_tensor wrongRank = {KILN_DTYPE_FLOAT32, 2, nullptr, nullptr, 0};
  EXPECT_EQ(kiln_run(ctx, &in, 1, &wrongRank, 1), KILN_STATUS_SHAPE_MISMATCH);
  EXPECT_EQ(kiln_context_output(ctx, 1, &got), KILN_STATUS_INVALID_ARGUMENT);
  kiln_context_destroy(ctx); // frees nothing twice (ASan builds check it)
  kiln_model_unload(m);
}

TEST(RunTimeOutput, OnlyOutputsMayBeSizedAtRunTime) {
  static const int64_t dims[] = {KILN_DIM_AT_RUN_TIME};
  static const kiln_tensor_info in = {"x", KILN_DTYPE_FLOAT32, 1, dims};
  kiln_model_desc d = positivesDesc();
  d.inputs = &in;
  kiln_model *m = nullptr;
  EXPECT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_LOAD_FAILED);
  EXPECT_NE(lastError().find("computed at run time"), std::string::npos)
      << lastError();
}

TEST(RunTimeOutput, StaticOutputsReadBackTheCallersBuffer) {
  kiln_model_desc d = positivesDesc();
  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK);
  kiln_context *ctx = nullptr;
  ASSERT_EQ(kiln_context_create(m, &ctx), KILN_STATUS_OK);
  float x[] = {2};
  int64_t n = 1;
  kiln_tensor in = {KILN_DTYPE_FLOAT32, 1, &n, x, sizeof x};
  kiln_tensor out = {KILN_DTYPE_FLOAT32, 1, nullptr, nullptr, 0};
  ASSERT_EQ(kiln_run(ctx, &in, 1, &out, 1), KILN_STATUS_OK);
  kiln_tensor got;
  ASSERT_EQ(kiln_context_output(ctx, 0, &got), KILN_STATUS_OK);
  EXPECT_EQ(got.dims[0], 1);
  EXPECT_EQ(*static_cast<const float *>(got.data), 2);
  kiln_context_destroy(ctx);
  kiln_model_unload(m);
}

} // namespace
