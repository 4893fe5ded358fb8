//===- MalformedModelTest.cpp - broken models give one clear error --------===//

#include "ModelBuilder.h"

#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace kiln::importer::test;
using namespace mlir;

namespace {

std::string importError(const std::string &bytes) {
  MLIRContext ctx;
  Imported r = importBytes(ctx, bytes);
  EXPECT_FALSE(r.ok) << r.text;
  return r.error;
}

/// x[2,3] -> Relu -> y, the base most cases break one piece of.
ModelBuilder reluModel(int64_t opset = 17) {
  ModelBuilder m(opset);
  m.input("x", kFloat, {2, 3});
  m.output("y", kFloat, {2, 3});
  m.node("Relu", {"x"}, {"y"}, "relu");
  return m;
}

TEST(MalformedModel, NotAModel) {
  EXPECT_EQ(importError(""), "test.onnx: not a valid ONNX model (empty file)");
  EXPECT_EQ(importError("\xff\xff\xff\xff garbage"),
            "test.onnx: not a valid ONNX model (protobuf parse failed)");
  std::string good = reluModel().bytes();
  EXPECT_EQ(importError(good.substr(0, good.size() / 2)),
            "test.onnx: not a valid ONNX model (protobuf parse failed)");
  onnx::ModelProto noGraph;
  noGraph.set_ir_version(8);
  EXPECT_EQ(importError(noGraph.SerializeAsString()),
            "test.onnx: not a valid ONNX model (no graph)");
}

TEST(MalformedModel, OpsetImports) {
  ModelBuilder m = reluModel();
  m.model.clear_opset_import();
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: no opset import for the default ONNX domain");
}

TEST(MalformedModel, UnsupportedOps) {
  ModelBuilder m = reluModel();
  m.graph->mutable_node(0)->set_op_type("FooBar");
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'relu': unsupported op 'FooBar' (domain '', "
            "opset 17)");
  m.graph->mutable_node(0)->set_domain("com.example");
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'relu': unsupported op 'FooBar' (domain "
            "'com.example')");
  // Gelu exists only from opset 20 on.
  m.graph->mutable_node(0)->set_domain("");
  m.graph->mutable_node(0)->set_op_type("Gelu");
  EXPECT_EQ(importError(m.bytes()), "test.onnx: node 'relu' (Gelu, opset 17): "
                                    "op 'Gelu' does not exist in opset 17");
  // NoValue is kiln's own placeholder, not an ONNX op.
  m.graph->mutable_node(0)->set_op_type("NoValue");
  EXPECT_NE(importError(m.bytes()).find("unsupported op 'NoValue'"),
            std::string::npos);
}

TEST(MalformedModel, UndefinedAndUnsortedInputs) {
  ModelBuilder m = reluModel();
  m.graph->mutable_node(0)->set_input(0, "nowhere");
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'relu' (Relu, opset 17): input 'nowhere' is not "
            "produced by any node, graph input or initializer");

  ModelBuilder unsorted;
  unsorted.input("x", kFloat, {2});
  unsorted.output("y");
  unsorted.node("Relu", {"t"}, {"y"}, "second");
  unsorted.node("Relu", {"x"}, {"t"}, "first");
  EXPECT_EQ(importError(unsorted.bytes()),
            "test.onnx: node 'second' (Relu, opset 17): input 't' is used "
            "before the node that produces it (nodes must be topologically "
            "sorted)");

  ModelBuilder twice = reluModel();
  twice.node("Relu", {"x"}, {"y"}, "again");
  EXPECT_EQ(importError(twice.bytes()),
            "test.onnx: node 'again' (Relu, opset 17): value 'y' is defined "
            "more than once");

  ModelBuilder noOut = reluModel();
  noOut.graph->mutable_output(0)->set_name("z");
  EXPECT_EQ(importError(noOut.bytes()),
            "test.onnx: graph output 'z' is not produced by any node, input "
            "or initializer");
}

