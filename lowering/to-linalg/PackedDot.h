//===- PackedDot.h - Products with weights packed for dot tiles -*- C++ -*-===//
//
// A contraction with a constant weight, written as the form the CPU dot
// kernel (kiln-cpu-dot-kernel) turns into register tiles:
//
//   A    [M, Kp]           rows: the input itself or its im2col gather
//   Wp   [Kp/g, Np, g]     constant: g consecutive k of a column side by
//                          side, columns padded to 16, k to g
//   acc  [M, Np]           sum over (k/g, k%g) of A[m, k] * W[k, n]
//
// with g the elements one lane of the instruction consumes: 4 for u8 x i8
// into i32 (vpdpbusd), 2 for bf16 x bf16 into f32 (vdpbf16ps), 1 for f32
// rows times an f16 weight into f32 (the weight widened as it is loaded).
// Integer convs and matmuls (QuantizedContraction.cpp) and reduced-precision
// float ones (ReducedPrecision.cpp) share it.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LOWERING_TOLINALG_PACKEDDOT_H
#define KILN_LOWERING_TOLINALG_PACKEDDOT_H

#include "mlir/IR/Builders.h"

namespace kiln {

/// The weight as the dot kernel reads it.
struct PackedWeight {
  mlir::Value packed;  // [Kp/g, Np, g]
  int64_t kPadded = 0; // Kp
  int64_t nPadded = 0; // Np
  int64_t group = 1;   // g
};

/// Elements of `weightType` per lane of the dot instruction: i8 4, bf16 2,
/// f16 1.
int64_t getDotGroup(mlir::Type weightType);

/// Packs the K x N weight `w(k, n)`, rounded to `weightType` (i8, bf16 or
/// f16), as described in the file comment.
PackedWeight packDotWeight(mlir::OpBuilder &b, mlir::Location loc, int64_t k,
                           int64_t n, mlir::Type weightType,
                           llvm::function_ref<double(int64_t, int64_t)> w,
                           llvm::StringRef name);

/// `rows` ([M, Kp]) times the packed weight: [M, Np] i32 for 8-bit rows
/// (unsigned) and weights (signed), f32 for float ones.
mlir::Value buildDotProduct(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Value rows, const PackedWeight &w);

/// The first `n` columns of `acc` ([M, Np]), or `acc` when n = Np.
mlir::Value takeColumns(mlir::OpBuilder &b, mlir::Location loc, mlir::Value acc,
                        int64_t n);

/// `a` ([M, K]) with zero columns appended up to `kPadded`.
mlir::Value padColumns(mlir::OpBuilder &b, mlir::Location loc, mlir::Value a,
                       int64_t kPadded);

/// `x` ([..., K], static) as rows [M, K]: leading dims collapsed, a vector
/// one row.
mlir::Value toRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// Rows `y` ([M, N]) back to `type` ([..., N]), the inverse of toRows.
mlir::Value fromRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value y,
                     mlir::RankedTensorType type);

/// The rows of a channels-last 2-D convolution of the already padded `x`
/// ([N, H, W, C]): x itself for a 1x1 stride-1 filter, else its im2col
/// gather with k ordered (kh, kw, c). [N * OH * OW, KH * KW * C].
mlir::Value buildConvRows(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
                          int64_t kh, int64_t kw,
                          llvm::ArrayRef<int64_t> strides,
                          llvm::ArrayRef<int64_t> dilations, int64_t oh,
                          int64_t ow);

/// `x` with each element mapped by `fn` (null: kept), converted to `elt`,
/// and its dims permuted by `perm` (result dim d is dim perm[d] of x).
/// Returns `x` when there is nothing to do.
mlir::Value
mapAndPermute(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x,
              mlir::Type elt, llvm::ArrayRef<int64_t> perm,
              llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                             mlir::Value)>
                  fn = nullptr);

} // namespace kiln

#endif // KILN_LOWERING_TOLINALG_PACKEDDOT_H
