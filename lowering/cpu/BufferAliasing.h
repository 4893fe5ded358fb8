//===- BufferAliasing.h - Which buffers an op may touch ---------*- C++ -*-===//
//
// Where memref values live (arena byte ranges, allocs, globals,
// arguments), and which ops between two others may read or write them:
// what the register-tile epilogues (ContractionEpilogue.cpp) and the
// depthwise kernel check before they move an op's work elsewhere.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_LOWERING_CPU_BUFFERALIASING_H
#define KILN_LOWERING_CPU_BUFFERALIASING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dominance.h"

namespace kiln::cpu {

/// On a loop made from linalg ops (the depthwise kernel with its
/// activation): the arena bytes [lo, hi) it writes all of without reading
/// them, as a linalg op that overwrites its output would.
inline constexpr const char *kOverwritesAttr = "kiln.overwrites";

/// Ops that neither read nor write memory and only name values: views,
/// constants, index arithmetic.
bool isNonMemoryOp(mlir::Operation *op);

/// Where a memref value lives: the buffer under its views (an arena view
/// with a constant offset and static size, an alloc, a global, an
/// argument) and, for arena views, its byte range.
struct BufferRange {
  mlir::Value base;
  int64_t lo = 0, hi = -1; // hi < 0: the whole base
  bool known = true;
};
BufferRange rangeOf(mlir::Value v);
bool mayAlias(const BufferRange &a, const BufferRange &b);
/// Whether `a` and `b` are the same buffer with the same view.
bool sameBuffer(mlir::Value a, mlir::Value b);
/// `v` under the reshapes that keep every element where it is.
mlir::Value underReshapes(mlir::Value v);
/// Whether `fill` writes all of `c`, whatever the shape of its view.
bool fillsAll(mlir::linalg::FillOp fill, mlir::Value c);
/// Whether `op` (or an op nested in it) may read or write any of `buffers`.
bool touches(mlir::Operation *op, llvm::ArrayRef<BufferRange> buffers);
/// The first op after (before) `op` in its block that may touch `buffer`.
mlir::Operation *nextToucher(mlir::Operation *op, const BufferRange &buffer,
                             bool after);
/// Whether no op strictly between `from` and `to` (same block, in order)
/// may touch any of `buffers`.
bool untouchedBetween(mlir::Operation *from, mlir::Operation *to,
                      llvm::ArrayRef<BufferRange> buffers);
/// Whether `op` reaches the bytes of the arena view `c` only through other
/// views: buffers the memory plan placed there after C's last use.
bool reusesBytesOf(mlir::Operation *op, mlir::Value c);
/// Whether `v` views a constant global (weights, biases), which nothing
/// writes.
bool isConstantGlobal(mlir::Value v);
/// Whether `v` is available before `top`, moving the views and constants
/// that make it (a buffer's interior viewed after the product) there.
bool availableBefore(mlir::Value v, mlir::Operation *top,
                     mlir::DominanceInfo &dom);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_BUFFERALIASING_H
