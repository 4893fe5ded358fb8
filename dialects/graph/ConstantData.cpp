//===- ConstantData.cpp - Reading and creating constant tensors -----------===//

#include "dialects/graph/ConstantData.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

using namespace mlir;

namespace kiln {

double ConstantData::getDouble(int64_t i) const {
  const char *p = getElement(i);
  Type elt = type.getElementType();
  if (elt.isF32()) {
    float f;
    std::memcpy(&f, p, sizeof f);
    return f;
  }
  if (elt.isF64()) {
    double d;
    std::memcpy(&d, p, sizeof d);
    return d;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, p, elementBytes);
  unsigned width = elementBytes * 8;
  if (auto ft = dyn_cast<FloatType>(elt)) {
    APFloat v(ft.getFloatSemantics(), APInt(width, bits));
    bool lost;
    v.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &lost);
    return v.convertToDouble();
  }
  APInt v(width, bits);
  return cast<IntegerType>(elt).isUnsigned() ? (double)v.getZExtValue()
                                             : (double)v.getSExtValue();
}

std::vector<double> ConstantData::getDoubles() const {
  std::vector<double> out(getNumElements());
  for (int64_t i = 0, e = out.size(); i < e; ++i)
    out[i] = getDouble(i);
  return out;
}

std::optional<ConstantData> getConstantData(ElementsAttr attr) {
  auto type = dyn_cast<RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  Type elt = type.getElementType();
  if (!isa<FloatType, IntegerType>(elt))
    return std::nullopt;
  unsigned width = elt.getIntOrFloatBitWidth();
  if (width % 8 != 0 || width > 64)
    return std::nullopt;
  ConstantData data;
  data.type = type;
  data.elementBytes = width / 8;
  if (auto dense = dyn_cast<DenseElementsAttr>(attr)) {
    data.bytes = dense.getRawData();
    data.splat = dense.isSplat();
  } else if (auto res = dyn_cast<DenseResourceElementsAttr>(attr)) {
    const AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob)
      return std::nullopt;
    data.bytes = blob->getData();
  } else {
    return std::nullopt;
  }
  int64_t want = data.splat ? data.elementBytes
                            : data.elementBytes * type.getNumElements();
  if ((int64_t)data.bytes.size() != want)
    return std::nullopt;
  return data;
}

std::optional<ConstantData> getConstantData(Value v) {
  ElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)))
    return std::nullopt;
  return getConstantData(attr);
}

void storeDouble(FloatType elt, double value, char *dst) {
  if (elt.isF32()) {
    float f = (float)value;
    std::memcpy(dst, &f, sizeof f);
    return;
  }
  if (elt.isF64()) {
    std::memcpy(dst, &value, sizeof value);
    return;
  }
  APFloat v(value);
  bool lost;
  v.convert(elt.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
  uint64_t bits = v.bitcastToAPInt().getZExtValue();
  std::memcpy(dst, &bits, elt.getWidth() / 8);
}

ElementsAttr createConstantAttr(RankedTensorType type, ArrayRef<char> bytes,
                                StringRef nameHint) {
  size_t elementBytes = type.getElementTypeBitWidth() / 8;
  assert(bytes.size() == elementBytes * type.getNumElements() &&
         "buffer does not match the type");
  bool splat = true;
  for (size_t off = elementBytes; splat && off < bytes.size();
       off += elementBytes)
    splat = std::memcmp(bytes.data(), bytes.data() + off, elementBytes) == 0;
  if (splat && !bytes.empty())
    return DenseElementsAttr::getFromRawBuffer(type,
                                               bytes.take_front(elementBytes));
  if (type.getNumElements() <= kMaxInlineConstantElements)
    return DenseElementsAttr::getFromRawBuffer(type, bytes);
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      bytes, std::max<size_t>(elementBytes, 16), /*dataIsMutable=*/true);
  return DenseResourceElementsAttr::get(type, nameHint, std::move(blob));
}

ElementsAttr createFloatConstantAttr(RankedTensorType type,
                                     ArrayRef<double> values,
                                     StringRef nameHint) {
  auto elt = cast<FloatType>(type.getElementType());
  size_t elementBytes = elt.getWidth() / 8;
  std::vector<char> bytes(values.size() * elementBytes);
  for (size_t i = 0; i < values.size(); ++i)
    storeDouble(elt, values[i], bytes.data() + i * elementBytes);
  return createConstantAttr(type, bytes, nameHint);
}

void forEachStridedIndex(
    ArrayRef<int64_t> shape, ArrayRef<SmallVector<int64_t>> strides,
    ArrayRef<int64_t> offsets,
    llvm::function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  int64_t rank = shape.size(), n = strides.size();
  int64_t total = ShapedType::getNumElements(shape);
  SmallVector<int64_t> coord(rank, 0), index(n, 0);
  if (!offsets.empty())
    index.assign(offsets.begin(), offsets.end());
  for (int64_t linear = 0; linear < total; ++linear) {
    fn(linear, index);
    for (int64_t d = rank - 1; d >= 0; --d) {
      for (int64_t k = 0; k < n; ++k)
        index[k] += strides[k][d];
      if (++coord[d] < shape[d])
        break;
      for (int64_t k = 0; k < n; ++k)
        index[k] -= strides[k][d] * shape[d];
      coord[d] = 0;
    }
  }
}

void forEachIndex(ArrayRef<int64_t> shape, ArrayRef<RankedTensorType> inputs,
                  ArrayRef<int64_t> perm,
                  llvm::function_ref<void(int64_t, ArrayRef<int64_t>)> fn) {
  int64_t rank = shape.size(), n = inputs.size();
  // strides[k][d]: step of input k's index when output dim d advances.
  SmallVector<SmallVector<int64_t>> strides(n, SmallVector<int64_t>(rank, 0));
  for (int64_t k = 0; k < n; ++k) {
    ArrayRef<int64_t> in = inputs[k].getShape();
    SmallVector<int64_t> inStrides(in.size());
    for (int64_t d = in.size() - 1, s = 1; d >= 0; --d) {
      inStrides[d] = s;
      s *= in[d];
    }
    if (!perm.empty()) {
      for (int64_t d = 0; d < rank; ++d)
        strides[k][d] = inStrides[perm[d]];
      continue;
    }
    for (int64_t d = 0, off = rank - in.size(); d < (int64_t)in.size(); ++d)
      strides[k][d + off] = in[d] == 1 ? 0 : inStrides[d];
  }
  forEachStridedIndex(shape, strides, {}, fn);
}

std::string deriveBlobName(ElementsAttr from, StringRef suffix) {
  auto res = dyn_cast_if_present<DenseResourceElementsAttr>(from);
  if (!res)
    return suffix.str();
  // A chain of folds keeps one suffix rather than growing the name.
  std::string tail = ("_" + suffix).str();
  StringRef key = res.getRawHandle().getKey();
  size_t pos = key.find(tail);
  if (pos != StringRef::npos)
    return key.take_front(pos + tail.size()).str();
  return (key + tail).str();
}

} // namespace kiln
