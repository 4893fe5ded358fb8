//===- TileAndVectorize.cpp - CPU tiling of linalg ops on buffers ---------===//
//
// Runs after bufferization, on memrefs, so tiling never introduces copies.
// A contraction becomes, innermost last:
//
//   scf.forall (M/mt, N/nc)            threads (kiln-cpu-parallel-to-runtime)
//     scf.for K/kc                     the B block (kc x nc) stays in L2
//       scf.for M/mc                   A block (mc x kc)
//         scf.for N/nr, scf.for M/mr   register tile, peeled at the boundary
//           scf.for K/kr               accumulator stays in vector registers
//             vector.contract (mr x nr x kr)
//
// mt is a multiple of mc, as large as still gives the threads enough
// chunks. Rows and columns past the last whole block are split off as ops
// of their own first, so every block is static. The B micro-panel (kc x nr)
// stays in L1 while the M loop sweeps over A; panels and A blocks whose rows
// lie far apart are packed first (schedule keys pack_row_bytes,
// pack_a_row_bytes). The forall is only made when the contraction has
// enough multiply-adds to pay for threads. Tiles left dynamic anyway stay
// linalg and become scalar loops.
//
// Every other op takes the row path of RowTiling.h: an outer forall when
// large, then vector rows (elementwise, im2col gathers, inner reductions).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/ContractionPacking.h"
#include "lowering/cpu/Passes.h"
#include "lowering/cpu/RowTiling.h"
#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/Transforms.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_TILEANDVECTORIZE
#include "lowering/cpu/Passes.h.inc"

using namespace kiln::cpu;

