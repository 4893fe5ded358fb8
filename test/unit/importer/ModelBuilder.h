//===- ModelBuilder.h - ONNX models for importer tests ----------*- C++ -*-===//
#ifndef KILN_TEST_UNIT_IMPORTER_MODELBUILDER_H
#define KILN_TEST_UNIT_IMPORTER_MODELBUILDER_H

#include "compiler/importer/OnnxImporter.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace kiln::importer::test {

/// A dimension: a size or a dim_param name.
struct Dim {
  Dim(int64_t v) : value(v) {}
  Dim(const char *p) : param(p) {}
  int64_t value = -1;
  std::string param;
};

constexpr int kFloat = onnx::TensorProto_DataType_FLOAT;
constexpr int kInt64 = onnx::TensorProto_DataType_INT64;

/// Builds a ModelProto with one graph, opset `opset` for the default domain.
class ModelBuilder {
public:
  explicit ModelBuilder(int64_t opset = 17) {
    model.set_ir_version(8);
    model.set_producer_name("unit");
    auto *id = model.add_opset_import();
    id->set_domain("");
    id->set_version(opset);
    graph = model.mutable_graph();
    graph->set_name("g");
  }

  static void setType(onnx::TypeProto *type, int elem,
                      const std::vector<Dim> &dims) {
    auto *tt = type->mutable_tensor_type();
    tt->set_elem_type(elem);
    auto *shape = tt->mutable_shape();
    for (const Dim &d : dims) {
      auto *dim = shape->add_dim();
      if (!d.param.empty())
        dim->set_dim_param(d.param);
      else if (d.value >= 0)
        dim->set_dim_value(d.value);
    }
  }
  onnx::ValueInfoProto *input(const std::string &name, int elem,
                              const std::vector<Dim> &dims) {
    auto *vi = graph->add_input();
    vi->set_name(name);
    setType(vi->mutable_type(), elem, dims);
    return vi;
  }
  onnx::ValueInfoProto *output(const std::string &name, int elem,
                               const std::vector<Dim> &dims) {
    auto *vi = graph->add_output();
    vi->set_name(name);
    setType(vi->mutable_type(), elem, dims);
    return vi;
  }
  /// An output without a declared type.
  onnx::ValueInfoProto *output(const std::string &name) {
    auto *vi = graph->add_output();
    vi->set_name(name);
    return vi;
  }
  onnx::ValueInfoProto *valueInfo(const std::string &name, int elem,
                                  const std::vector<Dim> &dims) {
    auto *vi = graph->add_value_info();
    vi->set_name(name);
    setType(vi->mutable_type(), elem, dims);
    return vi;
  }
  onnx::NodeProto *node(const std::string &op,
                        const std::vector<std::string> &inputs,
                        const std::vector<std::string> &outputs,
                        const std::string &name = "") {
    auto *n = graph->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto &i : inputs)
      n->add_input(i);
    for (const auto &o : outputs)
      n->add_output(o);
    return n;
  }
  onnx::TensorProto *initializer(const std::string &name, int elem,
                                 const std::vector<int64_t> &dims) {
    auto *t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(elem);
    for (int64_t d : dims)
      t->add_dims(d);
    return t;
  }
  onnx::TensorProto *floats(const std::string &name,
                            const std::vector<int64_t> &dims,
                            const std::vector<float> &values) {
    auto *t = initializer(name, kFloat, dims);
    for (float v : values)
      t->add_float_data(v);
    return t;
  }
  onnx::TensorProto *ints(const std::string &name,
                          const std::vector<int64_t> &values) {
    auto *t = initializer(name, kInt64, {int64_t(values.size())});
    for (int64_t v : values)
      t->add_int64_data(v);
    return t;
  }

  std::string bytes() const { return model.SerializeAsString(); }

  onnx::ModelProto model;
  onnx::GraphProto *graph;
};

inline onnx::AttributeProto *attr(onnx::NodeProto *n, const std::string &name,
                                  onnx::AttributeProto_AttributeType type) {
  auto *a = n->add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}
inline void setInt(onnx::NodeProto *n, const std::string &name, int64_t v) {
  attr(n, name, onnx::AttributeProto_AttributeType_INT)->set_i(v);
}
inline void setFloat(onnx::NodeProto *n, const std::string &name, float v) {
  attr(n, name, onnx::AttributeProto_AttributeType_FLOAT)->set_f(v);
}
inline void setString(onnx::NodeProto *n, const std::string &name,
                      const std::string &v) {
  attr(n, name, onnx::AttributeProto_AttributeType_STRING)->set_s(v);
}
inline void setInts(onnx::NodeProto *n, const std::string &name,
                    const std::vector<int64_t> &v) {
  auto *a = attr(n, name, onnx::AttributeProto_AttributeType_INTS);
  for (int64_t x : v)
    a->add_ints(x);
}
inline void setFloats(onnx::NodeProto *n, const std::string &name,
                      const std::vector<float> &v) {
  auto *a = attr(n, name, onnx::AttributeProto_AttributeType_FLOATS);
  for (float x : v)
    a->add_floats(x);
}

/// The outcome of one import: the printed module or the error line.
struct Imported {
  bool ok = false;
  std::string text;
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

inline Imported importBytes(mlir::MLIRContext &ctx, const std::string &bytes) {
  Imported r;
  auto m = importOnnxModelFromBuffer(ctx, bytes, "test.onnx", r.error);
  if (mlir::failed(m))
    return r;
  r.ok = true;
  r.module = std::move(*m);
  llvm::raw_string_ostream os(r.text);
  r.module->print(os);
  return r;
}

} // namespace kiln::importer::test

#endif // KILN_TEST_UNIT_IMPORTER_MODELBUILDER_H
