//===- ImporterTest.cpp - ONNX importer: types, attributes, graphs --------===//

#include "ModelBuilder.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace kiln::importer::test;
using namespace mlir;

namespace {

/// The `value` of the first kiln_graph.Constant in `module`.
ElementsAttr firstConstant(ModuleOp module) {
  ElementsAttr found;
  module.walk([&](Operation *op) {
    if (!found && op->getName().getStringRef() == "kiln_graph.Constant")
      found = cast<ElementsAttr>(*op->getInherentAttr("value"));
  });
  return found;
}

Operation *firstOp(ModuleOp module, llvm::StringRef name) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    if (!found && op->getName().getStringRef() == name)
      found = op;
  });
  return found;
}

/// A model returning initializer "c" directly.
std::string constantModel(const onnx::TensorProto &t) {
  ModelBuilder m;
  *m.graph->add_initializer() = t;
  m.graph->mutable_initializer(0)->set_name("c");
  m.output("c");
  return m.bytes();
}

TEST(Importer, MlpModuleForm) {
  ModelBuilder m;
  m.input("x", kFloat, {1, 16});
  m.output("y", kFloat, {1, 8});
  m.floats("w", {16, 8}, std::vector<float>(128, 0.5f));
  m.floats("b", {8}, std::vector<float>(8, 1.0f));
  m.node("MatMul", {"x", "w"}, {"h"}, "mm");
  m.node("Add", {"h", "b"}, {"y"}, "add");
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("kiln.opset = 17 : i64"), std::string::npos);
  EXPECT_NE(r.text.find("kiln.producer = \"unit\""), std::string::npos);
  EXPECT_NE(r.text.find("kiln.graph_name = \"g\""), std::string::npos);
  EXPECT_NE(r.text.find("%arg0: tensor<1x16xf32> {kiln.dim_params = [\"\", "
                        "\"\"], kiln.name = \"x\"}"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("dense_resource<w> : tensor<16x8xf32>"),
            std::string::npos);
  EXPECT_NE(r.text.find("dense<1.000000e+00> : tensor<8xf32>"),
            std::string::npos);
  EXPECT_NE(r.text.find("kiln_graph.MatMul"), std::string::npos);
  EXPECT_NE(r.text.find("-> tensor<1x8xf32>"), std::string::npos);
  EXPECT_TRUE(succeeded(verify(*r.module)));
}

TEST(Importer, LargeInitializerIsOneResourceBlob) {
  onnx::TensorProto t;
  t.set_data_type(kFloat);
  t.add_dims(10);
  t.add_dims(10);
  std::vector<float> values(100);
  for (int i = 0; i < 100; ++i)
    values[i] = float(i) * 0.25f;
  t.set_raw_data(std::string(reinterpret_cast<const char *>(values.data()),
                             values.size() * sizeof(float)));
  MLIRContext ctx;
  Imported r = importBytes(ctx, constantModel(t));
  ASSERT_TRUE(r.ok) << r.error;
  auto res = dyn_cast<DenseResourceElementsAttr>(firstConstant(*r.module));
  ASSERT_TRUE(res);
  AsmResourceBlob *blob = res.getRawHandle().getBlob();
  ASSERT_TRUE(blob);
  ASSERT_EQ(blob->getData().size(), 400u);
  EXPECT_EQ(std::memcmp(blob->getData().data(), values.data(), 400), 0);
}

TEST(Importer, DynamicDimsKeepTheirNames) {
  ModelBuilder m;
  m.input("x", kFloat, {"N", 8, Dim(-1)});
  m.output("y", kFloat, {"N", 8, Dim(-1)});
  m.node("Relu", {"x"}, {"y"});
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("tensor<?x8x?xf32> {kiln.dim_params = [\"N\", \"\", "
                        "\"\"], kiln.name = \"x\"}"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("kiln.name = \"y\""), std::string::npos);
}

struct DtypeCase {
  int onnxType;
  const char *mlirType;
};

// Stable, readable test names for ctest (the default prints raw bytes).
void PrintTo(const DtypeCase &c, std::ostream *os) { *os << c.mlirType; }

class ElementTypeTest : public ::testing::TestWithParam<DtypeCase> {};

TEST_P(ElementTypeTest, InitializerElementType) {
  onnx::TensorProto t;
  t.set_data_type(GetParam().onnxType);
  t.add_dims(2);
  // Two zero bytes per element are enough for raw_data of every width <= 8.
  int64_t width = 8;
  t.set_raw_data(std::string(2 * width, '\0'));
  MLIRContext ctx;
  Imported r = importBytes(ctx, constantModel(t));
  if (!r.ok) {
    // The raw size only fits 8-byte types; retry with the exact size.
    std::string expected = r.error.substr(r.error.find("expected ") + 9);
    t.set_raw_data(std::string(std::stoul(expected), '\0'));
    r = importBytes(ctx, constantModel(t));
  }
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find(std::string("tensor<2x") + GetParam().mlirType + ">"),
            std::string::npos)
      << r.text;
}

