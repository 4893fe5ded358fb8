//===- SelectSchedule.cpp - Every CPU schedule decision, in one place -----===//
//
// The heuristics that pick a kernel path and its sizes for each op, from
// the target description in the options: which convolutions go through
// im2col (and which in cache-sized blocks), register and cache tiles of the
// contraction kernel, packing thresholds, how many threads an op gets, the
// depthwise kernel's accumulators. They are written on the ops as
// #kiln_kernel.cpu_schedule attributes, which a schedule file (or, later,
// the tuning database) may override op by op; the passes that apply them
// hold no decisions of their own. Tested on the attribute alone
// (test/lit/lowering/cpu/select-schedule.mlir).
//
//===----------------------------------------------------------------------===//

#include "lowering/cpu/Passes.h"
#include "lowering/cpu/RowTiling.h"
#include "lowering/cpu/Schedule.h"
#include "lowering/cpu/ScheduleFields.h"
#include "lowering/cpu/Transforms.h"

#include "dialects/graph/ConstantData.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_SELECTSCHEDULE
#include "lowering/cpu/Passes.h.inc"

using namespace kiln::cpu;
using kernel::CpuScheduleAttr;

namespace {

/// L1 data cache bytes assumed for tiles that must stay there (32 KB or
/// more on the x86 and Arm cores kiln targets).
constexpr int64_t kL1Bytes = 32 * 1024;

bool hasStaticShapes(Operation *op) {
  auto isStatic = [](Type t) {
    auto shaped = dyn_cast<ShapedType>(t);
    return !shaped || shaped.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

int64_t elementBytes(Operation *op) {
  return elementBytesOf(op->getOperand(0).getType());
}

using Fields = ScheduleFields;
using Overrides = ScheduleOverrides;

struct SelectSchedulePass : impl::SelectScheduleBase<SelectSchedulePass> {
  using SelectScheduleBase::SelectScheduleBase;

  LogicalResult initialize(MLIRContext *ctx) override {
    if (scheduleFile.empty() && schedules.empty())
      return success();
    auto read = std::make_shared<Overrides>();
    std::string error;
    // The tuning database's schedules first, then the file's.
    if (!schedules.empty() &&
        failed(parseSchedules(schedules, "tuned schedules", *read, error)))
      return emitError(UnknownLoc::get(ctx), error);
    if (!scheduleFile.empty()) {
      auto buffer = llvm::MemoryBuffer::getFile(scheduleFile);
      if (!buffer)
        return emitError(UnknownLoc::get(ctx))
               << "cannot read schedule file '" << scheduleFile
               << "': " << buffer.getError().message();
      if (failed(parseSchedules((*buffer)->getBuffer(),
                                "schedule file '" + scheduleFile + "'", *read,
                                error)))
        return emitError(UnknownLoc::get(ctx), error);
    }
    overrides = std::move(read);
    return success();
  }

  int64_t lanes() const { return lanesFor(vectorBits); }

  /// Register and cache tiles of the contraction kernel. Accumulators: mr
  /// rows of nr lanes, two vectors per row, leaving room for the B row and
  /// a broadcast (16 registers with AVX2, 32 with AVX-512). B's panel
  /// (kc x nc) and A's block (mc x kc) in L2, B's micro-panel (kc x nr) in
  /// L1.
  Fields contraction() const {
    Fields f;
    f.strategy = "contraction";
    f.vectorBits = vectorBits;
    f.regN = regN > 0 ? regN : 2 * lanes();
    f.regM = regM > 0 ? regM : (vectorBits >= 512 ? 8 : 6);
    f.regK = std::max<int64_t>(regK, 1);
    f.tileK = tileK > 0 ? tileK : 256;
    f.loopOrder = loopOrder;
    f.tileN = tileN > 0 ? tileN : 8 * f.regN;
    // 32 register tiles of rows under each B micro-panel: its loads (and
    // its packing, below) are shared by more FMAs than with 8, while the A
    // block (256 x 256 floats at 512 bits) stays in L2. Across a sweep of
    // conv and MatMul shapes 8 -> 32 was 0-15 % faster (none slower beyond
    // noise), with AVX-512 and AVX2 alike.
    f.tileM = tileM > 0 ? tileM : 32 * f.regM;
    f.packRowBytes = packRowBytes;
    f.packARowBytes = packARowBytes;
    // A packed B panel pays once 16 register tiles of rows read it (copying
    // it costs about a sixteenth of their B loads), an A block once 2 of
    // columns do.
    f.packMinReuse = 16;
    f.packAMinReuse = 2;
    // Thread blocks aim for 8 chunks: enough to balance a few cores, few
    // enough that row blocks share each B block.
    f.threads = parallel ? 8 : 0;
    // A multiply-add is one lane of an FMA: `lanes` of them weigh as much
    // as an elementwise iteration (a load and a store); a quarter of
    // min_parallel_work of those pays for a second thread (Zen 5, two
    // threads against one, 0.8-1.6 M multiply-adds: 1000 x 64 x 17 19 ->
    // 11 us, 49 x 512 x 64 13 -> 7, 196 x 64 x 64 6 -> 5; even at 0.4-0.5
    // M).
    f.minParallelWork = minParallelWork / 4 * lanes();
    return f;
  }

  /// Register tiles for a product of few rows (`m` up to four default
  /// tiles) where the default tiles leave a rest of 1-3 rows. A tile of r
  /// rows takes r cycles a K step with two vectors a row, but no fewer than
  /// an FMA's latency (4): a short rest costs as much as 4 rows. The sizes of
  /// fewest cycles, then of fewest tiles (each reads B's row again): 9
  /// output channels as one tile of 9 rather than 8 + 1, 380 -> 9 3x3 at
  /// 57x57 (blocked) 2.55 ms in tiles of 5 + 4, 2.31 in 8 + 1, 1.97-2.02 in
  /// 9; MatMuls 10 x 512 x 1024 0.075 / 0.073 / 0.056 ms (8 + 2, 5 + 5, 10),
  /// 9 x 2048 x 512 0.119 / 0.103 / 0.094. A reg_m set by --schedule stays.
  void fitRegisterRows(Fields &f, int64_t m) const {
    if (regM > 0 || f.regM <= 0 || m > 4 * f.regM || lanes() <= 0 ||
        m % f.regM == 0 || m % f.regM >= 4)
      return;
    int64_t vectorsPerRow = std::max<int64_t>(f.regN / lanes(), 1);
    int64_t registers = vectorBits >= 512 ? 32 : 16;
    // Accumulators, B's vectors and a broadcast in registers.
    int64_t most =
        std::min<int64_t>(12, (registers - vectorsPerRow - 1) / vectorsPerRow);
    auto cycles = [&](int64_t rows) {
      return std::max<int64_t>(llvm::divideCeil(rows * vectorsPerRow, 2), 4);
    };
    // Cycles, then tiles (each reads B's row again), then the default's
    // size.
    auto cost = [&](int64_t r) {
      return std::make_tuple(m / r * cycles(r) + (m % r ? cycles(m % r) : 0),
                             llvm::divideCeil(m, r), std::abs(r - f.regM));
    };
    int64_t best = f.regM;
    for (int64_t r = 4; r <= most; ++r)
      if (cost(r) < cost(best))
        best = r;
    if (best == f.regM)
      return;
    if (tileM <= 0)
      f.tileM = f.tileM / f.regM * best;
    f.regM = best;
  }

  /// Two row blocks of whole register tiles for the threads where one holds
  /// all `m` rows and the `n` columns make no two register tiles (50 x 2568
  /// x 57: a panel of 32 and one of 25, one chunk each; 71 -> 46 us on two
  /// threads, one as before). Whether it split them.
  bool halveRowsForThreads(Fields &f, int64_t m, int64_t n, int64_t k) const {
    if (f.threads <= 0 || tileM > 0 || m > f.tileM || m < 2 * f.regM ||
        n >= 2 * f.regN || m * n * k < f.minParallelWork)
      return false;
    f.tileM = m / 2 / f.regM * f.regM;
    return true;
  }

  /// One K block for a packed product of one row block whose A stays in
  /// half the cache: each chunk streams its panel of weights once, as one
  /// contiguous run, its accumulators in registers throughout. In K blocks
  /// of 256 it read every panel a 32 KB piece at a time, the pieces a panel
  /// apart (Zen 5, one / two threads, ms: 17 x 2513 x 2678 2.14 / 1.12 ->
  /// 1.47 / 0.72, 24 x 4096 x 1024 0.98 / 0.48 -> 0.80 / 0.39, 3 x 2048 x
  /// 2048 0.21 -> 0.19 on one; 8 x 2856 x 1355 0.27 -> 0.30 on one, 0.17 ->
  /// 0.13 on two).
  void wholeKForOneRowBlock(linalg::LinalgOp op, Fields &f, int64_t m,
                            int64_t k) const {
    int64_t aBytes = m * k * elementBytes(op);
    if (tileK <= 0 && m <= f.tileM && 2 * aBytes <= cacheBytes)
      f.tileK = k;
  }

  /// Row blocks of fewer register tiles (down to 8) where the thread blocks
  /// need the rows: with the columns in few blocks, a 256-row product in one
  /// 256-row block would leave every thread but one idle. `m` rows, `n`
  /// columns and `k` multiply-adds per output of the product; a tile_m or
  /// tile_n set by --schedule stays.
  void fitThreadBlocks(Fields &f, int64_t m, int64_t n, int64_t k) const {
    fitRegisterRows(f, m);
    // Register tiles row by row for a short K (160 or less). Column by
    // column, each register tile's column advanced every row of the block
    // of C by 128 bytes, a stream per row, which the prefetchers cannot
    // follow when C's lines are not in cache (as inside a model, where an
    // op's output buffer was last touched a run ago): 64 -> 256 channels at
    // 56x56 1.84 -> 1.04 ms on one thread, 40 -> 240 at 28x28 0.60 -> 0.17
    // (outputs flushed to memory before each run). With K of 192 or more,
    // the multiply-adds hide the stores and the orders tie (26 shapes, 1
    // and 2 threads); with C in cache, columns first was 5-10 % faster from
    // K = 96 up.
    f.loopOrder = f.loopOrder > 0 ? f.loopOrder : k <= 160 ? 2 : 1;
    bool threads = f.threads > 0;
    // Rows are not split for the threads where B outgrows the cache and is
    // twice A or more: each row block packs all of B's panels again, each
    // column block only reads A again (the rule for too few rows below
    // splits the columns). A stride-2 3x3 convolution, 128 channels 56 ->
    // 28 (128 x 784 x 1152, B 3.6 MB): two row blocks of 64 against column
    // blocks of 128, 1.79 -> 1.45 ms on two threads with its memory
    // flushed, 2.73 -> 2.56 on one. With B in cache, packing it again costs
    // less than narrow column blocks (96 x 196 x 576 on two threads: 82 us
    // in row blocks of 48, 102 in six column blocks of 32).
    bool bigB = n >= 2 * m && k * n * 4 > cacheBytes;
    if (tileM <= 0 && threads && !bigB) {
      int64_t wanted =
          llvm::divideCeil(f.threads, llvm::divideCeil(n, f.tileN));
      while (f.tileM > 8 * f.regM &&
             int64_t(llvm::divideCeil(m, f.tileM)) < wanted)
        f.tileM = llvm::alignTo(f.tileM / 2, f.regM);
    }
    // Row blocks of half the register tiles or more, and those that pay
    // for packing B's panels (400 rows in blocks of 80 rather than 128 made
    // a 400 x 512 x 600 MatMul 6 % slower; 208 rows in 13 blocks of 16
    // would share each B block among 13 A blocks of 2 register tiles).
    if (tileM <= 0) {
      int64_t most = f.tileM / std::max<int64_t>(f.regM, 1);
      f.tileM =
          wholeBlockTile(m, f.tileM, f.regM,
                         most >= f.packMinReuse ? f.packMinReuse : most / 2);
      if (threads && !bigB)
        f.tileM = evenRowBlocks(m, n, f);
    }
    // Too few rows for two blocks (a 1x1 projection to 64 or 96 channels
    // at 14x14: one row block, one column block) leave the chunks to the
    // columns: each column block reads A again, which stays in L2, where
    // one block ran the whole product on one thread (576 -> 96 @14: 153 ->
    // 122 us on two threads). With two row blocks or more, splitting the
    // columns as well was slower (512 -> 128 @14: 92 -> 105 us). Rows and
    // columns past the last whole block become ops of their own, so whole
    // blocks count (one when the block is larger than the product).
    auto wholeBlocks = [](int64_t size, int64_t block) {
      return size < block ? 1 : size / block;
    };
    if (tileN > 0)
      return;
    if (threads && m * n * k >= f.minParallelWork &&
        wholeBlocks(m, f.tileM) <= 1) {
      int64_t columnTile = f.tileN;
      while (f.tileN > f.regN && wholeBlocks(n, f.tileN) < f.threads / 2)
        f.tileN = llvm::alignTo(f.tileN / 2, f.regN);
      // Too few columns for two blocks of a register tile either: two row
      // blocks of whole register tiles, the columns whole.
      if (halveRowsForThreads(f, m, n, k))
        f.tileN = columnTile;
    }
    // Columns only where one whole block leaves a rest of a tenth of them
    // or more. Blocks that the threads share unevenly cost more than a
    // rest: a 400 x 512 x 600 MatMul took 10 % longer on two threads in 3
    // x 3 blocks of 128 x 192 than in 3 x 2 of 128 x 256 and their rests,
    // and 3136 pixels in 14 blocks of 224 did against 12 of 256 (a 1x1
    // convolution at 56x56).
    if (n < 2 * f.tileN && n % f.tileN * 10 >= n)
      f.tileN = wholeBlockTile(n, f.tileN, f.regN, 2);
  }

  /// A matrix-vector product (M = 1) streams B once: one accumulator row
  /// as wide as the registers allow (16 vectors with 32 registers, 8 with
  /// 16), so that each k step reads a long contiguous run of B's row.
  /// 1 x 4096 x 4096 at 512 bits: 4.1 ms with the 8 x 32 tile, 1.6 ms with
  /// 1 x 256 (ORT 1.9).
  void matrixVector(linalg::LinalgOp op, Fields &f) const {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1)
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges[dims->m.front()] != 1)
      return;
    int64_t accumulators = vectorBits >= 512 ? 16 : 8;
    if (regM <= 0)
      f.regM = 1;
    // Eight column panels or more, down to four accumulators (enough to
    // keep up with B's loads), so that the threads share the columns
    // evenly: a 1000-column classifier in panels of 256 was three panels
    // and a partial one, the last two on one thread each after the first
    // two (MobileNetV2's 1280 -> 1000 0.067 -> 0.045 ms on two threads in
    // panels of 32-64, 0.084 -> 0.070 on one).
    int64_t n = ranges[dims->n.front()];
    while (parallel && accumulators > 4 && n / (accumulators * lanes()) < 8)
      accumulators /= 2;
    if (regN <= 0)
      f.regN = accumulators * lanes();
    if (tileM <= 0)
      f.tileM = f.regM;
    // The whole reduction in one pass: the row of A is all the reuse there
    // is, and each K block was a pass over the panels of its own (with the
    // threads, a dispatch of its own).
    if (tileK <= 0)
      f.tileK = staticLoopProduct(op, utils::IteratorType::reduction);
    // One register tile of columns a block, so that threads split even a
    // 1000-column classifier (one block of 1024 ran on one core).
    if (tileN <= 0)
      f.tileN = f.regN;
    // Each multiply-add reads four bytes of B that nothing else reads: the
    // product is as bound by memory as an elementwise op and pays for threads
    // from as little work (a 1280 -> 1000 classifier, 5 MB of weights, ran
    // on one core).
    f.minParallelWork = rowsMinParallelWork();
  }

  /// Elementwise work that pays for threads: half of min_parallel_work
  /// (about 10 us on one core). Below it an op runs on one thread, which on
  /// two threads reads what both cores wrote: EfficientNet-B0's small
  /// activations, scales and pools on 2 threads, 9.43 -> 8.79 ms in all.
  int64_t rowsMinParallelWork() const { return minParallelWork / 2; }

  /// Every op without a schedule of its own: vector rows, and 64 chunks of
  /// threads when large (the dim that gets there is split into blocks, so
  /// inner loops stay long enough to vectorize).
  Fields rows() const {
    Fields f;
    f.strategy = "rows";
    f.vectorBits = vectorBits;
    f.threads = parallel ? 64 : 0;
    f.minParallelWork = rowsMinParallelWork();
    return f;
  }

  /// The heuristic's schedule, or with `forced` (a schedule file's or the
  /// tuner's strategy) that strategy's tiles and thread blocks: fitted to
  /// the op as the heuristic would fit them had it chosen it (an im2col
  /// forced over Winograd kept Winograd's single thread block, and its
  /// product ran on one thread).
  Fields convolution(linalg::Conv2DNchwFchwOp conv,
                     std::optional<StringRef> forced = std::nullopt) {
    Fields f = contraction();
    if (!convToIm2Col)
      return direct(f, "conv-to-im2col is off");
    if (!hasStaticShapes(conv))
      return direct(f, "dynamic shapes");
    f.strategy = "im2col";
    if (forced && *forced != "im2col" && *forced != "blocked_im2col") {
      f.strategy = forced->str();
      return f;
    }
    if (!forced) {
      if (std::optional<StringRef> w = winogradStrategy(conv)) {
        f.strategy = *w;
        return f;
      }
      if (pixelRowsPay(conv, f)) {
        f.strategy = "im2col_transposed";
        // Its A is the image read in place, pixels along the rows: a K
        // step's column of A is a few floats of a new line, so A's block
        // (pixels x tile_k) must stay in L1 while the column tiles sweep
        // it. 1x1 convolutions at 7x7 on a Zen 3 core with tile_k 128
        // against 256: 2048 -> 512 1.48 -> 1.20 ms, 512 -> 2048 1.53 ->
        // 1.33, 1152 -> 192 0.30 -> 0.24 (64 was no better); at 14x14 (not
        // this path) and for MatMuls, whose A rows are contiguous, 128 was
        // 0-10 % slower.
        auto pixels = cast<ShapedType>(conv.getOutputs()[0].getType());
        fitPixelRowTileK(f, pixels.getDimSize(2) * pixels.getDimSize(3));
        return f;
      }
    }
    auto out = cast<ShapedType>(conv.getOutputs()[0].getType());
    auto w = cast<ShapedType>(conv.getInputs()[1].getType());
    int64_t n = out.getDimSize(0), oh = out.getDimSize(2),
            ow = out.getDimSize(3);
    int64_t k = w.getDimSize(1) * w.getDimSize(2) * w.getDimSize(3);
    // A batch-1 im2col matrix that would not stay in cache (the core's
    // cache, or 4x the block) is gathered a block of output rows at a time,
    // when that pays: every block reads all the weights again, so they must
    // stay in cache or the block be wide (its columns at least half the
    // output channels, so that re-reading them costs less than writing and
    // reading the whole im2col matrix). 256 channels at 14x14 took 14x ORT's
    // time blocked (one row, 14 columns, a block) and 1.05x plain. 3-channel
    // stems (K = 27, a 1.3 MB matrix, 3 MB of output) went 834 -> 500 us
    // (SqueezeNet's) and 408
    // -> 305 us (MobileNet's) blocked. A block of fewer than two register
    // tiles of columns leaves its products a masked edge as large as the
    // rest: 5x5 convolutions, one output row of 56 a block, took 48 -> 48
    // at 28x28 0.46 -> 0.37 ms plain, 40 -> 40 at 56x56 1.28 -> 1.11 (Zen
    // 5, 1 thread). With 112 columns (3.5 tiles) blocks lost 6 % on one
    // thread and won 7-9 % on two (512 -> 64 1x1 stride 2 at 112x112, 64
    // -> 128 3x3 stride 2).
    // A 1x1 stride-1 convolution has no im2col matrix to keep in cache:
    // the product reads its input as it is, and blocks only copy it (32 ->
    // 16 channels at 112x112: 211 -> 90 us, 256 -> 128 at 56x56: 1.60 ->
    // 1.35 ms unblocked).
    int64_t elt = elementBytes(conv);
    int64_t matrixBytes = k * oh * ow * elt;
    fitRegisterRows(f, out.getDimSize(1));
    if (forced && *forced == "blocked_im2col") {
      f.strategy = "blocked_im2col";
      f.blockBytes = blockBytes > 0 ? blockBytes : cacheBytes / 2;
      f.threads = parallel ? maxChunks : 0;
      return f;
    }
    if (!forced && blockBytes > 0 && n == 1 && oh >= 4 &&
        !isPointwiseConv(conv) && isa<FloatType>(out.getElementType()) &&
        matrixBytes > std::min<int64_t>(4 * blockBytes, cacheBytes)) {
      int64_t cols = blockedIm2ColRows(k, oh, ow, elt, blockBytes) * ow;
      int64_t fout = out.getDimSize(1);
      bool weightsStay = 2 * fout * k * elt <= cacheBytes;
      // The whole matrix's round trip through memory costs 1 / fout of its
      // multiply-adds: with many output channels, a matrix of several
      // caches still goes faster than blocks (Zen 5, 1 MB L2: 3 -> 64 3x3
      // at 224x224, 5.4 MB, 1.24 -> 1.08 ms plain, 0.66 -> 0.53 on two
      // threads; 3 -> 64 stride 2 0.26 -> 0.22; 16 -> 64 at 55x55 0.25 ->
      // 0.23), with few, blocks win (3 -> 16 at 224x224, the same 5.4 MB,
      // 0.29 blocked against 0.32; 32 -> 64 at 112x112, 14 MB, 1.9 / 2.6).
      bool matrixPays = matrixBytes <= fout * (cacheBytes / 10);
      // Blocks narrower than two register tiles still win where the
      // matrix's round trip through the shared cache or memory outweighs
      // their masked edges: the round trip costs 1 / fout of the
      // multiply-adds, more beyond the shared cache. Blocked where the
      // matrix is beyond the shared cache or more than fout / 24 of it
      // (Zen 5, 32 MB L3, one thread, ms plain / blocked): 380 -> 9 3x3 at
      // 57x57 (44 MB) 5.07 / 2.31, 707 -> 11 at 36x36 (33 MB) 3.42 / 1.55,
      // 400 -> 14 at 48x48 (33 MB) 3.87 / 2.39, 192 -> 32 5x5 at 48x48
      // (44 MB) 6.50 / 3.30, 749 -> 10 stride 2 at 104x104 (73 MB) 10.9 /
      // 8.1; plain where it is less: 128 -> 24 5x5 at 50x50 (32 MB) 3.81 /
      // 4.42, 300 -> 16 3x3 at 40x40 (17 MB) 1.16 / 1.78, 616 -> 27 stride 2
      // at 42x51 (12 MB) 1.34 / 1.99, 256 -> 8 at 32x32 (9.4 MB) 0.42 /
      // 0.27 (two threads 0.22 / 0.24).
      bool narrowPays = matrixBytes > sharedCacheBytes ||
                        matrixBytes * 24 > sharedCacheBytes * fout;
      if ((weightsStay || 2 * cols >= fout) &&
          (cols >= 2 * f.regN || narrowPays) && !matrixPays) {
        f.strategy = "blocked_im2col";
        f.blockBytes = blockBytes;
        f.threads = parallel ? maxChunks : 0;
      }
    }
    if (f.strategy == "im2col")
      fitThreadBlocks(f, out.getDimSize(1), oh * ow, n * k);
    return f;
  }

  /// Winograd F(4x4,3x3) where it pays: 4x fewer products than im2col,
  /// but 4x the weights (36 transformed taps for 9), which stream from
  /// memory inside a model, so each must serve enough tiles; channels
  /// enough that the products outweigh the transforms (O(C + F) per tile
  /// against O(C F)); and transformed taps and products (36 (C + F) floats
  /// a tile) within four times the cache, or channels enough to pay for
  /// their traffic. Where F(4x4) has too few tiles (7x7 and 10x10 maps),
  /// F(2x2,3x3) pays with wide layers: 2.25x fewer products for 16/9 the
  /// weights.
  /// On a Zen 5 core (512-bit FMAs, one thread, memory flushed before each
  /// run; im2col or pixel rows / F(2x2) / F(4x4), ms): 256 -> 256 at 14x14
  /// 0.61 / 0.58 / 0.47 (inside ResNet-50 its five such layers 0.16 ms
  /// each faster than F(2x2)), 96 -> 96 0.105 / 0.102 / 0.095, 128 -> 32
  /// 0.078 / - / 0.068 (a tie in DenseNet); 512 -> 512 at 7x7 1.08 / 0.72
  /// / 1.89, 128 -> 128 0.071 / 0.058, 64 -> 64 0.018 / 0.019; 256 -> 256
  /// at 10x10 0.52 / 0.40 / 0.59. An earlier rule asked 32 tiles of
  /// 512-bit targets from in-model times on a Zen 4 and a Xeon (256 at
  /// 14x14: 1.9 im2col, 2.0 F(4x4)), which the Zen 5 times above do not
  /// repeat. 256-bit vectors (16 registers, 6 x 16 register tiles) run the
  /// product further from peak, so there the transforms pay on narrow
  /// layers too: on a Zen 3 core 48 -> 192 at 13x13 0.39 / 0.34 / 0.29;
  /// 128 -> 32 at 14x14 0.30 / 0.22 / 0.19; 512 -> 512 at 7x7 3.16 im2col
  /// (3.68 pixel rows), 2.25 F(2x2).
  std::optional<StringRef> winogradStrategy(linalg::Conv2DNchwFchwOp conv) {
    if (!winograd || !isWinogradConv(conv))
      return std::nullopt;
    auto w = cast<ShapedType>(conv.getInputs()[1].getType());
    int64_t fout = w.getDimSize(0), c = w.getDimSize(1);
    if (fout < 32 || c < 32)
      return std::nullopt;
    // The rules below were measured with 256- and 512-bit vectors; other
    // widths keep the first, stricter ones (32 tiles, C F / (C + F) = 64).
    bool wide = vectorBits == 512;
    int64_t minTiles = wide || vectorBits == 256 ? 16 : 32;
    int64_t tiles = winogradTiles(conv, 4);
    // 512-bit products of 32 filters over 16 tiles are too short for the
    // transforms to pay (128 -> 32 at 14x14 above: a tie).
    if (tiles < minTiles || (wide && fout < 64 && tiles < 32)) {
      // F(2x2) on 64 -> 64 at 7x7 loses (above): its products are shorter
      // than its transforms there.
      if (fout < 64 || c < 64 || winogradTiles(conv, 2) < minTiles ||
          (wide && c + fout < 256))
        return std::nullopt;
      return StringRef("winograd_f2");
    }
    // Beyond the cache the transformed data goes to memory and back: 36
    // (C + F) floats a tile against the 4 C F products per pixel saved. On
    // the Zen 5 core (memory flushed, im2col / F(4x4)) it paid from C F /
    // (C + F) = 24: 64 -> 64 at 112x112 4.14 / 2.79 ms, 128 -> 32 at 56x56
    // 1.47 / 1.07 (DenseNet-121 27.3 -> 25.2 ms for its first block), 48 ->
    // 64 at 80x80 1.53 / 0.98; 32 -> 64 at 112x112 (21) tied, 32 -> 32 at
    // 224x224 (16) lost, 5.13 / 5.86. With 256-bit vectors it pays on
    // narrow layers too (Zen 3: 128 -> 32 at 56x56 4.36 ms im2col, 2.07
    // F(4x4); 32 -> 64 at 112x112 6.3 against 5.3).
    if (vectorBits != 256 && 36 * (c + fout) * tiles * 4 > 4 * cacheBytes &&
        c * fout < (wide ? 24 : 64) * (c + fout))
      return std::nullopt;
    return StringRef("winograd_f4");
  }

  /// The product with output pixels as rows, for a batch-1 convolution with
  /// a constant f32 filter whose pixels fill fewer than four register tiles
  /// of columns (7x7 and smaller maps): in the usual orientation their 49
  /// columns split into register tiles of 32, 16 and 1, each reading the
  /// weights again. Channels in no whole panels (a last panel of its own)
  /// under two register tiles of pixels: Zen 5, one / two threads, ms,
  /// im2col against pixel rows at 49 pixels: 256 -> 200 3x3 0.248 / 0.270
  /// -> 0.204 / 0.169, 512 -> 1000 0.288 / 0.185 -> 0.212 / 0.128, 440 ->
  /// 440 0.099 -> 0.083, 832 -> 48 0.022 -> 0.017; under one vector of
  /// pixels most lanes of the usual orientation are idle (60 -> 696 5x5
  /// stride 2 at 5x5, 9 pixels, 0.171 -> 0.096; 1024 -> 500 at 2x2 0.075
  /// -> 0.021). From 64 pixels they tie or lose (1024 -> 500 at 8x8 0.245
  /// -> 0.253, 128 -> 90 3x3 at 10x10 0.097 / 0.127 -> 0.096 / 0.139);
  /// AVX2 on the same core alike at 25 pixels and under (256 -> 200 3x3
  /// at 5x5 0.269 -> 0.189), 128 -> 90 at 5x6 0.060 -> 0.073 its loss.
  bool pixelRowsPay(linalg::Conv2DNchwFchwOp conv, const Fields &f) {
    auto out = cast<ShapedType>(conv.getOutputs()[0].getType());
    int64_t pixels = out.getDimSize(2) * out.getDimSize(3);
    bool wholePanels = out.getDimSize(1) % f.regN == 0;
    if (out.getDimSize(0) != 1 || !out.getElementType().isF32() ||
        pixels >= (wholePanels ? 4 : 2) * f.regN)
      return false;
    return getConstantData(conv.getInputs()[1]).has_value();
  }

  /// Weights packed in panels at compile time for an f32 MatMul whose
  /// constant B outgrows half the cache: copied at run time, its panels
  /// come from rows a page apart (ViT-B/16's MLP products ran at 110 GF/s
  /// in the model). Matrix-vector products read B once either way, but as
  /// one sequential stream per panel instead of a run of each row (a
  /// zero-padded last panel costs them a few percent of the bytes):
  /// ResNet-50's 2048 -> 1000 classifier 0.77 -> 0.53 ms on a Zen 4 core.
  /// So do products of fewer than two register tiles of rows, which read
  /// each B block once or twice (Zen 5, one thread, copied / packed ms:
  /// 3 x 2048 x 2048 0.54 / 0.19, 6 x 2288 x 2433 0.78 / 0.41, 5 x 2856 x
  /// 1355 0.24 / 0.19; 10 x 1464 x 2382 and 15 x 1024 x 1000 alike). So
  /// do products of fewer than 32 tiles of rows over a partial last panel,
  /// which pay the run-time copy of B's blocks over too few rows (16 x 2436
  /// x 1961 1.42 / 0.88 ms, 32 x 2436 x 1961 2.32 / 1.96, 100 x 2048 x 1001
  /// 2.16 / 1.87, 200 x 1024 x 1000 1.62 / 1.47); from 256 rows the two tie
  /// within 8 % either way (256 x 2048 x 1500, 384 x 768 x 3001, 1000 x 512
  /// x 1000). Whole panels of columns are packed at any size.
  bool packedWeightsPay(linalg::LinalgOp op, const Fields &f) {
    auto matmul = dyn_cast<linalg::MatmulOp>(op.getOperation());
    if (!packedWeights || vectorBits <= 0 || !matmul ||
        !linalg::MatmulOp::isDefaultIndexingMaps(matmul.getIndexingMaps()))
      return false;
    auto a = cast<ShapedType>(op.getDpsInputs()[0].getType());
    auto c = cast<ShapedType>(op.getDpsInits()[0].getType());
    int64_t m = c.getDimSize(0), n = c.getDimSize(1), k = a.getDimSize(1);
    if (!c.getElementType().isF32() || !a.getElementType().isF32() ||
        (m >= 32 * f.regM && n % f.regN != 0) || 2 * k * n * 4 <= cacheBytes)
      return false;
    return getConstantData(op.getDpsInputs()[1]).has_value();
  }

  /// A slow path, and why it was taken (reported after any override).
  Fields direct(Fields f, StringRef why) {
    f.strategy = "direct";
    slowReason = why.str();
    return f;
  }

  /// NCHW ([C, KH, KW] filter) or NHWC ([KH, KW, C]) depthwise.
  Fields depthwise(linalg::LinalgOp op, int64_t taps) {
    Fields f = rows();
    f.strategy = "depthwise";
    // Enough independent FMA chains to hide FMA latency on two ports,
    // leaving registers for inputs.
    f.accumulators = vectorBits >= 512 ? 12 : 8;
    if (vectorBits < 128)
      return direct(f, "no vector registers of 128 bits or more");
    if (!hasStaticShapes(op))
      return direct(f, "dynamic shapes");
    auto out = cast<ShapedType>(op.getDpsInits()[0].getType());
    int64_t work = out.getNumElements() * taps;
    // One chunk per (batch, channel) plane (NHWC: per output row), when
    // there are two or more and the multiply-adds pay for the threads. A
    // depthwise multiply-add costs more than a product's (its loads and
    // stride-2 shuffles share the ports with a fraction of the FMAs), so
    // `lanes / 8` of them weigh as much as one unit of min_parallel_work:
    // about 10 us of work on one core. Left serial, MobileNetV2's 28x28 and
    // 14x14 depthwise layers ran slower on two threads than on one (the input
    // written by both cores, read by one).
    int64_t minWork = minParallelWork * std::max<int64_t>(lanes() / 8, 1);
    bool threads = parallel && out.getDimSize(0) * out.getDimSize(1) >= 2 &&
                   work >= minWork;
    f.threads = threads ? out.getDimSize(0) * out.getDimSize(1) : 0;
    f.minParallelWork = minWork;
    return f;
  }

  /// im2col with the contraction's tiles, or direct where it does not apply.
  Fields plainIm2Col(Operation *op, bool floatOnly) {
    Fields f = contraction();
    f.strategy = "im2col";
    if (!convToIm2Col)
      return direct(f, "conv-to-im2col is off");
    if (!hasStaticShapes(op))
      return direct(f, "dynamic shapes");
    if (floatOnly && !isa<FloatType>(getElementTypeOrSelf(op->getResult(0))))
      return direct(f, "not a float convolution");
    return f;
  }

  /// A grouped convolution: one im2col contraction per group. A schedule
  /// file or the tuner may name im2col_transposed instead, one pixel-row
  /// product per panel of a group's channels (batch 1, f32, a constant
  /// filter, whole panels of channels per group); the heuristic does not:
  /// on a Zen 3 core it lost with warm caches (32 groups of 32 channels at
  /// 7x7 1.07x the im2col time, of 16 at 14x14 1.11x; 2 threads 1.18x)
  /// and won only with the memory flushed (0.94x, 0.95x), and ResNeXt-50
  /// and RegNetX-400MF tied (0.99x, 0.97x at 1 thread, 1.05x at 2).
  Fields groupedConvolution(linalg::Conv2DNgchwGfchwOp conv,
                            std::optional<StringRef> forced) {
    Fields f = plainIm2Col(conv, /*floatOnly=*/true);
    if (f.strategy != "im2col" || !forced || *forced != "im2col_transposed")
      return f;
    auto out = cast<ShapedType>(conv.getOutputs()[0].getType());
    int64_t groupChannels = out.getDimSize(2);
    int64_t pixels = out.getDimSize(3) * out.getDimSize(4);
    if (out.getDimSize(0) != 1 || !out.getElementType().isF32() ||
        groupChannels % f.regN != 0 ||
        !getGroupedConvWeights(conv.getInputs()[1])) {
      remarkSlowPath(conv, "im2col instead of im2col_transposed",
                     "the pixel-row product of a grouped convolution needs "
                     "batch 1, f32, a constant filter and whole panels of "
                     "channels per group");
      return f;
    }
    f.strategy = "im2col_transposed";
    fitPixelRowTileK(f, pixels);
    return f;
  }

  /// A pixel-row product's tile_k: small enough that A's block (`pixels` x
  /// tile_k) stays in L1 (why, and what it measured: convolution()), unless
  /// tile_k is set for every op.
  void fitPixelRowTileK(Fields &f, int64_t pixels) const {
    if (tileK <= 0 && pixels * f.tileK * 4 > kL1Bytes)
      f.tileK = std::max<int64_t>(
          64, int64_t(llvm::bit_floor(uint64_t(kL1Bytes / (4 * pixels)))));
  }

  /// The heuristic schedule of a tunable op, and its kind; nullopt for ops
  /// that take the function's default.
  std::optional<Fields> select(Operation *op,
                               std::optional<StringRef> forced = std::nullopt) {
    if (auto conv = dyn_cast<linalg::Conv2DNchwFchwOp>(op))
      return convolution(conv, forced);
    if (isa<linalg::Conv2DNhwcHwcfOp>(op))
      return plainIm2Col(op, /*floatOnly=*/false);
    if (auto grouped = dyn_cast<linalg::Conv2DNgchwGfchwOp>(op))
      return groupedConvolution(grouped, forced);
    if (auto dw = dyn_cast<linalg::DepthwiseConv2DNchwChwOp>(op)) {
      auto w = cast<ShapedType>(dw.getInputs()[1].getType());
      return depthwise(dw, w.getDimSize(1) * w.getDimSize(2));
    }
    if (auto dw = dyn_cast<linalg::DepthwiseConv2DNhwcHwcOp>(op)) {
      auto w = cast<ShapedType>(dw.getInputs()[1].getType());
      return depthwise(dw, w.getDimSize(0) * w.getDimSize(1));
    }
    // Pooling runs the depthwise kernel's loops (NCHW max and sum, NHWC
    // max).
    if (auto pool = dyn_cast<linalg::PoolingNhwcMaxOp>(op)) {
      auto w = cast<ShapedType>(pool.getInputs()[1].getType());
      return depthwise(pool, w.getDimSize(0) * w.getDimSize(1));
    }
    if (isa<linalg::PoolingNchwMaxOp, linalg::PoolingNchwSumOp>(op)) {
      auto pool = cast<linalg::LinalgOp>(op);
      auto w = cast<ShapedType>(pool.getDpsInputs()[1].getType());
      return depthwise(pool, w.getDimSize(0) * w.getDimSize(1));
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (linalgOp && linalg::isaContractionOpInterface(linalgOp)) {
      Fields f = contraction();
      if (!hasStaticShapes(op)) {
        f.strategy = "scalar";
        slowReason = "dynamic shapes";
      } else {
        matrixVector(linalgOp, f);
        FailureOr<linalg::ContractionDimensions> dims =
            linalg::inferContractionDims(linalgOp);
        SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
        bool plain =
            succeeded(dims) && dims->m.size() == 1 && dims->n.size() == 1;
        int64_t k = staticLoopProduct(linalgOp, utils::IteratorType::reduction);
        if (packedWeightsPay(linalgOp, f)) {
          // The packed products' chunks are row blocks by panels.
          f.strategy = "packed_weights";
          if (plain) {
            int64_t m = ranges[dims->m.front()];
            halveRowsForThreads(f, m, ranges[dims->n.front()], k);
            wholeKForOneRowBlock(linalgOp, f, m, k);
          }
        } else if (plain) {
          fitThreadBlocks(f, ranges[dims->m.front()], ranges[dims->n.front()],
                          k);
        }
      }
      return f;
    }
    return std::nullopt;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    auto funcError = [&] { return func.emitError(); };
    if (!func->hasAttr(kDefaultScheduleAttr)) {
      CpuScheduleAttr attr = rows().toAttr(ctx, funcError);
      if (!attr)
        return signalPassFailure();
      func->setAttr(kDefaultScheduleAttr, attr);
    }
    WalkResult result = func.walk([&](Operation *op) {
      if (getOwnSchedule(op))
        return WalkResult::advance();
      if (op->hasAttr(kScheduleAttr)) {
        op->emitError() << kScheduleAttr
                        << " must be a #kiln_kernel.cpu_schedule, not "
                        << op->getAttr(kScheduleAttr);
        return WalkResult::interrupt();
      }
      slowReason.clear();
      std::string id = op->hasAttr(kOpIdAttr)
                           ? op->getAttrOfType<StringAttr>(kOpIdAttr).str()
                           : getOpIdentity(op);
      // The signature's entry (tuned for every op of its shape) first, then
      // the node's, then the exact op's; the last strategy named is the op's.
      SmallVector<const llvm::json::Object *> entries;
      std::optional<std::string> forced;
      if (overrides) {
        std::string fingerprint = getFingerprint(op), node = getNodeName(op);
        for (StringRef key :
             {StringRef(fingerprint), StringRef(node), StringRef(id)})
          if (!key.empty())
            if (auto it = overrides->find(key); it != overrides->end()) {
              entries.push_back(&it->second);
              if (std::optional<StringRef> st =
                      it->second.getString("strategy"))
                forced = st->str();
            }
      }
      std::optional<Fields> heuristicFields = select(op);
      if (!heuristicFields)
        return WalkResult::advance();
      std::string heuristic = heuristicFields->strategy;
      Fields fields = *heuristicFields;
      if (forced && *forced != heuristic)
        fields = *select(op, StringRef(*forced));
      StringRef kind = getTunableKind(op);
      if (overrides) {
        for (const llvm::json::Object *entry : entries)
          applyOverride(fields, *entry);
        // Ops outside the tunable kinds (pooling) keep the heuristic's
        // strategy unless an entry names another.
        if (fields.strategy != heuristic &&
            !llvm::is_contained(getStrategiesFor(kind), fields.strategy)) {
          op->emitError() << "schedule of '" << id << "': strategy '"
                          << fields.strategy << "' does not fit "
                          << op->getName() << " (fits: "
                          << llvm::join(getStrategiesFor(kind), ", ") << ")";
          return WalkResult::interrupt();
        }
      }
      CpuScheduleAttr attr = fields.toAttr(ctx, [&] {
        return op->emitError() << "schedule of '" << id << "': ";
      });
      if (!attr)
        return WalkResult::interrupt();
      op->setAttr(kScheduleAttr, attr);
      op->setAttr(kOpIdAttr, StringAttr::get(ctx, id));
      if (fields.strategy == "direct" || fields.strategy == "scalar")
        remarkSlowPath(
            op,
            fields.strategy == "direct" ? "direct convolution in scalar loops"
                                        : "contraction in scalar loops",
            fields.strategy != heuristic ? "chosen by the schedule file"
                                         : StringRef(slowReason));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  std::shared_ptr<Overrides> overrides;
  /// Why select() chose a slow path for the current op.
  std::string slowReason;
};

} // namespace
} // namespace kiln
