//===- Passes.td - GPU code-generation passes ---------------*- tablegen -*-===//
#ifndef KILN_LOWERING_GPU_PASSES
#define KILN_LOWERING_GPU_PASSES

include "mlir/Pass/PassBase.td"

def MarkHostArguments : Pass<"kiln-gpu-mark-host-arguments",
                             "mlir::func::FuncOp"> {
  let summary = "Mark the entry arguments whose data the device must read";
  let description = [{
    Before bufferization the entry's graph inputs are tensors and its
    outputs caller memrefs (kiln-outputs-to-destinations); bufferization
    makes both memrefs. This pass records which is which as the unit
    argument attribute `kiln.gpu.copy_in`, so that kiln-gpu-device-memory
    copies inputs to the device and only outputs back.
  }];
}

def DeviceMemory : Pass<"kiln-gpu-device-memory", "mlir::func::FuncOp"> {
  let summary = "Put every buffer of the entry function in device memory";
  let description = [{
    The entry function runs on the host with host buffers; its kernels read
    device memory. This pass gives every argument a device copy
    (`gpu.alloc`, a `gpu.memcpy` in for `kiln.gpu.copy_in` arguments, one
    out before each return for the others), turns host-level `memref.alloc`,
    `memref.alloca` and `memref.dealloc` into `gpu.alloc` / `gpu.dealloc`,
    gives the static plan's arena (`kiln.arena`) a device block,
    and replaces each `memref.get_global` (a weight) by its device copy,
    obtained once per global at the function's start from the launcher
    (`kiln_gpu_constant_*`: kiln_rt uploads a weight once per context and
    keeps it for later runs).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect"];
}

def MapToGpu : Pass<"kiln-gpu-map-to-gpu", "mlir::func::FuncOp"> {
  let summary = "Run every loop nest of the host function as a GPU kernel";
  let description = [{
    Each outermost `scf.parallel` becomes a `gpu.launch` over its iteration
    space, linearized so that the innermost loop varies fastest across the
    threads of a warp (coalesced accesses for row-major buffers): thread
    `i` of the grid runs iteration `delinearize(i)`, the threads past the
    trip count do nothing, and loops nested in the body (reductions) run in
    each thread. Host-level ops that still touch memory (scalar loads and
    stores, sequential loop nests) run in a one-thread launch. A scalar load
    whose value only kernels use is moved into those kernels; one whose
    value decides host control flow is an error naming the node.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t", "256",
           "Threads of each block of a mapped loop nest">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect"];
}

def TensorCoreMatmul : Pass<"kiln-gpu-tensor-core-matmul",
                            "mlir::func::FuncOp"> {
  let summary = "Run f32 matrix products on tensor cores in TF32";
  let description = [{
    Rewrites `linalg.matmul` and `linalg.batch_matmul` on f32 buffers whose
    M and N are multiples of 16 and K of 8 (static shapes, unit inner
    strides) into a `gpu.launch` of warp-level MMA: blocks of 4 warps own
    64x64 tiles of C, each warp a 32x32 tile as 2x2 accumulators of 16x16,
    stepping K by 8 with `gpu.subgroup_mma_*` ops (WMMA m16n16k8 in TF32
    inputs with f32 accumulation, `wmma.mma.sync` in PTX). C's prior value
    is the first accumulator, as linalg.matmul accumulates. Warps whose
    tile lies past M or N read an in-bounds tile and store nothing. Other
    products are left to kiln-gpu-map-to-gpu. Only run when the compile
    allows TF32 (`--precision tf32`): inputs keep 10 mantissa bits.
    Convolutions reach it as products (kiln-gpu-conv-to-matmul).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def EmulateOnHost : Pass<"kiln-gpu-emulate-on-host", "mlir::ModuleOp"> {
  let summary = "Run the mapped kernels as host loops (checking without a GPU)";
  let description = [{
    For `kiln compile --emulate-device`: each `gpu.launch` becomes loops
    over its blocks and threads running the body in order, device buffers
    become host buffers (`gpu.alloc` / `gpu.dealloc` / `gpu.memcpy` to
    memref alloc, dealloc and copy) and weight uploads return the weight
    itself. The result is a CPU library computing exactly what the kernels
    compute, which the node suite can check against its references where no
    GPU is present. Kernels with warp-level or shared-memory operations
    (tensor cores, barriers) cannot run this way and are an error.
  }];
  let dependentDialects = ["mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect"];
}

def BlockReductions : Pass<"kiln-gpu-block-reductions", "mlir::func::FuncOp"> {
  let summary = "Reductions as one block per output element";
  let description = [{
    A linalg op on buffers with one reduction loop of at least
    `min-extent` iterations (or a dynamic one) and one output, whose body
    combines a value computed from the inputs into the output with a
    commutative combiner (add, mul, min, max, and, or, xor), becomes a
    `gpu.launch` with one block per output element: each thread folds a
    strided share of the reduction into a partial, `gpu.all_reduce`
    combines the block's partials (warp shuffles and shared memory in
    PTX), and thread 0 combines the result with the output's prior value.
    Softmax's max and sum, LayerNorm's moments and the Reduce* ops take
    this path; other ops are left to kiln-gpu-map-to-gpu.
  }];
  let options = [
    Option<"minExtent", "min-extent", "int64_t", "128",
           "Smallest static reduction extent worth a block">
  ];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::scf::SCFDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::memref::MemRefDialect"];
}

def ConvToMatmul : Pass<"kiln-gpu-conv-to-matmul", "mlir::func::FuncOp"> {
  let summary = "Single-image convolutions as im2col plus a matrix product";
  let description = [{
    On tensors, for `--precision tf32`: a static f32 `linalg.conv_2d_nchw_fchw`
    of batch 1 becomes an im2col `linalg.generic` (col[c*KH*KW + kh*KW + kw,
    oh*OW + ow] = x[0, c, oh*sh + kh*dh, ow*sw + kw*dw]) and a
    `linalg.matmul` of the weights viewed as [F, C*KH*KW] with it, into the
    output viewed as [F, OH*OW], so that kiln-gpu-tensor-core-matmul can
    put the convolution on tensor cores.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::arith::ArithDialect"];
}

def SplitRaggedMatmul : Pass<"kiln-gpu-split-ragged-matmul",
                             "mlir::func::FuncOp"> {
  let summary = "Split products into a tensor-core-aligned part and edges";
  let description = [{
    For `--precision tf32`: a static f32 `linalg.matmul` on buffers whose M
    or N is not a multiple of 16, or K not of 8, becomes up to four
    products on subviews: the aligned block C[0:M', 0:N'] += A[0:M', 0:K']
    B[0:K', 0:N'] (M', N', K' rounded down), which
    kiln-gpu-tensor-core-matmul takes, then the K remainder onto the same
    block, the remaining columns and the remaining rows, which run as
    ordinary kernels. ResNet's 14x14 and 7x7 convolutions (196 and 49
    output columns) get most of their work onto tensor cores this way.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def MergeKernelModules : Pass<"kiln-gpu-merge-kernel-modules",
                              "mlir::ModuleOp"> {
  let summary = "Put every outlined kernel in one gpu.module";
  let description = [{
    gpu-kernel-outlining makes one `gpu.module` per kernel, which would
    become one PTX image (and one driver JIT and module load) per kernel.
    This pass moves every kernel into the first module, renaming a kernel
    whose name is taken, and points each `gpu.launch_func` at its new home:
    a library carries one PTX image.
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect"];
}

#endif // KILN_LOWERING_GPU_PASSES