INSTANTIATE_TEST_SUITE_P(
    Importer, ElementTypeTest,
    ::testing::Values(DtypeCase{onnx::TensorProto_DataType_FLOAT, "f32"},
                      DtypeCase{onnx::TensorProto_DataType_DOUBLE, "f64"},
                      DtypeCase{onnx::TensorProto_DataType_FLOAT16, "f16"},
                      DtypeCase{onnx::TensorProto_DataType_BFLOAT16, "bf16"},
                      DtypeCase{onnx::TensorProto_DataType_INT8, "i8"},
                      DtypeCase{onnx::TensorProto_DataType_INT16, "i16"},
                      DtypeCase{onnx::TensorProto_DataType_INT32, "i32"},
                      DtypeCase{onnx::TensorProto_DataType_INT64, "i64"},
                      DtypeCase{onnx::TensorProto_DataType_UINT8, "ui8"},
                      DtypeCase{onnx::TensorProto_DataType_UINT16, "ui16"},
                      DtypeCase{onnx::TensorProto_DataType_UINT32, "ui32"},
                      DtypeCase{onnx::TensorProto_DataType_UINT64, "ui64"},
                      DtypeCase{onnx::TensorProto_DataType_BOOL, "i1"}),
    [](const ::testing::TestParamInfo<DtypeCase> &info) {
      return std::string(info.param.mlirType);
    });

TEST(Importer, TypedFieldsNarrowCorrectly) {
  MLIRContext ctx;
  {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto_DataType_INT8);
    t.add_dims(3);
    for (int v : {-3, 0, 127})
      t.add_int32_data(v);
    Imported r = importBytes(ctx, constantModel(t));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NE(r.text.find("dense<[-3, 0, 127]> : tensor<3xi8>"),
              std::string::npos)
        << r.text;
  }
  {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto_DataType_FLOAT16);
    t.add_dims(2);
    t.add_int32_data(0x3C00); // 1.0
    t.add_int32_data(0xC000); // -2.0
    Imported r = importBytes(ctx, constantModel(t));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NE(
        r.text.find("dense<[1.000000e+00, -2.000000e+00]> : tensor<2xf16>"),
        std::string::npos)
        << r.text;
  }
  {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto_DataType_BOOL);
    t.add_dims(3);
    for (int v : {1, 0, 1})
      t.add_int32_data(v);
    Imported r = importBytes(ctx, constantModel(t));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NE(r.text.find("dense<[true, false, true]> : tensor<3xi1>"),
              std::string::npos)
        << r.text;
  }
  {
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto_DataType_UINT32);
    t.add_dims(1);
    t.add_uint64_data(4000000000u);
    Imported r = importBytes(ctx, constantModel(t));
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_NE(r.text.find("dense<4000000000> : tensor<1xui32>"),
              std::string::npos)
        << r.text;
  }
}

TEST(Importer, UnsupportedElementTypes) {
  MLIRContext ctx;
  for (auto [type, name] :
       {std::pair{onnx::TensorProto_DataType_STRING, "string"},
        std::pair{onnx::TensorProto_DataType_COMPLEX64, "complex64"}}) {
    onnx::TensorProto t;
    t.set_data_type(type);
    t.add_dims(1);
    Imported r = importBytes(ctx, constantModel(t));
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error, std::string("test.onnx: initializer 'c': unsupported "
                                   "element type ") +
                           name);
  }
}

TEST(Importer, AttributeKinds) {
  ModelBuilder m(18);
  m.input("x", kFloat, {1, 2, 5, 5});
  m.input("w", kFloat, {4, 2, 3, 3});
  m.output("y");
  auto *conv = m.node("Conv", {"x", "w"}, {"c"});
  setInts(conv, "strides", {2, 2});
  setString(conv, "auto_pad", "SAME_UPPER");
  setInt(conv, "group", 1);
  auto *lrelu = m.node("LeakyRelu", {"c"}, {"l"});
  setFloat(lrelu, "alpha", 0.25f);
  auto *concat = m.node("Concat", {"l", "l"}, {"y"});
  setInt(concat, "axis", 1);
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  Operation *c = firstOp(*r.module, "kiln_graph.Conv");
  ASSERT_TRUE(c);
  EXPECT_TRUE(isa<DenseI64ArrayAttr>(*c->getInherentAttr("strides")));
  EXPECT_TRUE(isa<StringAttr>(*c->getInherentAttr("auto_pad")));
  auto group = cast<IntegerAttr>(*c->getInherentAttr("group"));
  EXPECT_TRUE(group.getType().isSignlessInteger(64));
  // Absent bias: a NoValue operand in position 2.
  EXPECT_TRUE(isa<NoneType>(c->getOperand(2).getType()));
  auto alpha = cast<FloatAttr>(
      *firstOp(*r.module, "kiln_graph.LeakyRelu")->getInherentAttr("alpha"));
  EXPECT_TRUE(alpha.getType().isF32());
  EXPECT_EQ(alpha.getValueAsDouble(), 0.25);
  // Concat's axis is declared SI64Attr.
  auto axis = cast<IntegerAttr>(
      *firstOp(*r.module, "kiln_graph.Concat")->getInherentAttr("axis"));
  EXPECT_TRUE(axis.getType().isSignedInteger(64));
  EXPECT_NE(r.text.find("tensor<1x8x3x3xf32>"), std::string::npos) << r.text;
}

