//===- ContractionPacking.h - Packed contraction panels ------*- C++ -*-===//
//
// The contraction kernel's cache and register tiles, and the copies of B
// micro-panels and A blocks into contiguous stack buffers that its register
// tiles then read (TileAndVectorize.cpp tiles, ContractionPacking.cpp packs).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_CONTRACTIONPACKING_H
#define KILN_LOWERING_CPU_CONTRACTIONPACKING_H

#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include <cstdint>

namespace kiln::cpu {

/// The sizes of a contraction's schedule (see KernelAttrs.td).
struct ContractionTiles {
  int64_t mc, nc, kc, mr, nr, kr;
  int64_t lanes; // elements per vector register
  /// B micro-panels whose rows are this many bytes apart or more get packed;
  /// 0 never packs.
  int64_t packRowBytes;
  /// The same for A blocks.
  int64_t packARowBytes;
  /// Register tiles that must read a packed B panel (along M) or A block
  /// (along N) for the copy to pay.
  int64_t packMinReuse, packAMinReuse;
  /// Parallel chunks the thread blocks aim for; 0: no threads.
  int64_t threadChunks;
  /// Multiply-adds below which a contraction (or a part of one) gets no
  /// threads.
  int64_t minParallelWork;
  /// Register tiles row by row (loop_order 2) rather than column by column.
  bool rowsOuter;
};

/// Copies the B micro-panel (kc x nr) that the register tiles of one N step
/// share into a stack buffer before the M loop `mLoop` sweeps over it, when
/// enough of them read it and its rows are far apart or straddle lines.
void packPanel(mlir::RewriterBase &rewriter, mlir::scf::ForOp nLoop,
               mlir::scf::ForOp mLoop, mlir::linalg::LinalgOp tile,
               const ContractionTiles &t, ContractionTilingResult &result);

/// Copies the A block (mc x kc) of one K step into a stack buffer before the
/// N loop sweeps over it, when pack_a_row_bytes asks for it.
void packBlock(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp tile,
               const ContractionTiles &t, unsigned mDim, unsigned nDim,
               ContractionTilingResult &result);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_CONTRACTIONPACKING_H
