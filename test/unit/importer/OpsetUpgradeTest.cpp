//===- OpsetUpgradeTest.cpp - older operator forms to the newest ----------===//

#include "ModelBuilder.h"

#include <gtest/gtest.h>

using namespace kiln::importer::test;
using namespace mlir;

namespace {

bool contains(const std::string &text, const std::string &needle) {
  return text.find(needle) != std::string::npos;
}

Imported importModel(const ModelBuilder &m) {
  static MLIRContext ctx;
  return importBytes(ctx, m.bytes());
}

TEST(OpsetUpgrade, ClipAttributesBecomeInputs) {
  ModelBuilder m(9);
  m.input("x", kFloat, {2, 3});
  m.output("y", kFloat, {2, 3});
  auto *clip = m.node("Clip", {"x"}, {"y"});
  setFloat(clip, "min", 0.0f);
  setFloat(clip, "max", 6.0f);
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "dense<0.000000e+00> : tensor<f32>")) << r.text;
  EXPECT_TRUE(contains(r.text, "dense<6.000000e+00> : tensor<f32>"));
  EXPECT_TRUE(contains(r.text, "(tensor<2x3xf32>, tensor<f32>, tensor<f32>)"));

  // Only min: max stays absent.
  clip->mutable_attribute()->RemoveLast();
  r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "(tensor<2x3xf32>, tensor<f32>, none)"))
      << r.text;
}

TEST(OpsetUpgrade, SqueezeAxesAttribute) {
  ModelBuilder m(11);
  m.input("x", kFloat, {1, 3, 1});
  m.output("y", kFloat, {3, 1});
  setInts(m.node("Squeeze", {"x"}, {"s"}), "axes", {0, 2});
  setInts(m.node("Unsqueeze", {"s"}, {"y"}), "axes", {1});
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "dense<[0, 2]> : tensor<2xi64>")) << r.text;
  EXPECT_TRUE(contains(r.text, "-> tensor<3xf32>"));
}

TEST(OpsetUpgrade, SplitAttributeAndImplicitEvenSplit) {
  ModelBuilder m(11);
  m.input("x", kFloat, {6});
  m.output("a");
  m.output("b");
  setInts(m.node("Split", {"x"}, {"a", "b"}), "split", {2, 4});
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "-> (tensor<2xf32>, tensor<4xf32>)")) << r.text;

  ModelBuilder even(13);
  even.input("x", kFloat, {6});
  even.output("a");
  even.output("b");
  even.node("Split", {"x"}, {"a", "b"});
  r = importModel(even);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "num_outputs = 2")) << r.text;
  EXPECT_TRUE(contains(r.text, "-> (tensor<3xf32>, tensor<3xf32>)"));
}

TEST(OpsetUpgrade, ReduceAxesAttribute) {
  ModelBuilder m(11);
  m.input("x", kFloat, {2, 3, 4});
  m.output("s", kFloat, {2});
  m.output("mean", kFloat, {2, 3, 1});
  auto *sum = m.node("ReduceSum", {"x"}, {"s"});
  setInts(sum, "axes", {1, 2});
  setInt(sum, "keepdims", 0);
  setInts(m.node("ReduceMean", {"x"}, {"mean"}), "axes", {-1});
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "dense<[1, 2]> : tensor<2xi64>")) << r.text;

  // ReduceMean keeps the attribute form until opset 18.
  ModelBuilder m17(17);
  m17.input("x", kFloat, {2, 3});
  m17.output("y", kFloat, {2, 1});
  setInts(m17.node("ReduceMax", {"x"}, {"y"}), "axes", {1});
  r = importModel(m17);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "(tensor<2x3xf32>, tensor<1xi64>)")) << r.text;
}

TEST(OpsetUpgrade, SliceAttributes) {
  ModelBuilder m(9);
  m.input("x", kFloat, {4, 6});
  m.output("y", kFloat, {4, 3});
  auto *slice = m.node("Slice", {"x"}, {"y"});
  setInts(slice, "starts", {1});
  setInts(slice, "ends", {4});
  setInts(slice, "axes", {1});
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "(tensor<4x6xf32>, tensor<1xi64>, "
                               "tensor<1xi64>, tensor<1xi64>, none)"))
      << r.text;
}

TEST(OpsetUpgrade, PadAttributes) {
  ModelBuilder m(10);
  m.input("x", kFloat, {2, 2});
  m.output("y", kFloat, {4, 2});
  auto *pad = m.node("Pad", {"x"}, {"y"});
  setInts(pad, "pads", {1, 0, 1, 0});
  setFloat(pad, "value", 1.5f);
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "dense<1.500000e+00> : tensor<f32>")) << r.text;
  EXPECT_TRUE(contains(r.text, "(tensor<2x2xf32>, tensor<4xi64>, tensor<f32>, "
                               "none)"))
      << r.text;
}

