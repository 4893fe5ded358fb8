//===- ConstantData.h - Reading and creating constant tensors ---*- C++ -*-===//
//
// Graph passes that compute on weights at compile time read constants stored
// either inline (DenseElementsAttr) or as resource blobs from the importer
// (DenseResourceElementsAttr), and create their results the same way.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_DIALECTS_GRAPH_CONSTANTDATA_H
#define KILN_DIALECTS_GRAPH_CONSTANTDATA_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace kiln {

/// Tensors up to this many elements are created inline, larger ones as
/// resource blobs; the importer uses the same bound, so folders and shape
/// inference can read the small ones.
constexpr int64_t kMaxInlineConstantElements = 64;

/// The raw bytes of a constant tensor of a byte-addressable int or float
/// element type. A splat stores one element.
struct ConstantData {
  mlir::RankedTensorType type;
  llvm::ArrayRef<char> bytes;
  bool splat = false;
  int64_t elementBytes = 0;

  int64_t getNumElements() const { return type.getNumElements(); }
  const char *getElement(int64_t i) const {
    return bytes.data() + (splat ? 0 : i * elementBytes);
  }
  /// Element `i` converted to double (ints by their signedness).
  double getDouble(int64_t i) const;
  /// All elements as doubles.
  std::vector<double> getDoubles() const;
};

/// The data of `attr`, or nullopt for i1, sub-byte, non-numeric element types,
/// dynamic shapes, and resources whose blob is missing or has a wrong size.
std::optional<ConstantData> getConstantData(mlir::ElementsAttr attr);
/// The data of the constant defining `v`, if any.
std::optional<ConstantData> getConstantData(mlir::Value v);

/// Stores `value` rounded to float type `elt` at `dst`.
void storeDouble(mlir::FloatType elt, double value, char *dst);

/// A constant of `type` holding `bytes` (one element per
/// type.getElementTypeBitWidth()/8 bytes): inline when small or a splat,
/// otherwise a resource blob whose name starts with `nameHint`.
mlir::ElementsAttr createConstantAttr(mlir::RankedTensorType type,
                                      llvm::ArrayRef<char> bytes,
                                      llvm::StringRef nameHint);
/// As above from doubles, rounded to the float element type of `type`.
mlir::ElementsAttr createFloatConstantAttr(mlir::RankedTensorType type,
                                           llvm::ArrayRef<double> values,
                                           llvm::StringRef nameHint);

/// Calls `fn(out, in)` for every element of `shape` in row-major order, `in`
/// holding one linear index per input: offsets[k] plus, for each output dim
/// d, its coordinate times strides[k][d].
void forEachStridedIndex(
    llvm::ArrayRef<int64_t> shape,
    llvm::ArrayRef<llvm::SmallVector<int64_t>> strides,
    llvm::ArrayRef<int64_t> offsets,
    llvm::function_ref<void(int64_t, llvm::ArrayRef<int64_t>)> fn);

/// As above, `in` being the linear index into each of `inputs` after
/// broadcasting (size-1 or missing leading dims repeat) or, with `perm`,
/// transposition (output dim d reads input dim perm[d]).
void forEachIndex(
    llvm::ArrayRef<int64_t> shape,
    llvm::ArrayRef<mlir::RankedTensorType> inputs, llvm::ArrayRef<int64_t> perm,
    llvm::function_ref<void(int64_t, llvm::ArrayRef<int64_t>)> fn);

/// A resource blob name hint derived from the attribute a value was computed
/// from, so folded weights stay recognisable in dumps.
std::string deriveBlobName(mlir::ElementsAttr from, llvm::StringRef suffix);

} // namespace kiln

#endif // KILN_DIALECTS_GRAPH_CONSTANTDATA_H