namespace {

constexpr llvm::StringLiteral kPackCopyAttr = "kiln.pack_copy";

/// Largest A (rows x K) of a one-row-block product whose thread blocks run
/// their K steps inside: a quarter of a 1 MB L2.
constexpr int64_t kInnerKStepsABytes = 256 * 1024;

ContractionTiles getTiles(kernel::CpuScheduleAttr s) {
  ContractionTiles t;
  t.lanes = lanesFor(s.getVectorBits());
  t.mc = s.getTileM();
  t.nc = s.getTileN();
  t.kc = s.getTileK();
  t.mr = s.getRegM();
  t.nr = s.getRegN();
  t.kr = s.getRegK();
  t.packRowBytes = s.getPackRowBytes();
  t.packARowBytes = s.getPackARowBytes();
  t.packMinReuse = s.getPackMinReuse();
  t.packAMinReuse = s.getPackAMinReuse();
  t.threadChunks = s.getThreads();
  t.minParallelWork = s.getMinParallelWork();
  t.rowsOuter = s.getLoopOrder() == 2;
  return t;
}

/// The dim among `candidates` that indexes the innermost result of `map`
/// that any of them indexes.
std::optional<unsigned> innermostIn(AffineMap map,
                                    ArrayRef<unsigned> candidates) {
  for (AffineExpr e : llvm::reverse(map.getResults()))
    if (auto d = dyn_cast<AffineDimExpr>(e))
      if (llvm::is_contained(candidates, d.getPosition()))
        return d.getPosition();
  return std::nullopt;
}

/// Tiles loop `dim` of `op` by `size` with an scf.for; returns the tile.
FailureOr<Operation *> tileOneDim(RewriterBase &rewriter, Operation *op,
                                  unsigned dim, int64_t size,
                                  Operation **loop = nullptr) {
  auto tiling = cast<TilingInterface>(op);
  SmallVector<int64_t> sizes(tiling.getLoopIteratorTypes().size(), 0);
  sizes[dim] = size;
  FailureOr<scf::SCFTilingResult> tiled =
      tileOp(rewriter, tiling, sizes, scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(tiled))
    return failure();
  if (loop && !tiled->loops.empty())
    *loop = tiled->loops.front().getOperation();
  return tiled->tiledOps.front();
}

LogicalResult tileContractionInto(RewriterBase &rewriter, linalg::LinalgOp op,
                                  const ContractionTiles &t, bool parallel,
                                  ContractionTilingResult &result,
                                  std::string &why);

/// Splits `op` along `dim` at `at` and tiles both parts. The original op
/// is gone afterwards: a part that cannot be tiled stays as it is, correct
/// but slow, with a remark.
LogicalResult splitAndTile(RewriterBase &rewriter, linalg::LinalgOp op,
                           unsigned dim, int64_t at, const ContractionTiles &t,
                           bool parallel, ContractionTilingResult &result,
                           std::string &why) {
  rewriter.setInsertionPoint(op);
  auto [first, second] =
      linalg::splitOp(rewriter, cast<TilingInterface>(op.getOperation()), dim,
                      rewriter.getIndexAttr(at));
  if (!first || !second) {
    why = "cannot split off a partial block";
    return failure();
  }
  for (TilingInterface part : {first, second}) {
    std::string partWhy;
    if (failed(tileContractionInto(rewriter, cast<linalg::LinalgOp>(*part), t,
                                   parallel, result, partWhy)))
      remarkSlowPath(part, "part of a contraction in scalar loops", partWhy);
  }
  return success();
}

/// Tiles a static float contraction as described in the file comment,
/// adding what it built to `result`; on failure, `why` says why the op keeps
/// its scalar loops.
LogicalResult tileContractionInto(RewriterBase &rewriter, linalg::LinalgOp op,
                                  const ContractionTiles &t, bool parallel,
                                  ContractionTilingResult &result,
                                  std::string &why) {
  // Generic contractions vectorize to broadcasts and elementwise ops that the
  // vector lowering handles poorly; only named ones get the register kernel.
  if (!isa<linalg::ContractionOpInterface>(op.getOperation()) ||
      !op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      !isa<FloatType>(getElementTypeOrSelf(op.getDpsInits()[0].getType()))) {
    why = "the register kernel takes named float contractions";
    return failure();
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  // Batch dims leave unit dims in the register tile that the vector
  // lowering handles poorly; batched contractions get outer threads only.
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || !dims->batch.empty()) {
    why = "batched or multi-dim contraction (outer threads and rows only)";
    return failure();
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (llvm::any_of(ranges, ShapedType::isDynamic)) {
    why = "dynamic shapes";
    return failure();
  }
  parallel =
      parallel && t.threadChunks > 0 && staticWork(op) >= t.minParallelWork;

  // The vector dim must be the output's innermost so that accumulator rows
  // are contiguous.
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto last = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!last || !llvm::is_contained(dims->n, last.getPosition())) {
    why = "the output's innermost dim is not an N dim";
    return failure();
  }
  unsigned nDim = last.getPosition();
  std::optional<unsigned> mDim = innermostIn(outMap, dims->m);
  // The K dim innermost in B keeps its reads closest together.
  AffineMap bMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  std::optional<unsigned> kDim = innermostIn(bMap, dims->k);
  if (!mDim || !kDim) {
    why = "no M or K dim to tile";
    return failure();
  }

  // One block of rows and one of columns (the rows past a larger product's
  // last whole thread block, split off below and run after the blocks)
  // would leave every thread but one idle: its columns are shared out in
  // register-tile blocks instead. SqueezeNet's 1000-channel classifier
  // (1000 x 169 x 512) ran 7 blocks of 128 rows on two threads, then its
  // last 104 rows on one.
  if (parallel && ranges[*mDim] <= t.mc && ranges[nDim] <= t.nc &&
      t.nc > t.nr && ranges[nDim] >= 2 * t.nr) {
    ContractionTiles narrow = t;
    narrow.nc =
        t.nr * std::max<int64_t>(1, ranges[nDim] / t.nr /
                                        std::max<int64_t>(t.threadChunks, 1));
    return tileContractionInto(rewriter, op, narrow, parallel, result, why);
  }
  // Thread blocks of mt rows (whole mc-row blocks, shared out evenly) by nc
  // columns: as few as still give the threads enough chunks, so that each K
  // step's B block (kc x nc) stays in L2 for many mc-row blocks. (9 blocks
  // of 64 rows were 4 of 128 and a rest that ran on one thread after them.)
  int64_t mt = llvm::alignTo(ranges[*mDim], t.mc);
  if (parallel) {
    int64_t nChunks = llvm::divideCeil(ranges[nDim], t.nc);
    int64_t mChunks = llvm::divideCeil(t.threadChunks, nChunks);
    int64_t blocks = llvm::divideCeil(ranges[*mDim], t.mc), per = 1;
    for (int64_t p = blocks / mChunks; p > 1 && per == 1; --p)
      if (blocks % p == 0)
        per = p;
    mt = per * t.mc;
  }

  // Every block static: the rows (columns) past the last whole thread block,
  // then past the last whole mc-row block, become an op of their own, tiled
  // on its own. In a partial block of dynamic extent every register tile
  // would be dynamic too and take the scalar fallback: M = 100 ran at half
  // the speed of M = 96.
  for (auto [dim, block] : {std::pair<unsigned, int64_t>{*mDim, mt},
                            std::pair<unsigned, int64_t>{nDim, t.nc},
                            std::pair<unsigned, int64_t>{*mDim, t.mc}}) {
    int64_t whole = ranges[dim] / block * block;
    if (whole == 0 || whole == ranges[dim])
      continue;
    return splitAndTile(rewriter, op, dim, whole, t, parallel, result, why);
  }

  // The columns past the last whole register tile are peeled into one
  // static tile; a power-of-two width lowers to native vectors, any other
  // did not: a 17-column tail, as vector<mr x 17>, spent most of its time in
  // shuffles (16 + 1 lanes; MatMul 512 x 4608 x 49 ran at a fifth of ORT's
  // speed). So the columns past the largest power of two of the tail become
  // an op of their own (tiled the same way, down to power-of-two widths).
  // That op reads A once more, which costs less than the shuffles did.
  int64_t n = ranges[nDim], tail = n % t.nr;
  // Within one vector register a partial tail is a masked or widened
  // vector, which is fine.
  int64_t leftover =
      tail > t.lanes ? tail - int64_t(llvm::bit_floor(uint64_t(tail))) : 0;
  if (n < t.nr && leftover == 0 && llvm::has_single_bit(uint64_t(n))) {
    // One power-of-two tile narrower than the register tile: it is the
    // register tile.
    ContractionTiles narrow = t;
    narrow.nr = n;
    return tileContractionInto(rewriter, op, narrow, parallel, result, why);
  }
  if (leftover != 0)
    return splitAndTile(rewriter, op, nDim, n - leftover, t, parallel, result,
                        why);

  unsigned numLoops = op.getNumLoops();
  auto isK = [&](unsigned d) { return llvm::is_contained(dims->k, d); };

  // With threads, the K cache blocks come first: each K step's B block
  // (kc x N) then stays in the L2 of every core while all the thread blocks
  // of rows sweep over it, one parallel loop per K step. Inside each thread
  // block, every row block read all of B from L3 again: conv3x3 256 @14
  // (a 1.8 MB im2col matrix in four 64-row blocks, so that the threads get
  // chunks) took 1.75 ms on one thread against 1.47 ms as one 256-row
  // block. Without threads the order does not matter (one thread block).
  Operation *cur = op.getOperation();
  Operation *kLoop = nullptr;
  int64_t kBlocks = llvm::divideCeil(ranges[*kDim], t.kc);
  why = "tiling failed";
  auto tileK = [&]() -> LogicalResult {
    FailureOr<Operation *> l2 = tileOneDim(rewriter, cur, *kDim, t.kc, &kLoop);
    if (failed(l2))
      return failure();
    if (kLoop && kBlocks > 1)
      result.kBlockLoops.push_back(kLoop);
    cur = *l2;
    return success();
  };
  // A product of one row block shares no B block among row blocks: K outer
  // only made each K step a parallel loop of its own (a barrier, and a C
  // tile accumulated by whichever core claimed its chunk that step). Where
  // its A (rows x K) stays in L2 across the column blocks, they run their K
  // steps inside: 29 -> 17 7x7 at 57x57 (17 x 3249 x 1421) 0.64 -> 0.53 ms
  // on two threads, ResNet-18 6.99 -> 6.67 (one thread 12.17 -> 11.92).
  // Pixel-row products (A the image, 0.2-1 MB) keep K outer: inside, each
  // column block read all of A again (ResNet-18 12.1 -> 14.4 ms).
  int64_t aBytes = elementBytesOf(op.getDpsInputOperand(0)->get().getType());
  for (unsigned d : dims->k)
    aBytes *= ranges[d];
  bool oneRowBlock = ranges[*mDim] <= mt;
  bool kOuter =
      parallel && kBlocks > 1 && !(oneRowBlock && aBytes <= kInnerKStepsABytes);
  if (kOuter && failed(tileK()))
    return failure();

  // Level 1: (M, N) thread blocks; every other parallel dim one at a time.
  SmallVector<int64_t> outer(numLoops, 0);
  for (unsigned d = 0; d < numLoops; ++d)
    if (!isK(d))
      outer[d] = 1;
  outer[*mDim] = std::min(mt, ranges[*mDim]);
  outer[nDim] = std::min(t.nc, ranges[nDim]);
  auto loopType = parallel ? scf::SCFTilingOptions::LoopType::ForallOp
                           : scf::SCFTilingOptions::LoopType::ForOp;
  FailureOr<scf::SCFTilingResult> l1 =
      tileOp(rewriter, cast<TilingInterface>(cur), outer, loopType);
  if (failed(l1))
    return failure();
  cur = l1->tiledOps.front();

  // Level 2: K cache block (unless outside), then mc-row blocks of A under
  // the K step's B block (a whole number of them, after the splits above).
  if (!kOuter && failed(tileK()))
    return failure();
  if (outer[*mDim] > t.mc) {
    FailureOr<Operation *> l2b = tileOneDim(rewriter, cur, *mDim, t.mc);
    if (failed(l2b))
      return failure();
    cur = *l2b;
  }
  packBlock(rewriter, cast<linalg::LinalgOp>(cur), t, *mDim, nDim, result);

  // Level 3: register tile, N loop outside M so B's panel is reused, or
  // M outside N (loop_order 2) so that each row of C is written in one run
  // while A's panel is reused (MobileNetV2's 16 -> 96 channels at 112x112:
  // 96 rows of C advanced 128 bytes at a time, 0.39 -> 0.29 ms).
  SmallVector<int64_t> reg(numLoops, 0);
  reg[*mDim] = t.mr;
  reg[nDim] = t.nr;
  SmallVector<int64_t> interchange = {nDim, *mDim};
  if (t.rowsOuter)
    std::swap(interchange[0], interchange[1]);
  for (unsigned d = 0; d < numLoops; ++d)
    if (d != nDim && d != *mDim)
      interchange.push_back(d);
  FailureOr<scf::SCFTilingResult> l3 =
      tileOp(rewriter, cast<TilingInterface>(cur), reg,
             scf::SCFTilingOptions::LoopType::ForOp, interchange);
  if (failed(l3))
    return failure();
  for (LoopLikeOpInterface loop : l3->loops)
    result.peelLoops.push_back(loop);
  cur = l3->tiledOps.front();
  if (l3->loops.size() == 2 && !t.rowsOuter)
    if (auto nLoop = dyn_cast<scf::ForOp>(l3->loops[0].getOperation()))
      if (auto mLoop = dyn_cast<scf::ForOp>(l3->loops[1].getOperation()))
        packPanel(rewriter, nLoop, mLoop, cast<linalg::LinalgOp>(cur), t,
                  result);

  // Level 4: K steps of kr; every other reduction dim one at a time.
  SmallVector<int64_t> kStep(numLoops, 0);
  for (unsigned d : dims->k)
    kStep[d] = 1;
  kStep[*kDim] = t.kr;
  FailureOr<scf::SCFTilingResult> l4 =
      tileOp(rewriter, cast<TilingInterface>(cur), kStep,
             scf::SCFTilingOptions::LoopType::ForOp);
  if (failed(l4))
    return failure();
  result.registerTiles.push_back(l4->tiledOps.front());
  result.registerTileKBlocks.push_back(kBlocks);
  for (LoopLikeOpInterface loop : l4->loops)
    result.accumulatorLoops.push_back(loop);
  return success();
}

/// Peels every loop marked for peeling, outermost first, so that all but the
/// last iteration see full, static register tiles.
void peelMarkedLoops(RewriterBase &rewriter, func::FuncOp func) {
  while (true) {
    scf::ForOp next;
    func.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (!loop->hasAttr(kPeelAttr))
        return WalkResult::advance();
      next = loop;
      return WalkResult::interrupt();
    });
    if (!next)
      return;
    next->removeAttr(kPeelAttr);
    scf::ForOp partial;
    rewriter.setInsertionPoint(next);
    (void)scf::peelForLoopAndSimplifyBounds(rewriter, next, partial);
  }
}

} // namespace

