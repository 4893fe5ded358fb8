//===- DotProduct.h - Packed products for dot-product kernels ---*- C++ -*-===//
//
// The product with packed weights of lowering/to-linalg/PackedDot.h as the
// CPU dot kernels find it on buffers, and the elementwise epilogue after it
// that they apply before anything is stored. Shared by the vector register
// tiles (DotKernel.cpp) and the AMX tiles (AmxTiles.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_CPU_DOTPRODUCT_H
#define KILN_LOWERING_CPU_DOTPRODUCT_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace kiln::cpu {

/// The instruction a product maps to (see DotKernel.cpp).
enum class DotKind { Int8, BF16, F16 };

/// The static operands of a product the kernel takes.
struct DotShape {
  DotKind kind;
  int64_t m, kg, np, g;
  mlir::Value a, b, c; // [M, Kg, g], [Kg, Np, g], [M, Np]
};

/// The product `op` is, when its element types and layout are one of the
/// kinds and its instruction is on (`int8`, `bf16`; f16 needs none).
std::optional<DotShape> matchDot(mlir::linalg::GenericOp op, bool int8,
                                 bool bf16);

/// The elementwise op after the product that reads its i32 result (all of
/// it, or its first N columns through a subview) with per-column
/// parameters: the requantization epilogue of QuantizedContraction.cpp. The
/// tiles apply it to their accumulators and store its result instead, so
/// the i32 product never goes to memory.
struct Epilogue {
  mlir::linalg::GenericOp op;
  int64_t n;         // columns written
  mlir::Value out;   // [M, N] f32 or i8, unit stride along N
  unsigned accIndex; // the input that is the product
};

/// The epilogue that reads the product `dot` next and may be applied to
/// its values before they are stored: nothing else reads the product, and
/// its output shares no bytes with the product's rows.
std::optional<Epilogue> matchEpilogue(mlir::linalg::GenericOp dot,
                                      const DotShape &s);

/// True when `a` and `b` ([M, N] buffers) share no bytes, or are the same
/// bytes element for element (an elementwise op may then read one and write
/// the other).
bool disjointOrSame(mlir::Value a, mlir::Value b);

/// True when `c` holds zeros when `op` runs: the last op before it to touch
/// `c` fills it with zero, or copies a buffer that was filled with zero and
/// only read since. That fill or copy is erased: the kernel starts its sums
/// from zero instead.
bool takeZeroStart(mlir::RewriterBase &rewriter, mlir::Operation *op,
                   mlir::Value c);

/// The epilogue's body on the accumulator vectors `acc(r, v)` (`lanes`
/// 32-bit lanes) of rows `rows` and column vectors starting at `cols`, its
/// results stored to the epilogue's output; columns past N are masked off.
void storeEpilogueOnVectors(
    mlir::OpBuilder &b, mlir::Location loc, const Epilogue &epilogue,
    int64_t lanes, llvm::ArrayRef<mlir::Value> rows,
    llvm::ArrayRef<mlir::Value> cols,
    llvm::function_ref<mlir::Value(int64_t, int64_t)> acc);

/// The product `s` as AMX tile multiplies (AmxTiles.cpp) at the builder's
/// insertion point, then `epilogue`; the sums start from zero (`zeroInit`)
/// or from the product's buffer. `threads`: its blocks may run on the
/// thread pool.
void emitAmxProduct(mlir::RewriterBase &b, mlir::Location loc,
                    const DotShape &s, bool zeroInit,
                    std::optional<Epilogue> epilogue, bool threads);

} // namespace kiln::cpu

#endif // KILN_LOWERING_CPU_DOTPRODUCT_H