TEST(MalformedModel, Attributes) {
  ModelBuilder m(17);
  m.input("x", kFloat, {1, 1, 5, 5});
  m.floats("w", {1, 1, 3, 3}, std::vector<float>(9, 1));
  m.output("y");
  auto *conv = m.node("Conv", {"x", "w"}, {"y"}, "conv1");
  setFloats(conv, "strides", {1, 1});
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'conv1' (Conv, opset 17): attribute 'strides' "
            "must be ints, got floats");

  // Without libonnx schemas (opset 18+) the dialect's declaration decides.
  ModelBuilder m18 = m;
  m18.model.mutable_opset_import(0)->set_version(18);
  EXPECT_EQ(importError(m18.bytes()),
            "test.onnx: node 'conv1' (Conv, opset 18): bad attribute "
            "'strides' (floats): attribute 'strides' failed to satisfy "
            "constraint: i64 dense array attribute");
  conv->mutable_attribute(0)->set_name("stride");
  m18 = m;
  m18.model.mutable_opset_import(0)->set_version(18);
  EXPECT_EQ(importError(m18.bytes()),
            "test.onnx: node 'conv1' (Conv, opset 18): bad attribute 'stride' "
            "(floats): kiln_graph.Conv has no such attribute");
  EXPECT_EQ(importError(m.bytes()), "test.onnx: node 'conv1' (Conv, opset 17): "
                                    "unknown attribute 'stride'");

  ModelBuilder graphAttr = reluModel();
  attr(graphAttr.graph->mutable_node(0), "body",
       onnx::AttributeProto_AttributeType_GRAPH);
  graphAttr.model.mutable_opset_import(0)->set_version(18);
  EXPECT_EQ(importError(graphAttr.bytes()),
            "test.onnx: node 'relu' (Relu, opset 18): attribute 'body' has "
            "type graph, which is not supported");

  ModelBuilder missing(17);
  missing.input("x", kFloat, {1, 1, 4, 4});
  missing.output("y");
  missing.node("MaxPool", {"x"}, {"y"}, "pool");
  EXPECT_EQ(importError(missing.bytes()),
            "test.onnx: node 'pool' (MaxPool, opset 17): missing required "
            "attribute 'kernel_shape'");
  missing.model.mutable_opset_import(0)->set_version(18);
  EXPECT_EQ(importError(missing.bytes()),
            "test.onnx: node 'pool' (MaxPool, opset 18): invalid "
            "kiln_graph.MaxPool: 'kiln_graph.MaxPool' op requires attribute "
            "'kernel_shape'");
}

TEST(MalformedModel, InputCounts) {
  ModelBuilder m = reluModel();
  m.graph->mutable_node(0)->add_input("x");
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'relu' (Relu, opset 17): expects 1 inputs, got 2");
  m.model.mutable_opset_import(0)->set_version(18);
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'relu' (Relu, opset 18): has 2 inputs, but "
            "kiln_graph.Relu takes at most 1");
}

TEST(MalformedModel, ShapeInferenceFailure) {
  ModelBuilder m;
  m.input("a", kFloat, {2, 3});
  m.input("b", kFloat, {4, 5});
  m.output("y");
  m.node("Add", {"a", "b"}, {"y"}, "add");
  std::string error = importError(m.bytes());
  EXPECT_EQ(error.rfind("test.onnx: node 'add' (Add, opset 17): shape "
                        "inference failed: ",
                        0),
            0u)
      << error;
}

// Found by test/fuzz: the product of the shape's dims overflowed int64.
TEST(MalformedModel, ReshapeToTooManyElements) {
  ModelBuilder m;
  m.input("x", kFloat, {2, 3});
  m.ints("shape", {int64_t(1) << 40, int64_t(1) << 40});
  m.output("y");
  m.node("Reshape", {"x", "shape"}, {"y"}, "reshape");
  std::string error = importError(m.bytes());
  EXPECT_NE(error.find("Reshape shape [1099511627776, 1099511627776] has too "
                       "many elements"),
            std::string::npos)
      << error;
}

// Found by test/fuzz: floor(dim * scale) did not fit an int64.
TEST(MalformedModel, ResizeToHugeOrNaNScale) {
  for (float scale : {1e30f, std::nanf("")}) {
    ModelBuilder m;
    m.input("x", kFloat, {1, 1, 2, 2});
    m.floats("scales", {4}, {1, 1, scale, 1});
    m.output("y");
    m.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
    std::string error = importError(m.bytes());
    EXPECT_TRUE(error.find("Resize output dim") != std::string::npos ||
                error.find("Resize scales must be positive") !=
                    std::string::npos)
        << error;
  }
}

