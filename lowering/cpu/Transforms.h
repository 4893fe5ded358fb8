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

#include "dialects/graph/ConstantData.h"
#include "dialects/kernel/KernelAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/MapVector.h"

#include <functional>
#include <string>

namespace kiln::cpu {

/// The schedule to apply to an op; a null attribute leaves the op alone.
using ScheduleControlFn =
    std::function<kernel::CpuScheduleAttr(mlir::Operation *)>;

//===----------------------------------------------------------------------===//
// Convolutions as contractions (ConvToIm2Col.cpp)
//===----------------------------------------------------------------------===//

/// Whether `conv` is 1x1 with unit strides and no padding: its input is its
/// im2col matrix as it is.
bool isPointwiseConv(mlir::linalg::Conv2DNchwFchwOp conv);

/// Static shape of an NCHW convolution rewritten through im2col.
struct ConvShape {
  int64_t n, f, c, kh, kw, oh, ow;
  llvm::SmallVector<int64_t> strides, dilations;
  mlir::Type elt;
};
mlir::FailureOr<ConvShape> getConvShape(mlir::linalg::Conv2DNchwFchwOp conv);

/// cols[n, c, kh, kw, oh, ow] = x[n, c, oh*sh + kh*dh, ow*sw + kw*dw] into
/// `dest` (n x c x kh x kw x oh x ow). The innermost loop walks an input row
/// with no division or remainder per element.
mlir::Value buildGather(mlir::OpBuilder &b, mlir::Location loc,
                        const ConvShape &s, mlir::Value x, mlir::Value dest);

/// Rewrites a static NCHW convolution on tensors as an im2col gather (none
/// for a 1x1, unit-stride convolution) and a contraction; returns the
/// contraction, which inherits the convolution's schedule. With
/// `pixelRows` > 0 (batch 1, f32, constant filter) the product is
/// transposed: output pixels as its rows, channels as its columns, the
/// weights packed in panels of `pixelRows` channels (buildPixelRowProduct).
mlir::FailureOr<mlir::Operation *>
rewriteConvInIm2Col(mlir::RewriterBase &rewriter,
                    mlir::linalg::Conv2DNchwFchwOp conv, int64_t pixelRows = 0);

/// cols^T w^T [P, F], for gathered columns `cols` [K, P] and a
/// constant filter `w` [F, K] (f32): the product runs with the P pixels as
/// rows and the F channels as vector columns, so the weights stream through
/// the register tiles once however few pixels there are. w^T is packed at
/// compile time into `panel`-channel panels ([F / panel, K, panel], each
/// contiguous), one product per panel on threads; ungrouped channels past
/// the last whole panel make a zero-padded panel with a product of its own
/// (`lastProduct`, where asked for). Returns the (first) product and its
/// [P, F] result. Its tiles start from `bias` (one value per channel) where
/// given, else from zero. With `groups` > 1, `w` is [F, K / groups] and a
/// panel of group g's channels reads g's rows of `cols` (one panel of all
/// of a group's channels where `panel` does not divide F / groups).
std::pair<mlir::Operation *, mlir::Value>
buildPixelRowProduct(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cols,
                     const ConstantData &w, int64_t f, int64_t panel,
                     mlir::Value bias = {}, int64_t groups = 1,
                     mlir::Operation **lastProduct = nullptr);

/// Replaces the batch-1 f32 convolution `conv`, whose gathered columns are
/// `cols` [K, P] and constant filter `w`, by its pixel-row product. An
/// output that starts from a per-channel bias (or zero) is the product's
/// transpose, computed in one pass with the elementwise op that alone reads
/// it; any other is added to. Returns the (first) product.
mlir::Operation *replaceConvByPixelRows(mlir::RewriterBase &rewriter,
                                        mlir::linalg::Conv2DNchwFchwOp conv,
                                        mlir::Value cols, const ConstantData &w,
                                        int64_t panel);

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

/// The per-channel vector an NCHW convolution's output starts from (a
/// broadcast of a [F] bias over the image), if it is one.
mlir::Value perChannelInit(mlir::Value out);
/// Whether `v` is made by a linalg.fill of float zero.
bool isZeroFill(mlir::Value v);

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
/// With `pixelRows` > 0 (the im2col_transposed schedule: batch 1, f32,
/// constant filter, a bias or zero init, `pixelRows` dividing each group's
/// channels), one gather of all channels and one pixel-row product per
/// panel of a group's channels instead (GroupedConv.cpp).
mlir::FailureOr<llvm::SmallVector<mlir::Operation *>>
rewriteGroupedConvInIm2Col(mlir::RewriterBase &rewriter,
                           mlir::linalg::Conv2DNgchwGfchwOp conv,
                           int64_t pixelRows = 0);

/// The filter `w` of a grouped convolution as constant data, [F, Cg * KH *
/// KW] in row-major order (the [G, Fg, ...] operand is an expanded
/// constant); none when it is not constant.
std::optional<ConstantData> getGroupedConvWeights(mlir::Value w);

/// Replaces the batch-1 f32 grouped convolution `conv`, whose gathered
/// columns of all groups are `cols` [G * K, P] and constant filter `w`
/// ([F, K]), by its pixel-row product; its output must start from a
/// per-channel bias or zero. Returns the (first) product, or null where the
/// output does not.
mlir::Operation *replaceGroupedConvByPixelRows(
    mlir::RewriterBase &rewriter, mlir::linalg::Conv2DNgchwGfchwOp conv,
    mlir::Value cols, const ConstantData &w, int64_t panel);

/// Whether Winograd F(m x m, 3 x 3) applies to `conv`: static f32, 3x3,
/// unit strides and dilations, constant filter (WinogradConv.cpp).
bool isWinogradConv(mlir::linalg::Conv2DNchwFchwOp conv);
/// The output tiles of F(m x m, 3 x 3) over `conv`'s output (all images).
int64_t winogradTiles(mlir::linalg::Conv2DNchwFchwOp conv, int64_t m);
/// Rewrites `conv` as Winograd F(m x m, 3 x 3), m = 2 or 4: input
/// transform, one contraction per transformed tap (in an scf.forall over
/// the taps), output transform plus the convolution's init; returns the
/// contraction, which inherits the convolution's schedule. With fewer tiles
/// than four `panel`s the products take the tiles as rows and the channels
/// as columns, the transformed weights packed in `panel`-channel panels.
mlir::FailureOr<mlir::Operation *>
rewriteConvInWinograd(mlir::RewriterBase &rewriter,
                      mlir::linalg::Conv2DNchwFchwOp conv, int64_t m,
                      int64_t panel);

/// Applies a convolution schedule (`im2col`, `blocked_im2col`,
/// `winograd_f4`, `winograd_f2`; `direct`
/// fails) to linalg.conv_2d_nchw_fchw, conv_2d_nhwc_hwcf or (per group)
/// conv_2d_ngchw_gfchw, with upstream's im2col where kiln's does not apply;
/// returns the (first) contraction. A plain im2col gather whose matrix fits
/// in `cacheBytes` (0: none) and whose product shares out pixels among
/// threads is marked kSplitGatherRowsAttr.
mlir::FailureOr<mlir::Operation *>
applyConvSchedule(mlir::RewriterBase &rewriter, mlir::Operation *conv,
                  kernel::CpuScheduleAttr schedule, int64_t cacheBytes = 0);

/// Rewrites a static float linalg.batch_matmul (default maps) as an
/// scf.forall over the batch of 2-D linalg.matmuls, which inherit its
/// schedule and take the register kernel (BatchMatmulLoop.cpp); returns one.
mlir::FailureOr<mlir::Operation *>
rewriteBatchMatmulAsLoop(mlir::RewriterBase &rewriter,
                         mlir::linalg::BatchMatmulOp op);

/// Rewrites a static f32 linalg.matmul (default maps) whose B is constant
/// with the `packed_weights` schedule: B packed at compile time in panels of
/// reg_n columns ([N / reg_n][K][reg_n]), a loop of K blocks (tile_k) over
/// foralls of row blocks (tile_m) and panels, each a small linalg.matmul
/// that takes the register kernel (PackedWeightProduct.cpp); returns one.
mlir::FailureOr<mlir::Operation *>
rewriteMatmulWithPackedWeights(mlir::RewriterBase &rewriter,
                               mlir::linalg::MatmulOp op);

/// Patterns applying `control`'s schedule to each 2-D convolution (see
/// applyConvSchedule for `cacheBytes`).
void populateConvToIm2ColPatterns(mlir::RewritePatternSet &patterns,
                                  ScheduleControlFn control,
                                  int64_t cacheBytes = 0);

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
  /// The number of K blocks each register tile's product has.
  llvm::SmallVector<int64_t> registerTileKBlocks;
  /// The loops over K blocks (where there are two or more).
  llvm::SmallVector<mlir::Operation *> kBlockLoops;
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
// Initializers and epilogues in the register tiles (ContractionEpilogue.cpp)
//===----------------------------------------------------------------------===//

/// The ops around a contraction on buffers that its register tiles can
/// compute: the initializer of its output C (a fill or an elementwise
/// generic writing all of C, right before it) and an elementwise epilogue
/// reading C right after it; either may be null, not both.
struct ContractionEpilogue {
  mlir::Operation *init = nullptr;
  mlir::linalg::GenericOp epilogue;
};
/// Also for an NCHW depthwise convolution of one image (channels as rows,
/// pixels as columns), whose vector kernel computes them.
std::optional<ContractionEpilogue>
findContractionEpilogue(mlir::linalg::LinalgOp product);
/// The scalar body of an initializer or epilogue `op` (a fill or an
/// elementwise generic) on vectors of `shape`, its inputs given in order.
mlir::Value evaluateEpilogueBody(mlir::OpBuilder &b, mlir::Location loc,
                                 mlir::linalg::LinalgOp op,
                                 llvm::ArrayRef<mlir::Value> inputs,
                                 llvm::ArrayRef<int64_t> shape);

/// Marks of the products whose register tiles compute their initializer
/// and epilogue, by group number: the product (then its register tiles),
/// the initializer, the epilogue; a register tile's number of K blocks and
/// the loops over K blocks.
constexpr llvm::StringLiteral kEpilogueGroupAttr = "kiln.epilogue_group";
constexpr llvm::StringLiteral kEpilogueInitAttr = "kiln.epilogue_init";
constexpr llvm::StringLiteral kEpilogueOfAttr = "kiln.epilogue_of";
constexpr llvm::StringLiteral kKBlocksAttr = "kiln.k_blocks";
/// Marks an im2col gather whose product shares out pixels among threads:
/// the gather's threads then take output rows, not channels.
constexpr llvm::StringLiteral kSplitGatherRowsAttr = "kiln.split_gather_rows";

/// Marks each of `products` that has an initializer or epilogue, and them;
/// returns the number of groups.
int64_t
markContractionEpilogues(mlir::RewriterBase &rewriter,
                         llvm::ArrayRef<mlir::linalg::LinalgOp> products);
/// The group `op` is the initializer or epilogue of, or -1.
int64_t getEpilogueGroup(mlir::Operation *op);
/// Each marked group's initializer and epilogue in `func`, marks removed.
llvm::MapVector<int64_t, ContractionEpilogue>
takeEpilogueGroups(mlir::func::FuncOp func);

/// Moves `init` and `epilogue` (found by findContractionEpilogue) into the
/// vectorized register tiles of their product, given as each tile's C view
/// (read before its K loop and written after it) and the loop over K blocks
/// around it (null: one K block); erases them. Fails without changing
/// anything when a tile or operand does not fit. `maskedStores`: the target
/// stores a masked vector as cheaply as a plain one (storeTileByImageRows).
mlir::LogicalResult fuseContractionEpilogue(
    mlir::RewriterBase &rewriter, mlir::Operation *init,
    mlir::linalg::GenericOp epilogue,
    llvm::ArrayRef<std::pair<mlir::Value, mlir::scf::ForOp>> tiles,
    bool maskedStores);

/// A buffer the product's tiles can only be stored to by image rows
/// (ImageRowStores.cpp): one dim of rows (M) and two of columns (N): an
/// image's height and its contiguous width, rows `rowStride` apart (the
/// interior of a padded buffer).
struct ImageRows {
  int64_t width = 0, rowStride = 0, mStride = 0;
  int64_t extent = 0; // elements from the buffer's first to its last
};
/// `type` split into the product's (M, N) by `groups`, if it is such a
/// buffer.
std::optional<ImageRows>
matchImageRows(mlir::MemRefType type,
               llvm::ArrayRef<mlir::ReassociationIndices> groups);
/// A 1-D view of `d`'s elements for storeTileByImageRows.
mlir::Value flatImageRowsView(mlir::OpBuilder &b, mlir::Location loc,
                              mlir::Value d, const ImageRows &rows);
/// Stores the 2-D vector `tile` at row `m` and column `n` of the product
/// into `flat`: each row of lanes in one store where it lies within an
/// image row, else one piece per image row it crosses: a masked store with
/// `maskedStores`, else a read, a select and a store.
void storeTileByImageRows(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Value tile, mlir::Value flat,
                          const ImageRows &rows, mlir::Value m, mlir::Value n,
                          bool maskedStores);

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

/// The running maximum of a max pooling window: `x` where x > acc, else
/// `acc`, one vmaxps on x86 (arith.maximumf is four instructions there, for
/// NaN and signed zeros: 0.26 -> 0.17 ms a 3x3 stride-2 pooling of 64 x
/// 112 x 112 on a Zen 5 core). A NaN input is skipped (ONNX leaves it
/// open; ONNX Runtime does not propagate it either); a NaN in `acc` stays.
mlir::Value poolingMax(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                       mlir::Value x);

/// Keeps a vectorized register tile's accumulator in registers across its
/// K loop `loop`: the read of C moves before the loop, the write after it,
/// and the value travels as an iter_arg. Leaves loops of any other form as
/// they are; returns the new loop, or null.
mlir::scf::ForOp hoistAccumulator(mlir::RewriterBase &rewriter,
                                  mlir::scf::ForOp loop);

/// A row reduction's loop `loop` whose one iter_arg is folded in by a
/// horizontal reduction of each row vector: carries the row vector's lanes
/// instead, combined elementwise, and reduces them once after the loop.
/// Returns the new loop (`loop` where it has another form).
mlir::scf::ForOp accumulateLanes(mlir::RewriterBase &rewriter,
                                 mlir::scf::ForOp loop);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_TRANSFORMS_H