TEST(Importer, ConstantNodeForms) {
  ModelBuilder m;
  m.output("a");
  m.output("b");
  m.output("c");
  setFloat(m.node("Constant", {}, {"a"}), "value_float", 2.5f);
  setInts(m.node("Constant", {}, {"b"}), "value_ints", {1, 2, 3});
  auto *t = attr(m.node("Constant", {}, {"c"}), "value",
                 onnx::AttributeProto_AttributeType_TENSOR)
                ->mutable_t();
  t->set_data_type(kInt64);
  t->add_dims(2);
  t->add_int64_data(7);
  t->add_int64_data(8);
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("dense<2.500000e+00> : tensor<f32>"),
            std::string::npos);
  EXPECT_NE(r.text.find("dense<[1, 2, 3]> : tensor<3xi64>"), std::string::npos);
  EXPECT_NE(r.text.find("dense<[7, 8]> : tensor<2xi64>"), std::string::npos);
}

TEST(Importer, ValueInfoRefinesInferredTypes) {
  ModelBuilder m;
  m.input("x", kFloat, {2, 6});
  m.input("s", kInt64, {2});
  m.output("y", kFloat, {3, 4});
  m.node("Reshape", {"x", "s"}, {"y"});
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("-> tensor<3x4xf32>"), std::string::npos) << r.text;
}

TEST(Importer, ValueInfoMismatchIsAShapeError) {
  ModelBuilder m;
  m.input("x", kFloat, {2, 3});
  m.output("y", kFloat, {2, 4});
  m.node("Relu", {"x"}, {"y"}, "r");
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "test.onnx: node 'r' (Relu, opset 17): shape mismatch: "
                     "'y' is declared as tensor<2x4xf32> but inferred as "
                     "tensor<2x3xf32>");
}

TEST(Importer, InitializerListedAsInputIsAConstant) {
  ModelBuilder m;
  m.input("x", kFloat, {2});
  m.input("b", kFloat, {2});
  m.floats("b", {2}, {1, 2});
  m.output("y", kFloat, {2});
  m.node("Add", {"x", "b"}, {"y"});
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  auto func = *r.module->getOps<func::FuncOp>().begin();
  EXPECT_EQ(func.getNumArguments(), 1u);
}

TEST(Importer, UnusedExtraOutputsAreDropped) {
  ModelBuilder m;
  m.input("x", kFloat, {1, 1, 4, 4});
  m.output("y");
  auto *pool = m.node("MaxPool", {"x"}, {"y", "idx"}, "pool");
  setInts(pool, "kernel_shape", {2, 2});
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;

  m.output("idx");
  r = importBytes(ctx, m.bytes());
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "test.onnx: node 'pool' (MaxPool, opset 17): "
                     "unsupported: output #1 'idx' is used, but only the "
                     "first 1 output(s) are supported");
}

TEST(Importer, DropoutIsIdentityUnlessItsMaskIsUsed) {
  ModelBuilder m;
  m.input("x", kFloat, {4});
  m.output("y");
  m.node("Dropout", {"x"}, {"y", "mask"}, "drop");
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("kiln_graph.Identity"), std::string::npos);

  EXPECT_EQ(r.text.find("kiln_graph.ConstantOfShape"), std::string::npos);

  // A mask that is read is all true, of the input's shape.
  m.node("Not", {"mask"}, {"z"});
  m.output("z");
  r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("kiln_graph.ConstantOfShape"), std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("dense<true>"), std::string::npos) << r.text;
}

TEST(Importer, TrainingModeDropoutIsRefused) {
  ModelBuilder m;
  m.input("x", kFloat, {4});
  m.input("ratio", kFloat, {});
  m.input("training", onnx::TensorProto_DataType_BOOL, {});
  m.output("y");
  m.node("Dropout", {"x", "ratio", "training"}, {"y"}, "drop");
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_FALSE(r.ok);
  EXPECT_NE(r.error.find("Dropout in training mode"), std::string::npos)
      << r.error;
}

TEST(Importer, SplitGetsOneResultPerOutput) {
  ModelBuilder m(18);
  m.input("x", kFloat, {6, 2});
  m.output("a");
  m.output("b");
  m.output("c");
  setInt(m.node("Split", {"x"}, {"a", "b", "c"}), "num_outputs", 3);
  MLIRContext ctx;
  Imported r = importBytes(ctx, m.bytes());
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_NE(r.text.find("-> (tensor<2x2xf32>, tensor<2x2xf32>, "
                        "tensor<2x2xf32>)"),
            std::string::npos)
      << r.text;
}

} // namespace
