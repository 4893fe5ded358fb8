//===- TensorConversion.cpp - ONNX tensors and types to MLIR --------------===//

#include "compiler/importer/TensorConversion.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;

namespace kiln::importer {
namespace {
using DT = onnx::TensorProto_DataType;

/// Bytes per element in raw_data and in our buffers (bool: one byte).
size_t elementByteSize(int32_t dataType) {
  switch (dataType) {
  case DT::TensorProto_DataType_BOOL:
  case DT::TensorProto_DataType_INT8:
  case DT::TensorProto_DataType_UINT8:
    return 1;
  case DT::TensorProto_DataType_INT16:
  case DT::TensorProto_DataType_UINT16:
  case DT::TensorProto_DataType_FLOAT16:
  case DT::TensorProto_DataType_BFLOAT16:
    return 2;
  case DT::TensorProto_DataType_FLOAT:
  case DT::TensorProto_DataType_INT32:
  case DT::TensorProto_DataType_UINT32:
    return 4;
  case DT::TensorProto_DataType_DOUBLE:
  case DT::TensorProto_DataType_INT64:
  case DT::TensorProto_DataType_UINT64:
    return 8;
  default:
    return 0;
  }
}

std::string shapeString(llvm::ArrayRef<int64_t> dims) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      dims, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      ",");
  os << "]";
  return s;
}

/// Copies `n` typed-field values into `out`, narrowing each to `Dst`.
template <typename Dst, typename Field>
void narrowInto(const Field &field, char *out) {
  for (int i = 0, e = field.size(); i < e; ++i) {
    Dst v = static_cast<Dst>(field.Get(i));
    std::memcpy(out + i * sizeof(Dst), &v, sizeof(Dst));
  }
}

/// The typed field holding values of `dataType` and its name.
std::pair<int64_t, const char *> typedField(const onnx::TensorProto &t) {
  switch (t.data_type()) {
  case DT::TensorProto_DataType_FLOAT:
    return {t.float_data_size(), "float_data"};
  case DT::TensorProto_DataType_DOUBLE:
    return {t.double_data_size(), "double_data"};
  case DT::TensorProto_DataType_INT64:
    return {t.int64_data_size(), "int64_data"};
  case DT::TensorProto_DataType_UINT32:
  case DT::TensorProto_DataType_UINT64:
    return {t.uint64_data_size(), "uint64_data"};
  default:
    // Everything narrower travels in int32_data, one value (or the 16 bits
    // of a half float) per entry.
    return {t.int32_data_size(), "int32_data"};
  }
}

/// Writes the values of `t` (raw_data or the typed field its type uses) into
/// `out`; sizes were checked by the caller.
void fillBuffer(const onnx::TensorProto &t, llvm::MutableArrayRef<char> out) {
  if (t.has_raw_data()) {
    if (!out.empty())
      std::memcpy(out.data(), t.raw_data().data(), out.size());
    return;
  }
  char *dst = out.data();
  switch (t.data_type()) {
  case DT::TensorProto_DataType_FLOAT:
    return narrowInto<float>(t.float_data(), dst);
  case DT::TensorProto_DataType_DOUBLE:
    return narrowInto<double>(t.double_data(), dst);
  case DT::TensorProto_DataType_INT64:
    return narrowInto<int64_t>(t.int64_data(), dst);
  case DT::TensorProto_DataType_UINT32:
    return narrowInto<uint32_t>(t.uint64_data(), dst);
  case DT::TensorProto_DataType_UINT64:
    return narrowInto<uint64_t>(t.uint64_data(), dst);
  case DT::TensorProto_DataType_BOOL:
    for (int i = 0, e = t.int32_data_size(); i < e; ++i)
      dst[i] = t.int32_data(i) != 0;
    return;
  default:
    break;
  }
  switch (elementByteSize(t.data_type())) {
  case 1:
    return narrowInto<uint8_t>(t.int32_data(), dst);
  case 2:
    return narrowInto<uint16_t>(t.int32_data(), dst);
  default:
    return narrowInto<int32_t>(t.int32_data(), dst);
  }
}