FailureOr<ContractionTilingResult>
cpu::tileContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                     kernel::CpuScheduleAttr schedule, bool allowThreads,
                     std::string &why) {
  if (!schedule || !schedule.usesContractionKernel()) {
    why = "no contraction schedule";
    return failure();
  }
  ContractionTiles t = getTiles(schedule);
  // A register tile of three vectors (48 lanes at 512 bits) lowers its B
  // rows to scalar inserts: a 128 x 1152 x 784 MatMul took 52 ms against
  // 1.4 ms with two. Correct, so only said (once per op, here rather than in
  // the recursive tiling of its parts).
  if (t.lanes > 0 && t.nr > t.lanes &&
      (t.nr % t.lanes != 0 || !llvm::has_single_bit(uint64_t(t.nr / t.lanes))))
    remarkSlowPath(op, "register tile of " + Twine(t.nr) + " lanes",
                   "not a power-of-two number of " + Twine(t.lanes) +
                       "-lane vectors: its rows load element by element");
  ContractionTilingResult result;
  if (failed(tileContractionInto(rewriter, op, t, allowThreads, result, why)))
    return failure();
  return result;
}

namespace {

struct TileAndVectorizePass : impl::TileAndVectorizeBase<TileAndVectorizePass> {
  using TileAndVectorizeBase::TileAndVectorizeBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    IRRewriter rewriter(&getContext());
    // Group numbers restart per function; one instance may run on several.
    groupTiles.clear();
    failedGroups.clear();
    // Every op without a contraction schedule: vector rows, threads when
    // large.
    auto rows =
        func->getAttrOfType<kernel::CpuScheduleAttr>(kDefaultScheduleAttr);
    int64_t lanes = rows ? lanesFor(rows.getVectorBits()) : 0;

