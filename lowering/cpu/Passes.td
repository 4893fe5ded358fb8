//===- Passes.td - CPU code-generation passes ---------------*- tablegen -*-===//
#ifndef KILN_LOWERING_CPU_PASSES
#define KILN_LOWERING_CPU_PASSES

include "mlir/Pass/PassBase.td"

def ConvToIm2Col : Pass<"kiln-cpu-conv-to-im2col", "mlir::func::FuncOp"> {
  let summary = "Rewrite 2-D convolutions as im2col plus a contraction";
  let description = [{
    On tensors, rewrites `linalg.conv_2d_nchw_fchw` and
    `linalg.conv_2d_nhwc_hwcf` into an im2col gather and a matmul-shaped
    contraction, so that the contraction schedule of
    `kiln-cpu-tile-and-vectorize` serves convolutions too. A 1x1
    convolution with unit strides needs no gather. A batch-1 convolution
    whose im2col matrix would not stay in cache is split into blocks of
    output rows under an `scf.forall`: each chunk gathers one block at a
    time into its own scratch tile of at most `block-bytes` and multiplies
    it while it is in cache.
  }];
  let options = [
    Option<"blockBytes", "block-bytes", "int64_t", /*default=*/"393216",
           "Largest im2col tile of a blocked convolution; 0 disables "
           "blocking">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"16",
           "Parallel chunks (each with its own scratch tile) of a blocked "
           "convolution">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect",
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
    an outer `scf.forall` over their leading parallel dims. Zero-valued
    options take a heuristic default from `vector-bits`. A `kiln.schedule`
    dictionary on a contraction (tile_m, tile_n, tile_k, reg_m, reg_n,
    reg_k) overrides the options for that op; tuned schedules go there.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "Vector register width the register tile is sized for">,
    Option<"tileM", "tile-m", "int64_t", "0", "Cache block rows (M)">,
    Option<"tileN", "tile-n", "int64_t", "0", "Cache block columns (N)">,
    Option<"tileK", "tile-k", "int64_t", "0", "Cache block depth (K)">,
    Option<"regM", "reg-m", "int64_t", "0", "Register tile rows">,
    Option<"regN", "reg-n", "int64_t", "0", "Register tile columns">,
    Option<"regK", "reg-k", "int64_t", "1",
           "K elements per innermost step (unroll)">,
    Option<"parallel", "parallel", "bool", "true",
           "Emit scf.forall outer loops for threads">,
    Option<"minParallelWork", "min-parallel-work", "int64_t", "32768",
           "Smallest iteration-space size worth splitting across threads">,
    Option<"packRowBytes", "pack-row-bytes", "int64_t", "8192",
           "Pack B micro-panels whose rows are at least this many bytes "
           "apart (0: never)">,
    Option<"packARowBytes", "pack-a-row-bytes", "int64_t", "0",
           "Pack A blocks whose rows are at least this many bytes apart "
           "(0: never)">
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
    so that `convert-vector-to-llvm` only sees 1-D vector operations.
  }];
  let dependentDialects = ["mlir::vector::VectorDialect",
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
  }];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::func::FuncDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
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
    which leaves ops inside an `scf.forall` alone. Other forms, and every
    op when vector-bits is below 128, stay linalg.
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", "256",
           "Vector register width; VL = vector-bits / 32 lanes">,
    Option<"parallel", "parallel", "bool", "true",
           "Emit an scf.forall over (batch, channel) for threads">,
    Option<"minParallelWork", "min-parallel-work", "int64_t", "32768",
           "Smallest iteration-space size worth splitting across threads">
  ];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::vector::VectorDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
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