TEST(MalformedModel, Tensors) {
  auto withInit = [](auto edit) {
    ModelBuilder m = reluModel();
    onnx::TensorProto *t = m.floats("w", {2, 2}, {1, 2, 3, 4});
    edit(*t);
    return importError(m.bytes());
  };
  EXPECT_EQ(withInit([](onnx::TensorProto &t) {
              t.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
              t.clear_float_data();
            }),
            "test.onnx: initializer 'w': external data needs the model's "
            "folder (import the model from its file)");
  EXPECT_EQ(withInit([](onnx::TensorProto &t) {
              t.clear_float_data();
              t.set_raw_data(std::string(15, '\0'));
            }),
            "test.onnx: initializer 'w': raw_data holds 15 bytes, expected 16 "
            "for shape [2,2] of float");
  EXPECT_EQ(withInit([](onnx::TensorProto &t) { t.add_float_data(5); }),
            "test.onnx: initializer 'w': float_data holds 5 values, expected 4 "
            "for shape [2,2]");
  EXPECT_EQ(withInit([](onnx::TensorProto &t) { t.set_dims(0, -2); }),
            "test.onnx: initializer 'w': negative dimension in shape [-2,2]");
  EXPECT_EQ(withInit([](onnx::TensorProto &t) {
              t.set_dims(0, int64_t(1) << 40);
              t.set_dims(1, int64_t(1) << 40);
            }),
            "test.onnx: initializer 'w': shape [1099511627776,1099511627776] "
            "has too many elements");
  // A huge shape without the data for it fails before any allocation.
  EXPECT_EQ(withInit([](onnx::TensorProto &t) {
              t.set_dims(0, int64_t(1) << 30);
              t.clear_float_data();
              t.set_raw_data("abcd");
            }),
            "test.onnx: initializer 'w': raw_data holds 4 bytes, expected "
            "8589934592 for shape [1073741824,2] of float");
  EXPECT_EQ(withInit([](onnx::TensorProto &t) { t.set_raw_data("x"); }),
            "test.onnx: initializer 'w': both raw_data and typed data are set");
  EXPECT_EQ(withInit([](onnx::TensorProto &t) { t.set_name(""); }),
            "test.onnx: initializer without a name");
}

TEST(MalformedModel, ValueTypes) {
  ModelBuilder m = reluModel();
  m.graph->mutable_input(0)->mutable_type()->clear_tensor_type();
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: graph input 'x': only tensor types are supported (got "
            "a sequence, map, optional or sparse type, or no type)");
  ModelBuilder neg = reluModel();
  neg.graph->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(0)
      ->set_dim_value(-1);
  EXPECT_EQ(importError(neg.bytes()),
            "test.onnx: graph input 'x': negative dimension -1");
  ModelBuilder str = reluModel();
  str.graph->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto_DataType_STRING);
  EXPECT_EQ(importError(str.bytes()),
            "test.onnx: graph input 'x': unsupported element type string");
}

TEST(MalformedModel, NamesWithControlCharactersStayOnOneLine) {
  ModelBuilder m = reluModel();
  m.graph->mutable_node(0)->set_name("bad\nname");
  m.graph->mutable_node(0)->set_op_type("Foo\x01");
  EXPECT_EQ(importError(m.bytes()),
            "test.onnx: node 'bad\\x0aname': unsupported op 'Foo\\x01' "
            "(domain '', opset 17)");
}

