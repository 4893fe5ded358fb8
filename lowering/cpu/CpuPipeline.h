//===- CpuPipeline.h - linalg to LLVM dialect for CPU targets ---*- C++ -*-===//
#ifndef KILN_LOWERING_CPU_CPUPIPELINE_H
#define KILN_LOWERING_CPU_CPUPIPELINE_H

#include "mlir/Pass/PassManager.h"

#include <cstdint>

namespace kiln {

/// Schedule knobs of the CPU pipeline; the autotuner sets these per target.
/// Zero means "heuristic default from vectorBits" (see TileAndVectorize.cpp).
/// Every field is an integer so that `--schedule KEY=N` can set any of them
/// (flags are 0 or 1).
struct CpuScheduleOptions {
  /// Vector width in bits of the target's widest profitable registers.
  int64_t vectorBits = 256;
  /// Contraction cache blocks: rows (M) and columns (N) per thread-level
  /// tile, depth (K) per L2 block.
  int64_t tileM = 0, tileN = 0, tileK = 0;
  /// Contraction register tile: accumulator rows and columns (lanes).
  int64_t regM = 0, regN = 0;
  /// K elements per innermost step (unroll of the FMA sequence).
  int64_t regK = 1;
  /// Pack B micro-panels whose rows lie at least this many bytes apart;
  /// 0 never packs. Measured on sgemm at one thread, packing takes N = 2048
  /// (8 KiB rows) from 57 % to 65-68 % of peak, but costs N = 512 (2 KiB
  /// rows) 13 points and does not help 1024.
  int64_t packRowBytes = 8192;
  /// The same for A blocks (mc x kc).
  int64_t packARowBytes = 0;
  /// Split outer loops across kiln_rt's thread pool.
  int64_t parallel = 1;
  /// Iteration-space size below which an op stays on one thread. Vectorized
  /// ops this small finish in microseconds; splitting them moves their data
  /// between cores' caches, which costs more than the second core saves.
  int64_t minParallelWork = 131072;
  /// Rewrite 2-D convolutions as im2col + contraction.
  int64_t convToIm2Col = 1;
  /// Tile and vectorize at all (off: scalar loops, the reference lowering).
  bool tileAndVectorize = true;
};

/// Bufferizes linalg-on-tensors, plans memory, tiles and vectorizes for the
/// CPU, and lowers to the LLVM dialect. Shared by every CPU target; they
/// differ in the options.
void buildCpuLoweringPipeline(mlir::OpPassManager &pm,
                              const CpuScheduleOptions &options);

} // namespace kiln

#endif // KILN_LOWERING_CPU_CPUPIPELINE_H
