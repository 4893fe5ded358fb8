//===- Transforms.h - CPU kernel transformations as functions ---*- C++ -*-===//
//
// The transformations behind kiln's CPU passes, callable one op at a time
// and steered by a schedule (#kiln_kernel.cpu_schedule), in the manner of
// upstream's linalg::blockPackMatmul: each returns what it built, or fails
// with the op left as it was, and the populate* functions wrap them as
// patterns whose control callback picks the schedule per op. The passes
// (ConvToIm2Col, TileAndVectorize) read the schedules that
// kiln-cpu-select-schedule wrote and call these.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_TRANSFORMS_H
#define KILN_LOWERING_CPU_TRANSFORMS_H

#include "dialects/kernel/KernelAttrs.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <string>

namespace kiln::cpu {

/// The schedule to apply to an op; a null attribute leaves the op alone.
using ScheduleControlFn =
    std::function<kernel::CpuScheduleAttr(mlir::Operation *)>;

//===----------------------------------------------------------------------===//
// Convolutions as contractions (ConvToIm2Col.cpp)
//===----------------------------------------------------------------------===//

/// Rewrites a static NCHW convolution on tensors as an im2col gather (none
/// for a 1x1, unit-stride convolution) and a contraction; returns the
/// contraction, which inherits the convolution's schedule.
mlir::FailureOr<mlir::Operation *>
rewriteConvInIm2Col(mlir::RewriterBase &rewriter,
                    mlir::linalg::Conv2DNchwFchwOp conv);

struct BlockedIm2ColOptions {
  /// Largest im2col scratch tile, in bytes.
  int64_t blockBytes = 0;
  /// Parallel chunks, each with its own scratch tile.
  int64_t maxChunks = 1;
};

/// Output rows per block of a blocked im2col: the most that divide `oh` and
/// keep the block's im2col tile (k x rows*ow elements) within `blockBytes`.
int64_t blockedIm2ColRows(int64_t k, int64_t oh, int64_t ow, int64_t eltBytes,
                          int64_t blockBytes);

/// Rewrites a batch-1 NCHW convolution into an scf.forall over blocks of
/// output rows, each gathered into a cache-sized scratch tile and multiplied
/// while it is in cache; returns the per-block contraction.
mlir::FailureOr<mlir::Operation *>
rewriteConvInBlockedIm2Col(mlir::RewriterBase &rewriter,
                           mlir::linalg::Conv2DNchwFchwOp conv,
                           const BlockedIm2ColOptions &options);

/// Rewrites a static grouped convolution (linalg.conv_2d_ngchw_gfchw) as an
/// scf.forall over the groups whose body is one group's convolution through
/// rewriteConvInIm2Col; returns that contraction (empty when the group's
/// im2col did not apply). As one op with a group batch dim the contraction
/// had no register kernel (6 GFLOP/s for 32 groups of 8 channels); one copy
/// per group compiled for minutes at hundreds of groups.
mlir::FailureOr<llvm::SmallVector<mlir::Operation *>>
rewriteGroupedConvInIm2Col(mlir::RewriterBase &rewriter,
                           mlir::linalg::Conv2DNgchwGfchwOp conv);

/// Applies a convolution schedule (`im2col`, `blocked_im2col`; `direct`
/// fails) to linalg.conv_2d_nchw_fchw, conv_2d_nhwc_hwcf or (per group)
/// conv_2d_ngchw_gfchw, with upstream's im2col where kiln's does not apply;
/// returns the (first) contraction.
mlir::FailureOr<mlir::Operation *>
applyConvSchedule(mlir::RewriterBase &rewriter, mlir::Operation *conv,
                  kernel::CpuScheduleAttr schedule);

/// Patterns applying `control`'s schedule to each 2-D convolution.
void populateConvToIm2ColPatterns(mlir::RewritePatternSet &patterns,
                                  ScheduleControlFn control);

//===----------------------------------------------------------------------===//
// Contraction tiling (TileAndVectorize.cpp)
//===----------------------------------------------------------------------===//

/// What tileContraction built, for the steps after it: the loops to peel so
/// that all but their last iteration see whole register tiles, the register
/// tiles to vectorize, the K loops whose accumulator stays in registers, and
/// the packing copies to run as vector rows.
struct ContractionTilingResult {
  llvm::SmallVector<mlir::Operation *> peelLoops;
  llvm::SmallVector<mlir::Operation *> registerTiles;
  llvm::SmallVector<mlir::Operation *> accumulatorLoops;
  llvm::SmallVector<mlir::Operation *> packCopies;
};

/// Tiles a static float contraction on buffers into thread blocks, cache
/// blocks and register tiles by `schedule` (see TileAndVectorize.cpp); no
/// threads when `allowThreads` is false (the op already runs inside a
/// parallel loop). On failure the op is unchanged and `why` says why.
mlir::FailureOr<ContractionTilingResult>
tileContraction(mlir::RewriterBase &rewriter, mlir::linalg::LinalgOp op,
                kernel::CpuScheduleAttr schedule, bool allowThreads,
                std::string &why);

//===----------------------------------------------------------------------===//
// Depthwise convolutions (DepthwiseConvNhwc.cpp)
//===----------------------------------------------------------------------===//

/// The op before `op` in its block that last uses `buffer` (itself or an op
/// nested in it), if any: on buffers, what a kernel about to overwrite or
/// accumulate into `buffer` may absorb (a zero fill, a bias broadcast).
mlir::Operation *getPreviousUser(mlir::Operation *op, mlir::Value buffer);
/// The op after `op` in its block that first uses `buffer` (itself or an op
/// nested in it), if any.
mlir::Operation *getNextUser(mlir::Operation *op, mlir::Value buffer);

/// Replaces a static f32 channels-last depthwise convolution on buffers by
/// vector loops along the channels (threads over output rows when the
/// schedule has them); fails, leaving the op, on other forms.
mlir::LogicalResult
vectorizeDepthwiseConvNhwc(mlir::RewriterBase &rewriter,
                           mlir::linalg::DepthwiseConv2DNhwcHwcOp op,
                           kernel::CpuScheduleAttr schedule);
/// The same loops for a static f32 channels-last max pooling (a maximum
/// instead of a multiply-add, no filter).
mlir::LogicalResult vectorizeMaxPoolNhwc(mlir::RewriterBase &rewriter,
                                         mlir::linalg::PoolingNhwcMaxOp op,
                                         kernel::CpuScheduleAttr schedule);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_TRANSFORMS_H
