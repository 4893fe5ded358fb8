//===- Passes.td - CPU code-generation passes ---------------*- tablegen -*-===//
#ifndef KILN_LOWERING_CPU_PASSES
#define KILN_LOWERING_CPU_PASSES

include "mlir/Pass/PassBase.td"

def SelectSchedule : Pass<"kiln-cpu-select-schedule", "mlir::func::FuncOp"> {
  let summary = "Choose every op's CPU schedule (the one place heuristics live)";
  let description = [{
    Writes a `#kiln_kernel.cpu_schedule` as the `kiln.schedule` attribute of
    every convolution, depthwise convolution and contraction that has none
    yet, and the function's `kiln.default_schedule` for every other op
    (vector rows and threads). Also writes `kiln.op_id`, the op's stable
    identity: its ONNX node name and a fingerprint of its kind, types and
    attributes (`node#1a2b3c4d`). The passes that apply schedules
    (`kiln-cpu-conv-to-im2col`, `kiln-cpu-vectorize-depthwise-conv`,
    `kiln-cpu-tile-and-vectorize`) only read these attributes.

    The heuristics read the target description in the options (vector
    width, threads); zero-valued tile and register options take the
    heuristic default, other values set that field for every op. A schedule
    file (`schedule-file`, JSON) then overrides single ops:
    `{"conv0": {"strategy": "im2col", "tile_m": 32}, "mm#1a2b3c4d": {...}}`,
    keyed by fingerprint (every op of that signature: how the tuning
    database's schedules, `schedules`, are given), node name (every op of
    that node) or full identity, later keys winning, with the
    attribute's field names as keys. Unknown keys, values the attribute's
    verifier rejects and strategies that do not fit the op are errors. Ops
    that already carry a schedule keep it, so the pass can run again after
    bufferization for ops created in between.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "256",
           "Vector register width of the target (0: no vector unit)">,
    Option<"tileM", "tile-m", "int64_t", "0",
           "Contraction cache block rows (0: heuristic)">,
    Option<"tileN", "tile-n", "int64_t", "0",
           "Contraction cache block columns (0: heuristic)">,
    Option<"tileK", "tile-k", "int64_t", "0",
           "Contraction cache block depth (0: heuristic)">,
    Option<"regM", "reg-m", "int64_t", "0",
           "Register tile rows (0: heuristic)">,
    Option<"regN", "reg-n", "int64_t", "0",
           "Register tile columns in lanes (0: heuristic)">,
    Option<"regK", "reg-k", "int64_t", "1",
           "K elements per innermost step (unroll)">,
    Option<"packRowBytes", "pack-row-bytes", "int64_t", "512",
           "Pack B micro-panels whose rows are at least this many bytes "
           "apart (0: never), when 16 register tiles read each panel. A "
           "32-wide panel from rows 784 B apart straddles cache lines in "
           "three rows of four: packed, conv3x3 256 @14 went 1.53 -> 1.30 "
           "ms, MatMul 197 x 768 x 2304 5.0 -> 4.0 ms">,
    Option<"packARowBytes", "pack-a-row-bytes", "int64_t", "0",
           "Pack A blocks whose rows are at least this many bytes apart "
           "(0: never)">,
    Option<"parallel", "parallel", "int64_t", "1",
           "Split ops across kiln_rt's thread pool (0 or 1)">,
    Option<"minParallelWork", "min-parallel-work", "int64_t", "131072",
           "Iterations below which an op stays on one thread (a "
           "multiply-add counts as one lane of an FMA). Vectorized ops this "
           "small finish in microseconds; splitting them moves their data "
           "between cores' caches, which costs more than a core saves">,
    Option<"winograd", "winograd", "int64_t", "1",
           "Run 3x3 stride-1 f32 convolutions with enough channels and "
           "output tiles as Winograd F(4x4,3x3) or F(2x2,3x3) (0: never)">,
    Option<"packedWeights", "packed-weights", "int64_t", "1",
           "Pack the constant B of f32 MatMuls whose weights outgrow half "
           "the cache in register-tile panels at compile time (0: never)">,
    Option<"convToIm2Col", "conv-to-im2col", "int64_t", "1",
           "Run 2-D convolutions as im2col plus the contraction kernel (0: "
           "direct convolutions)">,
    Option<"loopOrder", "loop-order", "int64_t", "0",
           "Register-tile loops of the contraction kernel: 1 columns outer, "
           "2 rows outer (0: heuristic, rows outer for K of 16 or less)">,
    Option<"blockBytes", "block-bytes", "int64_t", "393216",
           "Largest im2col tile of a blocked convolution; 0 never blocks">,
    Option<"cacheBytes", "cache-bytes", "int64_t", "1048576",
           "Cache a core's working set lives in (its L2): weights that fit "
           "in half of it stay there across a blocked convolution's blocks">,
    Option<"sharedCacheBytes", "shared-cache-bytes", "int64_t", "33554432",
           "Last-level cache the cores share (an L3): an im2col matrix beyond "
           "it makes a round trip through memory">,
    Option<"maxChunks", "max-chunks", "int64_t", "16",
           "Parallel chunks (each with its own scratch tile) of a blocked "
           "convolution">,
    Option<"sparseWeights", "sparse-weights", "int64_t", "1",
           "Products with sparse constant weights: 1 takes the block-sparse "
           "kernel where the cost estimate says it wins, 0 keeps them dense, "
           "2 takes it whenever a segment is zero">,
    Option<"scheduleFile", "schedule-file", "std::string", "\"\"",
           "JSON file of per-op schedules, keyed by node name or identity">,
    Option<"schedules", "schedules", "std::string", "\"\"",
           "Per-op schedules as JSON text (from the tuning database), "
           "keyed like the schedule file; the file's entries win">
  ];
  let dependentDialects = ["kiln::kernel::KernelDialect"];
}

def BlockDynamicRows : Pass<"kiln-cpu-block-dynamic-rows", "mlir::func::FuncOp"> {
  let summary = "Matrix products with a dynamic row count as static row blocks";
  let description = [{
    On tensors: a linalg.matmul whose M (rows) is dynamic and whose K and N
    are static (a sequence length or batch times tokens by a weight) becomes
    a loop over whole blocks of `block-rows` rows, each a static product
    that the register-tiled kernel takes, then loops over blocks of 8 rows
    and single rows for the rest, all static. Without it the whole product
    runs scalar loops.
  }];
  let options = [
    Option<"blockRows", "block-rows", "int64_t", "64",
           "Rows per static block">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def BlockDynamicImages : Pass<"kiln-cpu-block-dynamic-images", "mlir::func::FuncOp"> {
  let summary = "Convolutions and pooling over run-time image sizes, and convolutions over a batch, as static tiles";
  let description = [{
    On tensors: an NCHW convolution, depthwise convolution or sum/max
    pooling (explicit padding) whose output has a dynamic batch, height or
    width becomes, where the image holds at least one tile, loops over
    static output tiles [1, K, Bh, Bw] (whole static dims; about
    `tile-pixels` pixels where H or W is dynamic), each the same op on the
    input window it reads, so that the static convolution paths take them.
    The last tile of a row or column is shifted back to end at the edge and
    starts again from the op's initial value (a fill or bias broadcast made
    at the tile's shape), so overlapping pixels get the same values twice.
    Smaller images take the dynamic op. A convolution (plain, grouped or
    channels-last) over a static batch of two or more becomes a loop over its
    images, each a batch-1 convolution of the whole image, which the im2col
    paths take.
  }];
  let options = [
    Option<"tilePixels", "tile-pixels", "int64_t", "256",
           "Output pixels per tile where H or W is a run-time extent">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def CollapseElementwiseDims
    : Pass<"kiln-cpu-collapse-elementwise-dims", "mlir::func::FuncOp"> {
  let summary = "Merge the loops every operand of an elementwise op reads contiguously";
  let description = [{
    On tensors: an all-parallel linalg.generic whose operands are read through
    projected permutations (no constant indices) gets each maximal run of adjacent loops that all
    operands read contiguously merged into one loop (upstream's dimension
    collapsing, with reshapes around it), so that its innermost loop, the one
    vectorized, is as long as the data allows (H*W instead of W for NCHW
    activations). Ops reading an NCHW convolution's result keep their shape
    for kiln-cpu-conv-to-im2col's per-block epilogues; ops that read their
    loop indices, and the producers of graph outputs, are left alone.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def ConvToIm2Col : Pass<"kiln-cpu-conv-to-im2col", "mlir::func::FuncOp"> {
  let summary = "Rewrite 2-D convolutions as im2col plus a contraction";
  let description = [{
    On tensors, applies the strategy of each convolution's schedule
    (`kiln-cpu-select-schedule`): `im2col` rewrites `linalg.conv_2d_nchw_fchw`
    and `linalg.conv_2d_nhwc_hwcf` into an im2col gather and a matmul-shaped
    contraction, so that the contraction kernel of
    `kiln-cpu-tile-and-vectorize` serves convolutions too (a 1x1 convolution
    with unit strides needs no gather); `blocked_im2col` splits a batch-1
    convolution into blocks of output rows under an `scf.forall` of
    `threads` chunks, each gathering one block at a time into its own
    scratch tile of at most `block_bytes` and multiplying it while it is in
    cache; `im2col_transposed` runs the product with the output pixels as
    rows against weights packed in channel panels; `winograd_f4` and
    `winograd_f2` run 3x3 stride-1 convolutions as Winograd transforms
    around one contraction per transformed tap; `direct` leaves the
    convolution alone. The contraction inherits the convolution's schedule.
    An `im2col` gather whose matrix fits in `cache-bytes` and whose product
    shares out pixels among threads (its output channels one thread block)
    is marked to be cut by output rows as the product is, so that each core
    gathers into its own cache. Convolutions without a schedule are left
    alone. Static batched products
    (`linalg.batch_matmul`) with a contraction schedule become an
    `scf.forall` over the batch of 2-D products, which the register kernel
    takes.
  }];
  let options = [
    Option<"cacheBytes", "cache-bytes", "int64_t", "1048576",
           "A core's cache (its L2): an im2col matrix that fits is gathered "
           "by the threads' own pixels">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::scf::SCFDialect"];
}

def FuseRowChains : Pass<"kiln-cpu-fuse-row-chains", "mlir::func::FuncOp"> {
  let summary = "Run a row reduction and the ops that read it row by row in one loop";
  let description = [{
    On buffers, before kiln-cpu-tile-and-vectorize: a reduction of the
    innermost loops (with the fills before it) and the ops after it that
    iterate over the same rows and read what the chain wrote (Softmax's
    maximum, sum, reciprocal and scaling; LayerNorm's sums and
    normalization) become one loop over the rows, scf.forall where the
    function's default schedule gives enough work for threads, each op a
    copy of itself on one row. Every buffer the chain writes must be read
    and written as rows along the ops' leading loops, so that an iteration
    touches its own row alone; other operands may be read any way.
  }];
  let dependentDialects = ["mlir::affine::AffineDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def TileAndVectorize : Pass<"kiln-cpu-tile-and-vectorize", "mlir::func::FuncOp"> {
  let summary = "Tile linalg ops on buffers for threads, caches and registers";
  let description = [{
    Runs after bufferization. Contractions (matmul, batch_matmul, generic
    contractions such as im2col convolutions) with static shapes are tiled
    into an `scf.forall` over (M, N) cache blocks, an `scf.for` over K
    blocks and a register tile (mr x nr) that is vectorized into
    `vector.contract` with its accumulator kept in registers across the K
    loop; boundary tiles are peeled and left scalar. Large parallel ops get
    an outer `scf.forall` over their leading parallel dims. Every size comes
    from the op's `kiln.schedule` (a contraction whose strategy runs the
    contraction kernel) or from the function's `kiln.default_schedule`
    (vector rows and threads for every other op), both written by
    `kiln-cpu-select-schedule`; the pass holds no schedule of its own.

    A contraction's initializer (bias broadcast, fill) and elementwise
    epilogue (activation, residual add) move into its register tiles where
    they fit (ContractionEpilogue.cpp): the first K block starts from the
    initializer's values, the last stores the epilogue's.
  }];
  let options = [
    Option<"fuseEpilogues", "fuse-epilogues", "bool", "true",
           "Compute contractions' initializers and elementwise epilogues in "
           "their register tiles">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def LowerVectorOps : Pass<"kiln-cpu-lower-vector", "mlir::func::FuncOp"> {
  let summary = "Lower vector contractions to FMAs and transfers to 1-D";
  let description = [{
    Lowers `vector.contract` to outer products (one FMA per accumulator
    row), transfer permutations and multi-reductions, and drops unit dims,
    so that `convert-vector-to-llvm` only sees 1-D vector operations. The
    elements of a 1-D read that only feed broadcasts (an outer product's
    column of A) are then loaded one by one, so that each broadcast reads
    memory rather than taking the vector apart with shuffles.
  }];
  let dependentDialects = ["mlir::vector::VectorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def SparseWeights : Pass<"kiln-cpu-sparse-weights", "mlir::ModuleOp"> {
  let summary = "Products with sparse constant weights as block-sparse kernels";
  let description = [{
    For each f32 `linalg.matmul` (on buffers) whose right operand is a
    constant global, measures at compile time how many of the weight's
    1 x V segments (V = one vector register of f32 along the outputs) are
    non-zero, and when the cost estimate says the sparse kernel wins,
    packs the non-zero segments by column block (values, their reduction
    index, a pointer per block: block-compressed rows) into new globals and
    replaces the product with a kernel that walks them: threads over column
    blocks, a register tile of 8 rows, one vector FMA per row and non-zero
    segment. The estimate: a non-zero segment costs about what one step of
    the dense kernel's reduction costs, plus the index load, so sparse
    wins when fewer than `max-density` of the segments are non-zero
    (measured on AVX-512: break-even near 90 %, 1.2x at 80 %; the default
    0.7 keeps a margin).
    Either way it leaves a remark with the density and the choice (`kiln
    compile --remarks`). Unstructured pruning leaves few all-zero segments
    (dense is kept); `kiln prune --pattern block:16x1` (or 8x1 at 256-bit)
    prunes whole segments.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "int64_t", "256",
           "Vector register width (0: no vector unit, always dense)">,
    Option<"enabled", "enabled", "int64_t", "1",
           "0: keep every product dense; 2: sparse wherever a segment is "
           "zero (for measuring the estimate)">,
    Option<"maxDensity", "max-density", "double", "0.7",
           "Largest fraction of non-zero segments the sparse kernel takes">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def ParallelToRuntime : Pass<"kiln-cpu-parallel-to-runtime", "mlir::ModuleOp"> {
  let summary = "Run outermost scf.forall loops on the kiln_rt thread pool";
  let description = [{
    Outlines the body of every outermost `scf.forall` (on buffers) into a
    function `(i64 begin, i64 end, !llvm.ptr data)` that runs the
    linearized iterations [begin, end), and replaces the loop with a call to
    `kiln_rt_parallel_for(n, body, data)`; `data` points to a stack struct
    of the captured values (memref descriptors, scalars). Nested foralls and
    loops capturing unsupported types become serial `scf.for` nests.
    With `mark-kernels`, each call site gets `kiln.kernel = "<function>"`
    for kiln-cpu-instrument-profile.
  }];
  let options = [
    Option<"markKernels", "mark-kernels", "bool", "false",
           "Mark each kernel call site with kiln.kernel">,
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::func::FuncDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def InstrumentProfile : Pass<"kiln-cpu-instrument-profile", "mlir::ModuleOp"> {
  let summary = "Time every kernel call through the kiln_rt profile hook";
  let description = [{
    For `kiln compile --profile`, after kiln-cpu-parallel-to-runtime: each
    call site marked `kiln.kernel` gets an index k and is bracketed by
    `kiln_rt_profile_event(k, 0)` and `kiln_rt_profile_event(k, 1)` (an
    extern_weak symbol, called only when present), and the module gets
    `kiln.profile.kernels`, one `{symbol, node}` per index, node being the
    ONNX node of the call's location. The marks are removed.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect", "mlir::scf::SCFDialect"];
}

def ApproximateMath : Pass<"kiln-cpu-approximate-math", "mlir::func::FuncOp"> {
  let summary = "Replace f32 transcendentals with inline polynomials";
  let description = [{
    Rewrites f32 `math.erf`, `exp`, `expm1`, `tanh`, `log`, `log1p` and
    `log2` (scalar or vector) into upstream's polynomial approximations, so
    that elementwise loops over them vectorize instead of calling libm.
  }];
  let dependentDialects = ["mlir::math::MathDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::vector::VectorDialect"];
}

def VectorizeDepthwiseConv
    : Pass<"kiln-cpu-vectorize-depthwise-conv", "mlir::func::FuncOp"> {
  let summary = "Vector micro-kernel for depthwise convolutions on buffers";
  let description = [{
    Rewrites a static f32 `linalg.depthwise_conv_2d_nchw_chw` (stride 1 or 2
    along the width, any stride along the height, dilation 1) into an
    `scf.forall` over (batch, channel) whose body computes a few output rows
    by a few vectors of the width at once: contiguous input loads (stride 2
    de-interleaved with `vector.shuffle`), weight broadcasts and
    `vector.fma` into accumulators held in registers, with masked loads and
    stores at the end of each row. Runs before `kiln-cpu-tile-and-vectorize`,
    which leaves ops inside an `scf.forall` alone. Applies the op's
    `kiln.schedule` of strategy `depthwise` (vector width, accumulators,
    threads); other strategies and forms the kernel does not handle stay
    linalg.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def LowerAmx : Pass<"kiln-cpu-lower-amx", "mlir::ModuleOp"> {
  let summary = "AMX tile ops, and the loops that carry tiles, to LLVM";
  let description = [{
    Converts `amx` dialect ops to LLVM AMX intrinsics and the tile types
    of the scf ops that carry them (loop iter_args) to `!llvm.x86_amx`,
    leaving memrefs and indices behind casts for the final conversions.
    Runs before `convert-scf-to-cf`, whose type converter knows no tiles.
    Does nothing to a module without amx ops.
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect"];
}

def DotKernel : Pass<"kiln-cpu-dot-kernel", "mlir::func::FuncOp"> {
  let summary = "Register tiles of dot-product instructions for packed "
                "products";
  let description = [{
    Rewrites the static products with packed weights that QuantizedConv /
    QuantizedMatMul and reduced-precision convs and matmuls lower to (a
    linalg.generic over (m, n, k/g, k%g) on buffers, rows [M, K/g, g],
    weight [K/g, N, g]; see lowering/to-linalg/PackedDot.h) into an
    `scf.forall` over row chunks and column-panel groups whose body runs
    register tiles of up to 6 rows x 64 columns, per step of g k:
      - u8 x s8 -> i32, g = 4 (`int8`): 64-byte weight loads, a 4-byte
        broadcast of each row, `llvm.x86.avx512.vpdpbusd.512` (on AArch64
        with `arch=aarch64 vector-bits=128`: 16-byte loads and
        `llvm.aarch64.neon.usdot.v4i32.v16i8`, 4 columns per vector; with
        `int8-signed`, `sdot` on the rows moved to s8);
      - bf16 x bf16 -> f32, g = 2 (`bf16`): 32-element weight loads, a pair
        broadcast of each row, `llvm.x86.avx512bf16.dpbf16ps.512`;
      - f32 x f16 -> f32, g = 1: 16 f16 weights widened to f32 as they are
        loaded, a broadcast row element, `vector.fma`.
    A `linalg.fill` of zero just before the product, or a copy of a
    zero-filled buffer that only copies read (products whose fills CSE
    merged), is dropped: the tiles start from zero. The elementwise
    epilogue that reads the product next (per-column parameters, and whole
    [M, N] operands such as a residual) is applied to the accumulators in
    registers, its result stored directly, unless its output may share
    bytes with the product's rows or something reads the product after
    it. Runs before `kiln-cpu-tile-and-
    vectorize`; needs `vector-bits=512` (AVX-512), or 128 on AArch64 for
    the 8-bit product, and does nothing otherwise; the forms whose
    instruction is off stay linalg.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "0",
           "Width of the target's vectors (the kernel needs 512)">,
    Option<"arch", "arch", "std::string", "\"x86_64\"",
           "x86_64 (AVX-512 kernels) or aarch64 (NEON: the 8-bit product "
           "with usdot at vector-bits=128)">,
    Option<"int8", "int8", "bool", "false",
           "The target has the 8-bit dot product (x86 vpdpbusd, AVX-512 "
           "VNNI; AArch64 usdot, i8mm)">,
    Option<"int8Signed", "int8-signed", "bool", "false",
           "The 8-bit dot product multiplies s8 by s8 (AArch64 sdot, "
           "dotprod, without i8mm): rows are read as x - 128 and the sums "
           "start from 128 * the weight's column sums">,
    Option<"bf16", "bf16", "bool", "false",
           "The target has vdpbf16ps (AVX-512 BF16)">,
    Option<"amx", "amx", "bool", "false",
           "The target has AMX tiles (amx-tile, amx-bf16, amx-int8): the "
           "int8 and bf16 products run as tile multiplies (AmxTiles.cpp)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::amx::AMXDialect",
                           "mlir::linalg::LinalgDialect"];
}

def StoreBoolsAsBytes : Pass<"kiln-cpu-store-bools-as-bytes", "mlir::ModuleOp"> {
  let summary = "Load and store vectors of i1 as one byte per element";
  let description = [{
    Runs on the LLVM dialect. kiln's bool tensors hold one byte per element
    (the ABI's KILN_DTYPE_BOOL), and scalar `i1` loads and stores already
    touch one byte. LLVM packs an `<N x i1>` vector into N bits in memory, so
    a vectorized compare that stored its mask directly wrote bits where the
    tensor has bytes (wrong results at every vector width where the
    vectorizer produced such stores). This pass widens the memory side of
    every vector-of-i1 `llvm.load`, `llvm.store`, masked load/store, gather
    and scatter to `<N x i8>`: `zext` before a store, `icmp ne 0` after a
    load, with the byte alignment of the element.
  }];
}

#endif // KILN_LOWERING_CPU_PASSES
