//===- ModelTest.cpp - Loading model libraries and reading metadata -------===//
#include "kiln_rt.h"

#include <gtest/gtest.h>

#include <string>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {

std::string lastError() { return kiln_last_error(); }

TEST(ModelLoad, LoadsFakeModel) {
  kiln_model *model = nullptr;
  ASSERT_EQ(kiln_model_load(KILN_FAKE_ADD_MODEL, &model), KILN_STATUS_OK)
      << lastError();
  ASSERT_NE(model, nullptr);
  kiln_model_unload(model);
}

TEST(ModelLoad, MissingFileFails) {
  kiln_model *model = reinterpret_cast<kiln_model *>(0x1);
  EXPECT_EQ(kiln_model_load("/nonexistent/model.so", &model),
            KILN_STATUS_LOAD_FAILED);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(lastError().find("/nonexistent/model.so"), std::string::npos);
}

TEST(ModelLoad, LibraryWithoutEntryFails) {
  // The runtime itself is a valid shared library that is not a model.
  kiln_model *model = nullptr;
  EXPECT_EQ(kiln_model_load(KILN_RT_LIBRARY, &model), KILN_STATUS_LOAD_FAILED);
  EXPECT_EQ(model, nullptr);
  EXPECT_NE(lastError().find("kiln_model_get"), std::string::npos);
}

TEST(ModelLoad, AbiMismatch) {
  kiln_model *model = nullptr;
  EXPECT_EQ(kiln_model_load(KILN_FAKE_BAD_ABI_MODEL, &model),
            KILN_STATUS_ABI_MISMATCH);
  EXPECT_EQ(model, nullptr);
  std::string expected =
      "ABI version " + std::to_string(KILN_MODEL_ABI_VERSION + 1);
  EXPECT_NE(lastError().find(expected), std::string::npos) << lastError();
}

TEST(ModelLoad, NullArguments) {
  kiln_model *model = nullptr;
  EXPECT_EQ(kiln_model_load(nullptr, &model), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_model_load(KILN_FAKE_ADD_MODEL, nullptr),
            KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_model_from_desc(nullptr, &model), KILN_STATUS_LOAD_FAILED);
  kiln_model_unload(nullptr); // no-op
}

TEST(ModelMetadata, FakeAddModel) {
  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_load(KILN_FAKE_ADD_MODEL, &m), KILN_STATUS_OK);
  EXPECT_STREQ(kiln_model_name(m), "fake_add");
  EXPECT_STREQ(kiln_model_target(m), "x86_64");
  EXPECT_STREQ(kiln_model_kiln_version(m), "0.1.0-test");
  EXPECT_EQ(kiln_model_weights_checksum(m), 0xcbf29ce484222325ull);
  EXPECT_EQ(kiln_model_arena_bytes(m), 256u);
  EXPECT_EQ(kiln_model_arena_alignment(m), 64u);
  ASSERT_EQ(kiln_model_num_inputs(m), 2);
  ASSERT_EQ(kiln_model_num_outputs(m), 1);
  ASSERT_EQ(kiln_model_num_symbols(m), 1);
  EXPECT_STREQ(kiln_model_symbol(m, 0), "batch");
  EXPECT_EQ(kiln_model_symbol(m, 1), nullptr);

  const kiln_tensor_info *x = kiln_model_input(m, 0);
  ASSERT_NE(x, nullptr);
  EXPECT_STREQ(x->name, "x");
  EXPECT_EQ(x->dtype, KILN_DTYPE_FLOAT32);
  ASSERT_EQ(x->rank, 2);
  EXPECT_EQ(x->dims[0], -1); // symbol 0
  EXPECT_EQ(x->dims[1], 3);
  EXPECT_STREQ(kiln_model_output(m, 0)->name, "z");
  EXPECT_EQ(kiln_model_input(m, 2), nullptr);
  EXPECT_EQ(kiln_model_input(m, -1), nullptr);
  EXPECT_EQ(kiln_model_output(m, 1), nullptr);

  EXPECT_EQ(kiln_model_find_input(m, "x"), 0);
  EXPECT_EQ(kiln_model_find_input(m, "y"), 1);
  EXPECT_EQ(kiln_model_find_input(m, "z"), -1);
  EXPECT_EQ(kiln_model_find_input(m, nullptr), -1);
  EXPECT_EQ(kiln_model_find_output(m, "z"), 0);
  EXPECT_EQ(kiln_model_descriptor(m)->run != nullptr, true);
  kiln_model_unload(m);
}

TEST(ModelMetadata, StatusAndDtypeNames) {
  EXPECT_STREQ(kiln_status_string(KILN_STATUS_SHAPE_MISMATCH),
               "SHAPE_MISMATCH");
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_FLOAT16), 2u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_INT64), 8u);
  EXPECT_EQ(kiln_dtype_size(8 /* string */), 0u);
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_BOOL), "bool");
  EXPECT_STREQ(kiln_rt_version(), KILN_RT_VERSION);
}

int32_t noopRun(void **, int64_t *, void *) { return 0; }

/// A descriptor of one input and one output, for the load-time checks.
kiln_model_desc oneInOneOut(const kiln_tensor_info *in,
                            const kiln_tensor_info *out) {
  kiln_model_desc d = {};
  d.abi_version = KILN_MODEL_ABI_VERSION;
  d.num_inputs = 1;
  d.inputs = in;
  d.num_outputs = 1;
  d.outputs = out;
  d.run = noopRun;
  return d;
}