    // Broadcasts (bias initializers), maps, copies and transposes take the
    // elementwise paths below: threads and vector rows or transposed
    // blocks; reductions (softmax, norms) the row-reduction path, which
    // only reads generics (ViT-B/16's softmax ran scalar loops as
    // linalg.reduce).
    SmallVector<linalg::LinalgOp> named;
    func.walk([&](linalg::LinalgOp op) {
      if (isa<linalg::BroadcastOp, linalg::MapOp, linalg::CopyOp,
              linalg::ReduceOp, linalg::TransposeOp>(op.getOperation()))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      (void)linalg::generalizeNamedOp(rewriter, op);
    }

    SmallVector<linalg::LinalgOp> ops;
    func.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    auto usesRegisterKernel = [](linalg::LinalgOp op) {
      kernel::CpuScheduleAttr own = getOwnSchedule(op);
      return own && own.usesContractionKernel() &&
             linalg::isaContractionOpInterface(op);
    };
    // Initializers and epilogues that the register tiles of their
    // contraction compute (ContractionEpilogue.cpp): marked with the
    // group's number, left alone until the tiles exist.
    int64_t groups = 0;
    if (fuseEpilogues)
      groups = markContractionEpilogues(
          rewriter, llvm::filter_to_vector(ops, usesRegisterKernel));
    llvm::SmallDenseSet<int64_t> tiledGroups;

    for (linalg::LinalgOp op : ops) {
      if (getEpilogueGroup(op) >= 0)
        continue;
      // Ops already inside a parallel loop (a blocked convolution's) get
      // their register tiles but no threads of their own.
      bool nested = op->getParentOfType<scf::ForallOp>() != nullptr;
      kernel::CpuScheduleAttr own = getOwnSchedule(op);
      if (usesRegisterKernel(op)) {
        int64_t group = -1;
        if (auto g = op->getAttrOfType<IntegerAttr>(kEpilogueGroupAttr))
          group = g.getInt();
        op->removeAttr(kEpilogueGroupAttr);
        std::string why;
        FailureOr<ContractionTilingResult> tiled =
            tileContraction(rewriter, op, own, !nested, why);
        if (succeeded(tiled)) {
          // Marks, not handles: canonicalization between the steps may
          // replace the ops, and attributes travel with them.
          UnitAttr unit = rewriter.getUnitAttr();
          for (Operation *loop : tiled->peelLoops)
            loop->setAttr(kPeelAttr, unit);
          for (auto [tile, kBlocks] :
               llvm::zip(tiled->registerTiles, tiled->registerTileKBlocks)) {
            tile->setAttr(kRegisterTileAttr, unit);
            if (group >= 0) {
              tile->setAttr(kEpilogueGroupAttr,
                            rewriter.getI64IntegerAttr(group));
              tile->setAttr(kKBlocksAttr, rewriter.getI64IntegerAttr(kBlocks));
            }
          }
          // The K-block loops tell the group's tiles their first and last
          // block.
          if (group >= 0)
            for (Operation *loop : tiled->kBlockLoops)
              loop->setAttr(kKBlocksAttr, unit);
          for (Operation *loop : tiled->accumulatorLoops)
            loop->setAttr(kAccumulateAttr, unit);
          for (Operation *copy : tiled->packCopies)
            copy->setAttr(kPackCopyAttr, unit);
          if (group >= 0)
            tiledGroups.insert(group);
          continue;
        }
        remarkSlowPath(op, "contraction without the register kernel", why);
      }
      rowPath(rewriter, op, nested);
    }
    // The initializers and epilogues of products that were not tiled.
    SmallVector<linalg::LinalgOp> untiled;
    func.walk([&](linalg::LinalgOp op) {
      int64_t g = getEpilogueGroup(op);
      if (g >= 0 && !tiledGroups.contains(g))
        untiled.push_back(op);
    });
    for (linalg::LinalgOp op : untiled) {
      op->removeAttr(kEpilogueInitAttr);
      op->removeAttr(kEpilogueOfAttr);
      rowPath(rewriter, op, op->getParentOfType<scf::ForallOp>() != nullptr);
    }

    vectorizeMarked(rewriter, func, lanes);
    if (groups > 0)
      fuseGroups(rewriter, func, lanes);
  }

