//===- Passes.td - Bufferization-level kiln passes ----------*- tablegen -*-===//
#ifndef KILN_LOWERING_BUFFERIZATION_PASSES
#define KILN_LOWERING_BUFFERIZATION_PASSES

include "mlir/Pass/PassBase.td"

def PlanMemory : Pass<"kiln-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place static intermediate buffers in one arena";
  let description = [{
    Static memory plan for the entry function (`kiln_entry`): every
    statically shaped `memref.alloc` in its top-level block gets a lifetime
    (from the alloc to the last top-level op using it or a view of it) and an
    offset in one arena, such that buffers whose lifetimes overlap do not
    overlap in memory (greedy best-fit, largest first). Allocs become
    `memref.view`s of a new trailing `memref<?xi8>` argument (marked
    `kiln.arena`). The arena size
    and the max-live lower bound are recorded on the module as
    `kiln.arena_bytes` and `kiln.arena_lower_bound`. A static alloc directly
    in the body of a top-level `scf.forall` (a per-iteration scratch buffer)
    gets one slot per iteration, indexed by the linearized induction
    variables, so concurrent iterations never share memory.

    With `symbolic-sizes`, a dynamically shaped top-level alloc whose extents
    are computed from the dims of the entry's arguments alone (pure ops, no
    loaded data) is placed too, above the static buffers: its size and
    offset are computed on entry, and a new function `kiln_entry_arena_bytes`
    (the entry's arguments without the arena -> index) computes the arena
    size a run needs. Other dynamic buffers (data-dependent extents, loop
    scratch, run-time outputs) are left to the allocator.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "64",
           "Byte alignment of every buffer in the arena">,
    Option<"symbolicSizes", "symbolic-sizes", "bool", "false",
           "Also place buffers whose sizes are computed from argument dims">
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def CopyToLinalg : Pass<"kiln-copy-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Rewrite memref.copy as linalg.copy";
  let description = [{
    memref.copy between non-contiguous views lowers to a call into MLIR's
    C runner library, which model libraries do not link. linalg.copy lowers
    to plain loops like every other linalg op.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def ExpandShapeToReinterpretCast
    : Pass<"kiln-expand-shape-to-reinterpret-cast", "mlir::func::FuncOp"> {
  let summary = "Contiguous memref.expand_shape with several dynamic dims "
                "per group as memref.reinterpret_cast";
  let description = [{
    MLIR 22's expand-strided-metadata crashes on a memref.expand_shape whose
    reassociation group holds more than one dynamic dim (a Reshape to a
    shape computed at run time). Where the source is contiguous (identity
    layout), the expanded view is the same buffer with row-major strides of
    the output shape: a reinterpret_cast with those sizes and strides says
    so directly and needs no stride arithmetic from the pass.
  }];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def UnshareInitializers
    : Pass<"kiln-unshare-initializers", "mlir::func::FuncOp"> {
  let summary = "One fill or broadcast per op that writes into it";
  let description = [{
    A linalg.fill or linalg.broadcast (of constants) on tensors whose result
    several ops use, one of them or more as their destination (the init of a
    linalg op, the dest of tensor.insert_slice), is cloned right before each
    such op. CSE merges equal initializers (zero fills of padded inputs,
    equal bias broadcasts); bufferized shared, each destination would get a
    copy of the shared buffer. Runs after the last CSE before bufferization.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def NestInsertedTensors
    : Pass<"kiln-nest-inserted-tensors", "mlir::func::FuncOp"> {
  let summary = "A tensor inserted into a slice of another is built there";
  let description = [{
    Where a tensor.insert_slice (static offsets, unit strides) inserts a
    value built by inserts into a tensor.empty, the empty becomes an
    extract_slice of the outer destination, outer inserts first. A chain of
    concats then bufferizes into one buffer, without copies.
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def MarkPadInteriors
    : Pass<"kiln-mark-pad-interiors", "mlir::func::FuncOp"> {
  let summary = "Record on a padding fill the interior its insert overwrites";
  let description = [{
    `tensor.insert_slice %x into (linalg.fill %v into tensor.empty)` with
    static shapes, offsets and unit strides, the fill's only use: the fill
    gets `kiln.pad_interior`, the insert's offsets then sizes, for
    kiln-fill-pad-borders.
  }];
}

def FillPadBorders : Pass<"kiln-fill-pad-borders", "mlir::func::FuncOp"> {
  let summary = "Padding fills only the border around the written interior";
  let description = [{
    On buffers: a `linalg.fill` of a whole static buffer marked with
    `kiln.pad_interior` becomes fills of the slabs around that interior,
    which the insert it was made for writes whole, so that the padded buffer
    is written once rather than filled whole and then overwritten inside.
    The slabs go after the first op that touches the buffer after the fill
    (the interior's writer), where a depthwise kernel finds them.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

#endif // KILN_LOWERING_BUFFERIZATION_PASSES
