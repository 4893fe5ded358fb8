//===- ElementTypes.cpp - ONNX data type codes <-> MLIR types -------------===//

#include "dialects/graph/ElementTypes.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::graph {

Type getElementTypeForOnnxCode(MLIRContext *ctx, int64_t code) {
  auto sint = [&](unsigned w) { return IntegerType::get(ctx, w); };
  auto uint = [&](unsigned w) {
    return IntegerType::get(ctx, w, IntegerType::Unsigned);
  };
  switch (code) {
  case 1:
    return Float32Type::get(ctx);
  case 2:
    return uint(8);
  case 3:
    return sint(8);
  case 4:
    return uint(16);
  case 5:
    return sint(16);
  case 6:
    return sint(32);
  case 7:
    return sint(64);
  case 9:
    return sint(1);
  case 10:
    return Float16Type::get(ctx);
  case 11:
    return Float64Type::get(ctx);
  case 12:
    return uint(32);
  case 13:
    return uint(64);
  case 16:
    return BFloat16Type::get(ctx);
  default:
    return {};
  }
}

int64_t getOnnxCodeForElementType(Type t) {
  if (t.isF32())
    return 1;
  if (t.isF64())
    return 11;
  if (t.isF16())
    return 10;
  if (t.isBF16())
    return 16;
  auto i = dyn_cast<IntegerType>(t);
  if (!i)
    return 0;
  bool u = i.isUnsigned();
  switch (i.getWidth()) {
  case 1:
    return 9;
  case 8:
    return u ? 2 : 3;
  case 16:
    return u ? 4 : 5;
  case 32:
    return u ? 12 : 6;
  case 64:
    return u ? 13 : 7;
  default:
    return 0;
  }
}

const char *getOnnxTypeName(int64_t code) {
  switch (code) {
  case 1:
    return "float";
  case 2:
    return "uint8";
  case 3:
    return "int8";
  case 4:
    return "uint16";
  case 5:
    return "int16";
  case 6:
    return "int32";
  case 7:
    return "int64";
  case 8:
    return "string";
  case 9:
    return "bool";
  case 10:
    return "float16";
  case 11:
    return "double";
  case 12:
    return "uint32";
  case 13:
    return "uint64";
  case 14:
    return "complex64";
  case 15:
    return "complex128";
  case 16:
    return "bfloat16";
  default:
    return "unknown";
  }
}

} // namespace kiln::graph
