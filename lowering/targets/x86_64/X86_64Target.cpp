//===- X86_64Target.cpp - x86-64 Linux target backend ---------------------===//
//
// The host target in most deployments. Without `--cpu` it compiles for
// x86-64-v3 (AVX2, FMA: every x86-64 server CPU since 2013), which runs on
// machines other than the build machine; `--cpu native` compiles for this
// machine's CPU and features (AVX-512 where present). Links against the
// system C library.
//
//===----------------------------------------------------------------------===//

#include "lowering/targets/cpu/CpuTargetBackend.h"

namespace kiln {

static CpuTargetDescription describeX86_64() {
  CpuTargetDescription d;
  d.name = "x86_64";
  d.description = "x86-64 Linux (AVX2 by default, AVX-512 with --cpu)";
  d.triple = "x86_64-linux-gnu";
  d.defaultCpu = "x86-64-v3";
  // 512-bit register tiles hold twice the columns of 256-bit ones, which
  // measured 2.5x the sgemm throughput on an AVX-512 machine.
  d.vectorBitsByFeature = {{"avx512f", 512}, {"avx", 256}};
  d.baseVectorBits = 128; // SSE2, part of x86-64 itself
  // vpdpbusd: 64 multiply-adds of u8 by s8 into 16 i32 lanes.
  d.int8DotBitsByFeature = {{"avx512vnni", 512}};
  // vdpbf16ps: 32 bf16 products into 16 f32 lanes; fp16 widens an f16
  // weight as it loads it (vcvtph2ps) into the AVX-512 f32 tiles.
  d.precisionsByFeature = {{"bf16", "avx512bf16"}, {"fp16", "avx512f"}};
  // AMX: 16 x 16 x 32 bf16 (or 16 x 16 x 64 int8) products per instruction.
  d.tileFeatures = {"amx-tile", "amx-int8", "amx-bf16"};
  d.libDirs = {"/usr/lib/x86_64-linux-gnu"};
  d.checkedCpuFeatures = {"sse3",
                          "ssse3",
                          "sse4.1",
                          "sse4.2",
                          "popcnt",
                          "avx",
                          "f16c",
                          "fma",
                          "bmi",
                          "bmi2",
                          "avx2",
                          "avx512f",
                          "avx512dq",
                          "avx512cd",
                          "avx512bw",
                          "avx512vl",
                          "avx512ifma",
                          "avx512vbmi",
                          "avx512vbmi2",
                          "avx512vnni",
                          "avx512bitalg",
                          "avx512vpopcntdq",
                          "avx512vp2intersect",
                          "avx512bf16",
                          "avx512fp16",
                          "avxvnni",
                          "gfni",
                          "vaes",
                          "vpclmulqdq",
                          "amx-tile",
                          "amx-int8",
                          "amx-bf16"};
  return d;
}

void registerX86_64Target() {
  registerTarget("x86_64", [] {
    return std::make_unique<CpuTargetBackend>(describeX86_64());
  });
}

} // namespace kiln
