//===- KernelAttrs.td - kiln.kernel attributes -------------*- tablegen -*-===//
#ifndef KILN_KERNEL_ATTRS
#define KILN_KERNEL_ATTRS

include "dialects/kernel/KernelDialect.td"
include "mlir/IR/AttrTypeBase.td"

def Kernel_CpuScheduleAttr : AttrDef<Kernel_Dialect, "CpuSchedule"> {
  let mnemonic = "cpu_schedule";
  let summary = "How the CPU backend runs one op";
  let description = [{
    Written on a linalg op by `kiln-cpu-select-schedule` (as the
    `kiln.schedule` attribute; the function's `kiln.default_schedule` holds
    the one for ops without their own) and only read by the passes that
    apply it. Every field is also a key of `kiln compile --schedule` and of
    the schedule files (`--schedule-file`), with the same name.

    - `strategy`: the kernel path. `contraction` (cache blocks and a
      register-tile kernel), `im2col` and `blocked_im2col` (convolutions as
      a gather plus the contraction kernel; blocked gathers one cache-sized
      block of output rows at a time), `winograd_f4` and `winograd_f2` (3x3
      stride-1 convolutions as Winograd F(4x4,3x3) or F(2x2,3x3): input and
      output transforms around one contraction per transformed tap, the
      filter transformed at compile time), `direct` (the convolution as it is:
      scalar loops), `depthwise` (the depthwise vector kernel), `rows` (vector
      rows for elementwise ops and innermost reductions), `scalar`.
    - `vector_bits`: register width the tiles are sized for (0: no vector
      unit; vectors then lower to scalar code).
    - `tile_m`, `tile_n`, `tile_k`: contraction cache blocks;
      `reg_m`, `reg_n`, `reg_k`: its register tile (rows, lanes, K unroll).
    - `pack_row_bytes`, `pack_a_row_bytes`: pack B micro-panels (A blocks)
      whose rows are at least this many bytes apart; 0 never packs. Whole
      B panels whose rows are closer but not a whole number of cache lines
      apart are packed too (their loads would straddle lines).
      `pack_min_reuse`, `pack_a_min_reuse`: pack them only when at least this
      many register tiles read the copy (B panel: along M; A block: along
      N), since a copy read once costs more than it saves.
    - `threads`: parallel chunks to split the op into (0: one thread; a
      depthwise convolution runs one chunk per channel when it is not 0);
      `min_parallel_work`: iterations of the op's loop nest (multiply-adds
      for contractions and convolutions) below which it stays on one thread.
    - `block_bytes`: the im2col scratch tile of `blocked_im2col`.
    - `accumulators`: vector accumulators of a `depthwise` register tile.
    - `loop_order`: the contraction kernel's register-tile loops. 1 (and 0,
      the default when left out): columns outer, one B micro-panel under all
      the rows of the block; 2: rows outer, one A panel along all the
      columns, each output row written in one run (for a short K, whose B
      block stays in L1 anyway).
  }];
  let parameters = (ins
    StringRefParameter<"kernel path">:$strategy,
    "int64_t":$vector_bits,
    "int64_t":$tile_m, "int64_t":$tile_n, "int64_t":$tile_k,
    "int64_t":$reg_m, "int64_t":$reg_n, "int64_t":$reg_k,
    "int64_t":$pack_row_bytes, "int64_t":$pack_a_row_bytes,
    "int64_t":$pack_min_reuse, "int64_t":$pack_a_min_reuse,
    "int64_t":$threads, "int64_t":$min_parallel_work,
    "int64_t":$block_bytes, "int64_t":$accumulators,
    DefaultValuedParameter<"int64_t", "0">:$loop_order
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The strategies a schedule may name.
    static llvm::ArrayRef<llvm::StringRef> getStrategies();
    /// True for the strategies that run the contraction kernel.
    bool usesContractionKernel() const;
  }];
}

#endif // KILN_KERNEL_ATTRS