/// Resource keys are printed as identifiers; keep them readable and valid.
std::string sanitizeBlobName(llvm::StringRef name) {
  std::string out;
  for (char c : name)
    out += (llvm::isAlnum(c) || c == '_' || c == '.') ? c : '_';
  if (out.empty() || llvm::isDigit(out[0]))
    out = "w_" + out;
  return out;
}
} // namespace

bool hasAddressableSize(llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d) &&
        (__builtin_mul_overflow(count, d, &count) || count > INT64_MAX / 8))
      return false;
  return true;
}

std::string onnxTypeName(int32_t dataType) {
  static const char *const names[] = {
      "undefined",      "float",        "uint8",          "int8",
      "uint16",         "int16",        "int32",          "int64",
      "string",         "bool",         "float16",        "double",
      "uint32",         "uint64",       "complex64",      "complex128",
      "bfloat16",       "float8e4m3fn", "float8e4m3fnuz", "float8e5m2",
      "float8e5m2fnuz", "uint4",        "int4",           "float4e2m1"};
  if (dataType >= 0 && dataType < int32_t(std::size(names)))
    return names[dataType];
  return "type code " + std::to_string(dataType);
}

FailureOr<Type> convertElementType(MLIRContext &ctx, int32_t dataType,
                                   std::string &why) {
  auto sint = [&](unsigned w) { return IntegerType::get(&ctx, w); };
  auto uint = [&](unsigned w) {
    return IntegerType::get(&ctx, w, IntegerType::Unsigned);
  };
  switch (dataType) {
  case DT::TensorProto_DataType_FLOAT:
    return Type(Float32Type::get(&ctx));
  case DT::TensorProto_DataType_DOUBLE:
    return Type(Float64Type::get(&ctx));
  case DT::TensorProto_DataType_FLOAT16:
    return Type(Float16Type::get(&ctx));
  case DT::TensorProto_DataType_BFLOAT16:
    return Type(BFloat16Type::get(&ctx));
  case DT::TensorProto_DataType_BOOL:
    return Type(sint(1));
  case DT::TensorProto_DataType_INT8:
    return Type(sint(8));
  case DT::TensorProto_DataType_INT16:
    return Type(sint(16));
  case DT::TensorProto_DataType_INT32:
    return Type(sint(32));
  case DT::TensorProto_DataType_INT64:
    return Type(sint(64));
  case DT::TensorProto_DataType_UINT8:
    return Type(uint(8));
  case DT::TensorProto_DataType_UINT16:
    return Type(uint(16));
  case DT::TensorProto_DataType_UINT32:
    return Type(uint(32));
  case DT::TensorProto_DataType_UINT64:
    return Type(uint(64));
  default:
    why = "unsupported element type " + onnxTypeName(dataType);
    return failure();
  }
}

FailureOr<ValueTypeInfo> convertTypeProto(MLIRContext &ctx,
                                          const onnx::TypeProto &type,
                                          std::string &why) {
  if (!type.has_tensor_type()) {
    why = "only tensor types are supported (got a sequence, map, optional or "
          "sparse type, or no type)";
    return failure();
  }
  const onnx::TypeProto_Tensor &tt = type.tensor_type();
  FailureOr<Type> elt = convertElementType(ctx, tt.elem_type(), why);
  if (failed(elt))
    return failure();
  ValueTypeInfo info;
  if (!tt.has_shape()) {
    info.type = UnrankedTensorType::get(*elt);
    return info;
  }
  if (tt.shape().dim_size() > kMaxRank) {
    why = "rank " + std::to_string(tt.shape().dim_size()) + " exceeds " +
          std::to_string(kMaxRank);
    return failure();
  }
  llvm::SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto_Dimension &d : tt.shape().dim()) {
    if (d.has_dim_value()) {
      if (d.dim_value() < 0) {
        why = "negative dimension " + std::to_string(d.dim_value());
        return failure();
      }
      shape.push_back(d.dim_value());
      info.dimParams.emplace_back();
    } else {
      shape.push_back(ShapedType::kDynamic);
      info.dimParams.push_back(d.has_dim_param() ? d.dim_param() : "");
    }
  }
  if (!hasAddressableSize(shape)) {
    why = "shape " + shapeString(shape) + " has too many elements";
    return failure();
  }
  info.type = RankedTensorType::get(shape, *elt);
  return info;
}