  /// The path of every op without a contraction kernel: threads when large,
  /// then vector rows.
  void rowPath(RewriterBase &rewriter, linalg::LinalgOp op, bool nested) {
    auto rows = getOperation()->getAttrOfType<kernel::CpuScheduleAttr>(
        kDefaultScheduleAttr);
    if (!rows)
      return;
    int64_t lanes = lanesFor(rows.getVectorBits());
    kernel::CpuScheduleAttr own = getOwnSchedule(op);
    bool splitGatherRows = op->hasAttr(kSplitGatherRowsAttr);
    op->removeAttr(kSplitGatherRowsAttr);
    {
      linalg::LinalgOp cur = op;
      if (rows.getThreads() > 0 && !nested) {
        // An element of a transposing op costs several of a row op's (its
        // blocks are read a stride apart and shuffled): a Winograd F(2x2)
        // scatter of 256 x 13 x 13 took 34 us on one thread, below the row
        // ops' threshold, and on two threads 77 us, as a serial step between
        // parallel stages whose planes the other core had written. Threads
        // split the blocks' transposed side in whole blocks.
        int64_t minWork = rows.getMinParallelWork();
        std::optional<unsigned> q = transposeBlockLoop(op);
        if (q)
          minWork /= 4;
        // An im2col gather whose product shares out pixels is cut along its
        // output rows, as the product cuts its pixels and as the
        // convolution before it cut its own: each thread then gathers from,
        // and into, its own core's cache. By channels, each read half its
        // input from the other core and the product half its matrix
        // (DenseNet-121's 128 -> 32 at 14x14: the gather 14 us on one
        // thread, 16 on two). Where the product cuts its output channels
        // every thread reads all of the matrix, and channel rows write it
        // in longer runs (512 -> 512 stride 2 at 14x14: 4 % faster).
        SmallVector<unsigned> order;
        if (splitGatherRows)
          if (std::optional<unsigned> oh = gatherRowLoop(op))
            order = {0, *oh};
        FailureOr<linalg::LinalgOp> inner = parallelizeOuterDims(
            rewriter, op, minWork, rows.getThreads(), q, lanes, order);
        if (succeeded(inner))
          cur = *inner;
      }
      if (isRowVectorizable(cur)) {
        tileRows(rewriter, cur, lanes);
      } else if (isRowReduction(cur)) {
        // The output element stays in a register across the row loop.
        if (scf::ForOp rowLoop = tileRows(rewriter, cur, lanes))
          rowLoop->setAttr(kAccumulateAttr, rewriter.getUnitAttr());
      } else if (!tileTransposeBlocks(rewriter, cur, lanes) && !own &&
                 !isa<linalg::FillOp>(cur.getOperation())) {
        // Transposes take register blocks; ops with a schedule of their own
        // were reported by the selection; fills become memset.
        remarkSlowPath(cur, "scalar loops",
                       "not an elementwise op, gather or innermost reduction "
                       "with contiguous rows");
      }
    }
  }

