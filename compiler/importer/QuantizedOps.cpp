//===- QuantizedOps.cpp - Integer and QLinear ops as ONNX bodies ----------===//
//
// MatMulInteger, ConvInteger, QLinearMatMul and QLinearConv have no ONNX
// function body. kiln gives them one, built per node because their optional
// zero points and per-row or per-channel parameters change its shape, and
// imports it like any function op (FunctionExpansion.cpp):
//
//   MatMulInteger: (Cast<int32>(A) - a_zp) @ (Cast<int32>(B) - b_zp)
//   ConvInteger:   Conv(Cast<int32>(x) - x_zp, Cast<int32>(w) - w_zp)
//   QLinearMatMul: QuantizeLinear(float(MatMulInteger) * a_scale * b_scale,
//                                 y_scale, y_zp)
//   QLinearConv:   QuantizeLinear(float(ConvInteger + B) * x_scale * w_scale,
//                                 y_scale, y_zp)
//
// Integer accumulation is exact, as the ONNX reference computes it; the
// requantization is QuantizeLinear's (round half to even, saturate).
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/GraphImporter.h"

#include <onnx/defs/function.h>

#include <string>

namespace kiln::importer {

static int rankOf(const std::vector<onnx::TypeProto> &types, size_t i) {
  if (i >= types.size() || !types[i].tensor_type().has_shape())
    return 0;
  return types[i].tensor_type().shape().dim_size();
}

static bool present(const onnx::NodeProto &n, int i) {
  return i < n.input_size() && !n.input(i).empty();
}

/// `out = v` reshaped so a 1-D `v` lines up with `axis` of a rank-`rank`
/// tensor (a scalar or a vector on the last axis broadcasts as it is).
static std::string along(onnx::FunctionBuilder &b, const std::string &out,
                         const std::string &v, int vRank, int axis, int rank) {
  if (vRank != 1 || axis == rank - 1)
    return v;
  std::string axes;
  for (int d = axis + 1; d < rank; ++d)
    axes += (axes.empty() ? "" : ", ") + std::to_string(d - axis);
  b.Add((out + "_axes = Constant <value = int64[" +
         std::to_string(rank - 1 - axis) + "] {" + axes + "}> ()")
            .c_str());
  b.Add((out + " = Unsqueeze (" + v + ", " + out + "_axes)").c_str());
  return out;
}

/// `out = Cast<int32>(x) - Cast<int32>(zp)`, a 1-D zero point (per row or
/// per channel) lined up with `axis` of the rank-`rank` operand.
static void centered(onnx::FunctionBuilder &b, const std::string &out,
                     const std::string &x, const onnx::NodeProto &n,
                     int zpIndex, const std::string &zp, int zpRank, int axis,
                     int rank) {
  b.Add((out + "_i32 = Cast <to = 6> (" + x + ")").c_str());
  if (!present(n, zpIndex)) {
    b.Add((out + " = Identity (" + out + "_i32)").c_str());
    return;
  }
  b.Add((out + "_zp = Cast <to = 6> (" + zp + ")").c_str());
  std::string z = along(b, out + "_zpb", out + "_zp", zpRank, axis, rank);
  b.Add((out + " = Sub (" + out + "_i32, " + z + ")").c_str());
}

static const char *kConvAttrs =
    "<auto_pad: string = @auto_pad, dilations: ints = @dilations, group: int "
    "= @group, kernel_shape: ints = @kernel_shape, pads: ints = @pads, "
    "strides: ints = @strides>";

bool hasKilnBody(llvm::StringRef opType) {
  return opType == "MatMulInteger" || opType == "ConvInteger" ||
         opType == "QLinearMatMul" || opType == "QLinearConv";
}

bool buildKilnBody(const onnx::NodeProto &n,
                   const std::vector<onnx::TypeProto> &types,
                   onnx::FunctionProto &body) {
  const std::string &op = n.op_type();
  if (!hasKilnBody(op))
    return false;
  body.Clear();
  body.set_name(op);
  onnx::OperatorSetIdProto *id = body.add_opset_import();
  id->set_domain("");
  id->set_version(19);
  for (int i = 0; i < n.input_size(); ++i)
    body.add_input("in" + std::to_string(i));
  body.add_output("out");
  auto in = [](int i) { return "in" + std::to_string(i); };
  onnx::FunctionBuilder b(body);
  try {
    if (op == "MatMulInteger") {
      int ra = rankOf(types, 0), rb = rankOf(types, 1);
      centered(b, "a", in(0), n, 2, in(2), rankOf(types, 2), ra - 2, ra);
      centered(b, "b", in(1), n, 3, in(3), rankOf(types, 3), rb - 1, rb);
      b.Add("out = MatMul (a, b)");
    } else if (op == "ConvInteger") {
      int rx = rankOf(types, 0), rw = rankOf(types, 1);
      centered(b, "x", in(0), n, 2, in(2), rankOf(types, 2), 1, rx);
      centered(b, "w", in(1), n, 3, in(3), rankOf(types, 3), 0, rw);
      b.Add((std::string("out = Conv ") + kConvAttrs + " (x, w)").c_str());
    } else if (op == "QLinearMatMul") {
      int ra = rankOf(types, 0), rb = rankOf(types, 3);
      int rank = std::max(ra, rb);
      b.Add(("acc = MatMulInteger (" + in(0) + ", " + in(3) + ", " + in(2) +
             ", " + in(5) + ")")
                .c_str());
      b.Add("accf = Cast <to = 1> (acc)");
      std::string as = along(b, "as", in(1), rankOf(types, 1), rank - 2, rank);
      std::string bs = along(b, "bs", in(4), rankOf(types, 4), rank - 1, rank);
      b.Add(("sa = Mul (accf, " + as + ")").c_str());
      b.Add(("sab = Mul (sa, " + bs + ")").c_str());
      b.Add(
          ("out = QuantizeLinear (sab, " + in(6) + ", " + in(7) + ")").c_str());
    } else { // QLinearConv
      int rx = rankOf(types, 0);
      b.Add((std::string("acc = ConvInteger ") + kConvAttrs + " (" + in(0) +
             ", " + in(3) + ", " + in(2) + ", " + in(5) + ")")
                .c_str());
      std::string acc = "acc";
      if (present(n, 8)) {
        std::string bias = along(b, "bias", in(8), 1, 1, rx);
        b.Add(("accb = Add (acc, " + bias + ")").c_str());
        acc = "accb";
      }
      b.Add(("accf = Cast <to = 1> (" + acc + ")").c_str());
      std::string ws = along(b, "ws", in(4), rankOf(types, 4), 1, rx);
      b.Add(("sx = Mul (accf, " + in(1) + ")").c_str());
      b.Add(("sxw = Mul (sx, " + ws + ")").c_str());
      b.Add(
          ("out = QuantizeLinear (sxw, " + in(6) + ", " + in(7) + ")").c_str());
    }
  } catch (...) {
    return false;
  }
  return true;
}

} // namespace kiln::importer