/// Models covering many importer paths, as mutation seeds.
std::vector<std::string> seedModels() {
  std::vector<std::string> seeds;
  {
    ModelBuilder m;
    m.input("x", kFloat, {"N", 16});
    m.output("y", kFloat, {"N", 8});
    m.floats("w", {16, 8}, std::vector<float>(128, 0.5f));
    m.floats("b", {8}, std::vector<float>(8, 1.0f));
    m.node("MatMul", {"x", "w"}, {"h"});
    m.node("Add", {"h", "b"}, {"a"});
    auto *sm = m.node("Softmax", {"a"}, {"y"});
    setInt(sm, "axis", -1);
    seeds.push_back(m.bytes());
  }
  {
    ModelBuilder m(11);
    m.input("x", kFloat, {1, 2, 6, 6});
    m.output("y");
    m.floats("w", {4, 2, 3, 3}, std::vector<float>(72, 0.1f));
    auto *conv = m.node("Conv", {"x", "w"}, {"c"});
    setInts(conv, "pads", {1, 1, 1, 1});
    auto *clip = m.node("Clip", {"c", "", ""}, {"r"});
    (void)clip;
    auto *pool = m.node("MaxPool", {"r"}, {"p"});
    setInts(pool, "kernel_shape", {2, 2});
    setInts(pool, "strides", {2, 2});
    auto *sq = m.node("ReduceMean", {"p"}, {"m"});
    setInts(sq, "axes", {2, 3});
    setInt(sq, "keepdims", 0);
    auto *sm = m.node("Softmax", {"m"}, {"y"});
    setInt(sm, "axis", 1);
    seeds.push_back(m.bytes());
  }
  {
    ModelBuilder m(13);
    m.input("x", kFloat, {2, 12});
    m.ints("shape", {2, 3, 4});
    m.ints("split", {1, 2});
    m.ints("idx", {0, 1});
    m.output("a");
    m.output("b");
    m.node("Reshape", {"x", "shape"}, {"r"});
    auto *t = m.node("Transpose", {"r"}, {"t"});
    setInts(t, "perm", {0, 2, 1});
    auto *g = m.node("Gather", {"t", "idx"}, {"g"});
    setInt(g, "axis", 1);
    auto *s = m.node("Split", {"g", "split"}, {"a", "b"});
    setInt(s, "axis", 2);
    auto *c = m.node("Constant", {}, {"unused"});
    setFloats(c, "value_floats", {1, 2, 3});
    seeds.push_back(m.bytes());
  }
  return seeds;
}

/// Importing a mutated model either succeeds with a module that verifies or
/// fails with one line; it must never crash.
void checkMutant(MLIRContext &ctx, const std::string &bytes) {
  Imported r = importBytes(ctx, bytes);
  if (r.ok) {
    EXPECT_TRUE(succeeded(verify(*r.module)));
    return;
  }
  EXPECT_FALSE(r.error.empty());
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
}

TEST(MalformedModel, FuzzTruncatedAndFlippedBytes) {
  MLIRContext ctx;
  std::mt19937 rng(20240601);
  int succeeded = 0, failed = 0;
  for (const std::string &seed : seedModels()) {
    ASSERT_TRUE(importBytes(ctx, seed).ok) << importBytes(ctx, seed).error;
    for (size_t len = 0; len < seed.size(); len += 7)
      checkMutant(ctx, seed.substr(0, len));
    for (int iter = 0; iter < 1500; ++iter) {
      std::string bytes = seed;
      int flips = 1 + int(rng() % 4);
      for (int f = 0; f < flips; ++f) {
        size_t pos = rng() % bytes.size();
        if (rng() % 2)
          bytes[pos] = char(rng());
        else
          bytes[pos] ^= char(1u << (rng() % 8));
      }
      Imported r = importBytes(ctx, bytes);
      (r.ok ? succeeded : failed)++;
      checkMutant(ctx, bytes);
    }
  }
  // Both outcomes must occur, or the mutations test nothing.
  EXPECT_GT(succeeded, 0);
  EXPECT_GT(failed, 0);
}

} // namespace

namespace {

/// Every kiln_graph op fed absent or ill-typed inputs reports an error
/// instead of crashing in shape inference.
TEST(MalformedModel, EveryOpWithAbsentInputs) {
  MLIRContext ctx;
  ASSERT_TRUE(importBytes(ctx, reluModel().bytes()).ok);
  std::vector<std::string> ops;
  for (RegisteredOperationName name : ctx.getRegisteredOperations())
    if (name.getDialectNamespace() == "kiln_graph")
      ops.push_back(name.getStringRef().drop_front(11).str());
  ASSERT_GT(ops.size(), 30u);
  for (const std::string &op : ops) {
    for (int real = 0; real <= 2; ++real) {
      for (int empty = 0; empty <= 4; ++empty) {
        ModelBuilder m(18);
        m.input("x", kFloat, {2, 3});
        m.input("i", kInt64, {2});
        m.output("y");
        std::vector<std::string> inputs;
        for (int k = 0; k < real; ++k)
          inputs.push_back(k % 2 ? "i" : "x");
        inputs.resize(real + empty);
        m.node(op, inputs, {"y"});
        checkMutant(ctx, m.bytes());
      }
    }
  }
}

} // namespace