// Descriptors built in-process exercise the load-time consistency checks.
TEST(ModelDescriptor, RejectsMalformed) {
  static const int64_t batchDims[] = {-1};
  static const int64_t unknownSym[] = {-2};
  static const char *const syms[] = {"batch"};
  kiln_tensor_info in = {"a", KILN_DTYPE_FLOAT32, 1, batchDims};
  kiln_tensor_info out = {"b", KILN_DTYPE_FLOAT32, 1, batchDims};
  kiln_model_desc d = oneInOneOut(&in, &out);
  d.num_symbols = 1;
  d.symbols = syms;

  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK) << lastError();
  EXPECT_EQ(kiln_model_arena_alignment(m), 64u); // 0 means default
  kiln_model_unload(m);

  kiln_model_desc noRun = d;
  noRun.run = nullptr;
  EXPECT_EQ(kiln_model_from_desc(&noRun, &m), KILN_STATUS_LOAD_FAILED);

  kiln_model_desc badAlign = d;
  badAlign.arena_alignment = 48;
  EXPECT_EQ(kiln_model_from_desc(&badAlign, &m), KILN_STATUS_LOAD_FAILED);

  kiln_tensor_info badSym = {"a", KILN_DTYPE_FLOAT32, 1, unknownSym};
  kiln_model_desc unknown = d;
  unknown.inputs = &badSym;
  EXPECT_EQ(kiln_model_from_desc(&unknown, &m), KILN_STATUS_LOAD_FAILED);

  // An output symbol that no input binds can never be resolved.
  static const int64_t staticDims[] = {4};
  kiln_tensor_info staticIn = {"a", KILN_DTYPE_FLOAT32, 1, staticDims};
  kiln_model_desc unbound = d;
  unbound.inputs = &staticIn;
  EXPECT_EQ(kiln_model_from_desc(&unbound, &m), KILN_STATUS_LOAD_FAILED);
  EXPECT_NE(lastError().find("'b'"), std::string::npos) << lastError();

  kiln_tensor_info badType = {"a", 8 /* string */, 1, batchDims};
  kiln_model_desc strings = d;
  strings.inputs = &badType;
  EXPECT_EQ(kiln_model_from_desc(&strings, &m), KILN_STATUS_LOAD_FAILED);
}

// A library records the CPU features its code uses; loading refuses one whose
// features this machine lacks, naming them, instead of dying on SIGILL.
TEST(ModelDescriptor, ChecksCpuFeatures) {
  static const int64_t dims[] = {4};
  kiln_tensor_info in = {"a", KILN_DTYPE_FLOAT32, 1, dims};
  kiln_tensor_info out = {"b", KILN_DTYPE_FLOAT32, 1, dims};
  kiln_model_desc d = oneInOneOut(&in, &out);
  d.cpu = "test-cpu";
  kiln_model *m = nullptr;

#if defined(__x86_64__)
  const char *present = "sse2",
             *candidates[] = {"avx512fp16", "amx-tile", "amx-int8",
                              "avx512f",    "avx2",     "avx"};
#elif defined(__aarch64__)
  const char *present = "neon",
             *candidates[] = {"sve2", "i8mm", "sve", "bf16", "dotprod"};
#else
  GTEST_SKIP() << "no CPU feature checks on this architecture";
  const char *present = "", *candidates[] = {""};
#endif
  EXPECT_EQ(kiln_rt_cpu_supports(present), 1);
  EXPECT_EQ(kiln_rt_cpu_supports("no-such-feature"), -1);
  d.cpu_features = present;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK) << lastError();
  kiln_model_unload(m);

  d.cpu_features = "no-such-feature";
  EXPECT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_UNSUPPORTED_CPU);
  EXPECT_NE(lastError().find("cannot check: no-such-feature"),
            std::string::npos)
      << lastError();

  const char *missing = nullptr;
  for (const char *f : candidates)
    if (kiln_rt_cpu_supports(f) == 0) {
      missing = f;
      break;
    }
  if (!missing)
    GTEST_SKIP() << "this machine has every candidate feature";
  std::string both = std::string(present) + "," + missing;
  d.cpu_features = both.c_str();
  EXPECT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_UNSUPPORTED_CPU);
  EXPECT_NE(lastError().find("compiled for CPU 'test-cpu'"), std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find(std::string("lacks its features ") + missing),
            std::string::npos)
      << lastError();
}

// A library whose code uses AMX tiles lists amx-tile; loading it asks Linux
// for the tile state, without which the first tile instruction would raise
// SIGILL.
TEST(ModelDescriptor, GrantsTileStateToAmxLibraries) {
#if defined(__x86_64__) && defined(__linux__) && defined(SYS_arch_prctl)
  if (kiln_rt_cpu_supports("amx-tile") != 1)
    GTEST_SKIP() << "this machine has no AMX";
  static const int64_t dims[] = {4};
  kiln_tensor_info in = {"a", KILN_DTYPE_FLOAT32, 1, dims};
  kiln_tensor_info out = {"b", KILN_DTYPE_FLOAT32, 1, dims};
  kiln_model_desc d = oneInOneOut(&in, &out);
  d.cpu = "test-cpu";
  d.cpu_features = "avx512f,amx-tile,amx-bf16";
  kiln_model *m = nullptr;
  ASSERT_EQ(kiln_model_from_desc(&d, &m), KILN_STATUS_OK) << lastError();
  kiln_model_unload(m);
  unsigned long long permitted = 0;
  ASSERT_EQ(
      syscall(SYS_arch_prctl, 0x1022 /* ARCH_GET_XCOMP_PERM */, &permitted), 0);
  EXPECT_TRUE(permitted & (1ull << 18)) << "XTILEDATA not granted";
#else
  GTEST_SKIP() << "AMX is x86-64 Linux only";
#endif
}

} // namespace