TEST(OpsetUpgrade, CoercedSoftmaxOnTheLastAxisIsDirect) {
  ModelBuilder m(11);
  m.input("x", kFloat, {2, 3});
  m.output("y", kFloat, {2, 3});
  m.node("Softmax", {"x"}, {"y"}); // default axis 1 == last
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(contains(r.text, "Flatten")) << r.text;
  EXPECT_TRUE(contains(r.text, "kiln_graph.Softmax %arg0 {axis = 1 : si64}"))
      << r.text;
}

TEST(OpsetUpgrade, CoercedSoftmaxFlattensAndReshapes) {
  ModelBuilder m(11);
  m.input("x", kFloat, {2, 3, 4});
  m.output("y", kFloat, {2, 3, 4});
  m.node("LogSoftmax", {"x"}, {"y"}); // axis 1 of rank 3: over 3*4 values
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(
      contains(r.text, "kiln_graph.Flatten %arg0 : (tensor<2x3x4xf32>)"))
      << r.text;
  EXPECT_TRUE(contains(r.text, "kiln_graph.LogSoftmax")) << r.text;
  EXPECT_TRUE(contains(r.text, "(tensor<2x12xf32>) -> tensor<2x12xf32>"));
  EXPECT_TRUE(contains(r.text, "dense<[2, 3, 4]> : tensor<3xi64>"));
  EXPECT_TRUE(contains(r.text, "kiln_graph.Reshape"));

  // A dynamic input takes its shape from a Shape op instead.
  ModelBuilder dyn(11);
  dyn.input("x", kFloat, {"N", 3, 4});
  dyn.output("y");
  auto *sm = dyn.node("Softmax", {"x"}, {"y"});
  setInt(sm, "axis", 1);
  r = importModel(dyn);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "kiln_graph.Shape %arg0")) << r.text;
}

TEST(OpsetUpgrade, Resize10AndUpsample) {
  ModelBuilder m(10);
  m.input("x", kFloat, {1, 1, 2, 2});
  m.floats("scales", {4}, {1, 1, 2, 2});
  m.output("y", kFloat, {1, 1, 4, 4});
  m.node("Resize", {"x", "scales"}, {"y"});
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(
      contains(r.text, "coordinate_transformation_mode = \"asymmetric\""))
      << r.text;
  EXPECT_TRUE(contains(r.text, "nearest_mode = \"floor\""));
  EXPECT_TRUE(contains(r.text, "none, tensor<4xf32>, none)"));

  ModelBuilder up7(7);
  up7.input("x", kFloat, {1, 1, 2, 2});
  up7.output("y", kFloat, {1, 1, 4, 4});
  auto *up = up7.node("Upsample", {"x"}, {"y"});
  setFloats(up, "scales", {1, 1, 2, 2});
  setString(up, "mode", "linear");
  r = importModel(up7);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "kiln_graph.Resize")) << r.text;
  EXPECT_TRUE(contains(r.text, "mode = \"linear\""));

  ModelBuilder up9(9);
  up9.input("x", kFloat, {1, 1, 2, 2});
  up9.floats("scales", {4}, {1, 1, 2, 2});
  up9.output("y", kFloat, {1, 1, 4, 4});
  up9.node("Upsample", {"x", "scales"}, {"y"});
  r = importModel(up9);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(contains(r.text, "-> tensor<1x1x4x4xf32>")) << r.text;
}

TEST(OpsetUpgrade, BatchNormLegacyAttributes) {
  ModelBuilder m(7);
  m.input("x", kFloat, {1, 2, 3, 3});
  for (const char *p : {"s", "b", "mean", "var"})
    m.floats(p, {2}, {1, 1});
  m.output("y", kFloat, {1, 2, 3, 3});
  auto *bn =
      m.node("BatchNormalization", {"x", "s", "b", "mean", "var"}, {"y"}, "bn");
  setInt(bn, "spatial", 1);
  Imported r = importModel(m);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(contains(r.text, "spatial")) << r.text;

  bn->mutable_attribute(0)->set_i(0);
  r = importModel(m);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.error, "test.onnx: node 'bn' (BatchNormalization, opset 7): "
                     "unsupported: spatial=0");
}

TEST(OpsetUpgrade, OpsetRange) {
  for (int64_t opset : {0, 22}) {
    ModelBuilder m(opset);
    m.input("x", kFloat, {2});
    m.output("y");
    m.node("Relu", {"x"}, {"y"});
    Imported r = importModel(m);
    ASSERT_FALSE(r.ok);
    EXPECT_EQ(r.error, "test.onnx: unsupported default-domain opset " +
                           std::to_string(opset) + " (supported: 1 to 21)");
  }
}

} // namespace
