//===- ShapeInference.h - kiln.graph result-type inference ------*- C++ -*-===//
//
// Result-type inference for kiln.graph ops, following the ONNX shape
// inference rules. Each function validates what it reads (ranks, matching
// dims, attribute ranges) and reports problems at `loc`, so the same code
// serves the importer and the verifier. Dims that depend on non-constant
// inputs become dynamic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECTS_GRAPH_SHAPEINFERENCE_H
#define KILN_DIALECTS_GRAPH_SHAPEINFERENCE_H

#include "dialects/graph/GraphOps.h"

#include <optional>

namespace kiln::graph {

using Types = llvm::SmallVectorImpl<mlir::Type>;
using Loc = std::optional<mlir::Location>;

/// Integer values of `v` when it is produced by a constant, else nullopt.
std::optional<llvm::SmallVector<int64_t>> getConstantInts(mlir::Value v);
/// Floating-point values of `v` when it is produced by a constant.
std::optional<llvm::SmallVector<double>> getConstantFloats(mlir::Value v);
/// Values of an integer or float constant `v`, as doubles.
std::optional<llvm::SmallVector<double>> getConstantNumbers(mlir::Value v);
/// True when `v` is an absent optional input.
inline bool isNoValue(mlir::Value v) {
  return !v || llvm::isa<mlir::NoneType>(v.getType());
}
/// The ranked tensor type of `v`, or null.
inline mlir::RankedTensorType rankedOrNull(mlir::Value v) {
  return v ? llvm::dyn_cast<mlir::RankedTensorType>(v.getType())
           : mlir::RankedTensorType();
}
/// Normalizes a possibly negative ONNX axis; fails (and reports) if out of
/// range for `rank`.
mlir::FailureOr<int64_t> normalizeAxis(Loc loc, int64_t axis, int64_t rank);

mlir::LogicalResult inferSameAs(mlir::Value v, Types &types);
/// The shape of `v` with element type `elt`.
mlir::LogicalResult inferSameShape(mlir::Value v, mlir::Type elt, Types &types);
/// Multidirectional broadcast of `operands`. `resultElt` null means the
/// element type of operand `firstSameElt`; operands from `firstSameElt` on
/// must share one element type (-1: no check).
mlir::LogicalResult inferBroadcast(Loc loc,
                                   llvm::ArrayRef<mlir::Value> operands,
                                   mlir::Type resultElt, Types &types,
                                   int firstSameElt = 0);
mlir::FailureOr<llvm::SmallVector<int64_t>>
broadcastShapes(Loc loc, llvm::ArrayRef<int64_t> a, llvm::ArrayRef<int64_t> b);

mlir::LogicalResult inferCast(Loc loc, CastOp::Adaptor op, Types &types);
mlir::LogicalResult inferMatMul(Loc loc, MatMulOp::Adaptor op, Types &types);
mlir::LogicalResult inferEinsum(Loc loc, EinsumOp::Adaptor op, Types &types);
/// The extent of each Einsum label over `operands` (right after
/// parseEinsum): the static non-1 extent where one exists, else dynamic if
/// any is, else 1.
mlir::FailureOr<llvm::SmallVector<int64_t>>
getEinsumExtents(Loc loc, mlir::ValueRange operands,
                 llvm::ArrayRef<llvm::SmallVector<unsigned>> inputs,
                 unsigned numLabels);
mlir::LogicalResult inferGemm(Loc loc, GemmOp::Adaptor op, Types &types);
mlir::LogicalResult inferConv(Loc loc, ConvOp::Adaptor op, Types &types);
mlir::LogicalResult inferFusedConv(Loc loc, FusedConvOp::Adaptor op,
                                   Types &types);
mlir::LogicalResult inferFusedMatMul(Loc loc, FusedMatMulOp::Adaptor op,
                                     Types &types);
mlir::LogicalResult inferQuantizedConv(Loc loc, QuantizedConvOp::Adaptor op,
                                       Types &types);
mlir::LogicalResult inferQuantizedMatMul(Loc loc, QuantizedMatMulOp::Adaptor op,
                                         Types &types);
mlir::LogicalResult inferConvTranspose(Loc loc, ConvTransposeOp::Adaptor op,
                                       Types &types);
mlir::LogicalResult inferGlobalPool(Loc loc, mlir::Value x, Types &types);
mlir::LogicalResult inferBatchNorm(Loc loc, BatchNormalizationOp::Adaptor op,
                                   Types &types);
mlir::LogicalResult inferLayerNorm(Loc loc, LayerNormalizationOp::Adaptor op,
                                   Types &types);
mlir::LogicalResult inferAxisPreserving(Loc loc, mlir::Value x, int64_t axis,
                                        Types &types);

/// Spatial output extents shared by Conv and the pooling ops.
struct WindowParams {
  llvm::StringRef autoPad;
  llvm::ArrayRef<int64_t> kernel;
  std::optional<llvm::ArrayRef<int64_t>> strides, dilations, pads;
  bool ceilMode = false;
};
mlir::FailureOr<llvm::SmallVector<int64_t>>
inferWindowOutput(Loc loc, llvm::ArrayRef<int64_t> spatialIn,
                  const WindowParams &p);
/// Explicit begin/end pads of a window op after resolving auto_pad; needs
/// static spatial extents for SAME_*.
mlir::FailureOr<llvm::SmallVector<int64_t>>
resolvePads(Loc loc, llvm::ArrayRef<int64_t> spatialIn, const WindowParams &p);

mlir::LogicalResult inferPoolImpl(Loc loc, mlir::Value x, const WindowParams &p,
                                  Types &types);
template <typename Adaptor>
mlir::LogicalResult inferPool(Loc loc, Adaptor op, Types &types) {
  WindowParams p{op.getAutoPad(),   op.getKernelShape(), op.getStrides(),
                 op.getDilations(), op.getPads(),        op.getCeilMode() != 0};
  return inferPoolImpl(loc, op.getX(), p, types);
}

mlir::LogicalResult inferReduceImpl(Loc loc, mlir::Value data, mlir::Value axes,
                                    bool keepDims, bool noopWithEmptyAxes,
                                    Types &types);
template <typename Adaptor>
mlir::LogicalResult inferReduce(Loc loc, Adaptor op, Types &types) {
  return inferReduceImpl(loc, op.getData(), op.getAxes(), op.getKeepdims() != 0,
                         op.getNoopWithEmptyAxes() != 0, types);
}

/// ArgMax/ArgMin: `x`'s shape without (or with a 1 at) `axis`, int64.
mlir::LogicalResult inferArgReduce(Loc loc, mlir::Value x, int64_t axis,
                                   bool keepDims, Types &types);

/// The [start, end) dims Shape selects from a rank-`rank` input: negative
/// values count from the end, both are clamped to [0, rank].
std::pair<int64_t, int64_t> getShapeRange(int64_t rank,
                                          std::optional<int64_t> start,
                                          std::optional<int64_t> end);
mlir::LogicalResult inferShape(Loc loc, ShapeOp::Adaptor op, Types &types);
mlir::LogicalResult inferReshape(Loc loc, ReshapeOp::Adaptor op, Types &types);
mlir::LogicalResult inferFlatten(Loc loc, FlattenOp::Adaptor op, Types &types);
mlir::LogicalResult inferTranspose(Loc loc, TransposeOp::Adaptor op,
                                   Types &types);
mlir::LogicalResult inferConcat(Loc loc, ConcatOp::Adaptor op, Types &types);
mlir::LogicalResult inferSplit(Loc loc, SplitOp::Adaptor op, Types &types);
mlir::LogicalResult inferSlice(Loc loc, SliceOp::Adaptor op, Types &types);
mlir::LogicalResult inferGather(Loc loc, GatherOp::Adaptor op, Types &types);
mlir::LogicalResult inferSqueeze(Loc loc, SqueezeOp::Adaptor op, Types &types);
mlir::LogicalResult inferUnsqueeze(Loc loc, UnsqueezeOp::Adaptor op,
                                   Types &types);
mlir::LogicalResult inferExpand(Loc loc, ExpandOp::Adaptor op, Types &types);
mlir::LogicalResult inferPad(Loc loc, PadOp::Adaptor op, Types &types);
mlir::LogicalResult inferResize(Loc loc, ResizeOp::Adaptor op, Types &types);

// IndexingShapeInference.cpp
mlir::LogicalResult inferGatherElements(Loc loc, GatherElementsOp::Adaptor op,
                                        Types &types);
mlir::LogicalResult inferGatherND(Loc loc, GatherNDOp::Adaptor op,
                                  Types &types);
mlir::LogicalResult inferOneHot(Loc loc, OneHotOp::Adaptor op, Types &types);
mlir::LogicalResult inferEyeLike(Loc loc, EyeLikeOp::Adaptor op, Types &types);
mlir::LogicalResult inferRange(Loc loc, RangeOp::Adaptor op, Types &types);
/// Element count of Range(start, limit, delta): max(ceil((limit - start) /
/// delta), 0).
int64_t getRangeLength(double start, double limit, double delta);
mlir::LogicalResult inferConstantOfShape(Loc loc, ConstantOfShapeOp::Adaptor op,
                                         Types &types);
/// DepthToSpace (`toSpace`) or SpaceToDepth of an NCHW tensor.
mlir::LogicalResult inferBlockRearrange(Loc loc, mlir::Value x,
                                        int64_t blocksize, bool toSpace,
                                        Types &types);
mlir::LogicalResult inferTile(Loc loc, TileOp::Adaptor op, Types &types);
/// RNN/GRU/LSTM: Y, then `numStates` state outputs (Y_h, Y_c).
mlir::LogicalResult inferRecurrent(Loc loc, mlir::Value x, mlir::Value r,
                                   llvm::StringRef direction,
                                   std::optional<uint64_t> hiddenSize,
                                   int64_t layout, int numStates, Types &types);
mlir::LogicalResult inferGridSample(Loc loc, GridSampleOp::Adaptor op,
                                    Types &types);
mlir::LogicalResult inferTopK(Loc loc, TopKOp::Adaptor op, Types &types);

// DataDependentShapeInference.cpp
mlir::LogicalResult inferNonZero(Loc loc, NonZeroOp::Adaptor op, Types &types);
mlir::LogicalResult inferCompress(Loc loc, CompressOp::Adaptor op,
                                  Types &types);
mlir::LogicalResult inferUnique(Loc loc, UniqueOp::Adaptor op, Types &types);
mlir::LogicalResult
inferNonMaxSuppression(Loc loc, NonMaxSuppressionOp::Adaptor op, Types &types);

/// Computed static bounds of a Slice along every axis of `shape`, following
/// ONNX clamping rules. Needs constant starts/ends/axes/steps.
struct SliceBounds {
  llvm::SmallVector<int64_t> starts, steps, sizes;
};
mlir::FailureOr<SliceBounds> computeSliceBounds(Loc loc, SliceOp::Adaptor op);

} // namespace kiln::graph

#endif // KILN_DIALECTS_GRAPH_SHAPEINFERENCE_H