FailureOr<ElementsAttr> convertTensorProto(MLIRContext &ctx,
                                           const onnx::TensorProto &t,
                                           llvm::StringRef blobName,
                                           std::string &why) {
  if (t.data_location() == onnx::TensorProto_DataLocation_EXTERNAL ||
      t.external_data_size() > 0) {
    why = "external data outside the model's initializers is not supported";
    return failure();
  }
  if (t.has_segment()) {
    why = "segmented tensors are not supported";
    return failure();
  }
  FailureOr<Type> elt = convertElementType(ctx, t.data_type(), why);
  if (failed(elt))
    return failure();
  if (t.dims_size() > kMaxRank) {
    why = "rank " + std::to_string(t.dims_size()) + " exceeds " +
          std::to_string(kMaxRank);
    return failure();
  }
  llvm::SmallVector<int64_t> shape(t.dims().begin(), t.dims().end());
  size_t elemSize = elementByteSize(t.data_type());
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      why = "negative dimension in shape " + shapeString(shape);
      return failure();
    }
    if (__builtin_mul_overflow(count, d, &count) || count > (INT64_MAX / 8)) {
      why = "shape " + shapeString(shape) + " has too many elements";
      return failure();
    }
  }
  bool hasTyped = t.float_data_size() || t.int32_data_size() ||
                  t.int64_data_size() || t.double_data_size() ||
                  t.uint64_data_size() || t.string_data_size();
  if (t.has_raw_data() && hasTyped) {
    why = "both raw_data and typed data are set";
    return failure();
  }
  // Check sizes against the data actually present before allocating, so a
  // corrupt shape cannot request an absurd buffer.
  size_t byteSize = size_t(count) * elemSize;
  if (t.has_raw_data()) {
    if (t.raw_data().size() != byteSize) {
      why = "raw_data holds " + std::to_string(t.raw_data().size()) +
            " bytes, expected " + std::to_string(byteSize) + " for shape " +
            shapeString(shape) + " of " + onnxTypeName(t.data_type());
      return failure();
    }
  } else if (auto [have, field] = typedField(t); have != count) {
    why = std::string(field) + " holds " + std::to_string(have) +
          " values, expected " + std::to_string(count) + " for shape " +
          shapeString(shape);
    return failure();
  }
  auto type = RankedTensorType::get(shape, *elt);

  if (t.data_type() == DT::TensorProto_DataType_BOOL) {
    // MLIR packs i1 data, so bools always go through DenseElementsAttr.
    llvm::SmallVector<char> bytes(byteSize);
    fillBuffer(t, bytes);
    llvm::SmallVector<bool> bits;
    for (char c : bytes)
      bits.push_back(c != 0);
    return ElementsAttr(DenseElementsAttr::get(type, llvm::ArrayRef(bits)));
  }
  if (count > kMaxInlineElements) {
    AsmResourceBlob blob = HeapAsmResourceBlob::allocate(
        byteSize, elemSize, /*dataIsMutable=*/true);
    fillBuffer(t, blob.getMutableData());
    return ElementsAttr(DenseResourceElementsAttr::get(
        type, sanitizeBlobName(blobName), std::move(blob)));
  }
  llvm::SmallVector<char> bytes(byteSize);
  fillBuffer(t, bytes);
  return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, bytes));
}

} // namespace kiln::importer
