// cublas_gemm.cu - cuBLAS's time for C = A B, N x N x N, in fp32 and in TF32
// tensor-core mode: the reference kiln's GPU MatMul is measured against.
//
//   nvcc -O2 cublas_gemm.cu -lcublas -o cublas_gemm && ./cublas_gemm 4096
//
// Prints `cublas <mode> <n> <median ms> <TFLOP/s>` per mode.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                               \
  do {                                                                         \
    if ((x) != 0) {                                                            \
      std::fprintf(stderr, "cublas_gemm: %s failed\n", #x);                    \
      return 1;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 4096;
  size_t bytes = size_t(n) * n * sizeof(float);
  std::vector<float> host(size_t(n) * n);
  for (size_t i = 0; i < host.size(); ++i)
    host[i] = float((i * 2654435761u) % 1000) / 1000.0f - 0.5f;
  float *a, *b, *c;
  CHECK(cudaMalloc(&a, bytes));
  CHECK(cudaMalloc(&b, bytes));
  CHECK(cudaMalloc(&c, bytes));
  CHECK(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  const float one = 1.0f, zero = 0.0f;
  for (int tf32 = 0; tf32 < 2; ++tf32) {
    CHECK(cublasSetMathMode(h, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                    : CUBLAS_PEDANTIC_MATH));
    std::vector<float> ms;
    for (int rep = 0; rep < 23; ++rep) {
      cudaEventRecord(start);
      CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n,
                        &zero, c, n));
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float t = 0;
      cudaEventElapsedTime(&t, start, stop);
      if (rep >= 3)
        ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    double med = ms[ms.size() / 2];
    std::printf("cublas %s %d %.4f %.2f\n", tf32 ? "tf32" : "fp32", n, med,
                2.0 * n * double(n) * n / (med * 1e-3) / 1e12);
  }
  return 0;
}