  /// Peels, packs, vectorizes the marked register tiles and keeps their
  /// accumulators in registers; records the tiles of epilogue groups.
  void vectorizeMarked(RewriterBase &rewriter, func::FuncOp func,
                       int64_t lanes) {
    peelMarkedLoops(rewriter, func);
    // Fold the peeled bounds into static subviews and tile shapes.
    RewritePatternSet patterns(&getContext());
    for (Dialect *dialect : getContext().getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : getContext().getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, &getContext());
    FrozenRewritePatternSet canonicalization(std::move(patterns));
    if (failed(applyPatternsGreedily(func, canonicalization)))
      return signalPassFailure();

    // Panel copies, now static, become vector rows too.
    SmallVector<linalg::LinalgOp> copies;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kPackCopyAttr))
        copies.push_back(op);
    });
    for (linalg::LinalgOp op : copies) {
      op->removeAttr(kPackCopyAttr);
      if (isRowVectorizable(op))
        tileRows(rewriter, op, lanes);
    }
    if (!copies.empty()) {
      peelMarkedLoops(rewriter, func);
      if (failed(applyPatternsGreedily(func, canonicalization)))
        return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> tiles;
    func.walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kRegisterTileAttr))
        tiles.push_back(op);
    });
    for (linalg::LinalgOp op : tiles) {
      op->removeAttr(kRegisterTileAttr);
      int64_t group = -1;
      if (auto g = op->getAttrOfType<IntegerAttr>(kEpilogueGroupAttr)) {
        group = g.getInt();
        int64_t kBlocks = op->getAttrOfType<IntegerAttr>(kKBlocksAttr).getInt();
        op->removeAttr(kEpilogueGroupAttr);
        op->removeAttr(kKBlocksAttr);
        // The loop over K blocks around the tile, where there are several.
        scf::ForOp kLoop;
        for (Operation *p = op->getParentOp(); p && !kLoop;
             p = p->getParentOp())
          if (auto f = dyn_cast<scf::ForOp>(p); f && f->hasAttr(kKBlocksAttr))
            kLoop = f;
        if ((kBlocks > 1) != bool(kLoop) || !op.hasPureBufferSemantics() ||
            op.hasDynamicShape())
          failedGroups.insert(group);
        else
          groupTiles[group].push_back({op.getDpsInits()[0], kLoop});
      }
      if (!op.hasPureBufferSemantics() || op.hasDynamicShape())
        continue;
      fixGatherRowMaps(rewriter, op);
      if (succeeded(vectorizeStridedRow(rewriter, op)))
        continue;
      rewriter.setInsertionPoint(op);
      SmallVector<int64_t> masked = maskedRowSizes(op, lanes);
      SmallVector<bool> fixedLength(masked.size(), false);
      FailureOr<linalg::VectorizationResult> result = linalg::vectorize(
          rewriter, op, /*inputVectorSizes=*/masked,
          /*inputScalableVecDims=*/fixedLength,
          /*vectorizeNDExtract=*/false, /*flatten1DDepthwiseConv=*/false,
          /*assumeDynamicDimsMatchVecSizes=*/false,
          /*createNamedContraction=*/true);
      if (succeeded(result))
        rewriter.replaceOp(op, result->replacements);
    }
    SmallVector<scf::ForOp> kLoops;
    func.walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kAccumulateAttr))
        kLoops.push_back(loop);
    });
    for (scf::ForOp loop : kLoops) {
      loop->removeAttr(kAccumulateAttr);
      cpu::accumulateLanes(rewriter, cpu::hoistAccumulator(rewriter, loop));
    }
  }

  /// Moves each group's initializer and epilogue into its register tiles;
  /// where that fails, they take the row path.
  void fuseGroups(RewriterBase &rewriter, func::FuncOp func, int64_t lanes) {
    SmallVector<linalg::LinalgOp> leftover;
    for (auto &[g, group] : takeEpilogueGroups(func)) {
      if (!failedGroups.contains(g) &&
          succeeded(fuseContractionEpilogue(rewriter, group.init,
                                            group.epilogue, groupTiles[g],
                                            /*maskedStores=*/lanes >= 16)))
        continue;
      for (Operation *op : {group.init, group.epilogue.getOperation()})
        if (op) {
          remarkSlowPath(op, "a pass of its own",
                         "its contraction's register tiles could not take it");
          leftover.push_back(cast<linalg::LinalgOp>(op));
        }
    }
    func.walk([&](scf::ForOp loop) { loop->removeAttr(kKBlocksAttr); });
    if (leftover.empty())
      return;
    for (linalg::LinalgOp op : leftover)
      rowPath(rewriter, op, op->getParentOfType<scf::ForallOp>() != nullptr);
    groupTiles.clear();
    vectorizeMarked(rewriter, func, lanes);
  }

  /// Per epilogue group, its register tiles' C views and K-block loops.
  llvm::DenseMap<int64_t, SmallVector<std::pair<Value, scf::ForOp>>> groupTiles;
  llvm::SmallDenseSet<int64_t> failedGroups;
};

} // namespace
} // namespace kiln
