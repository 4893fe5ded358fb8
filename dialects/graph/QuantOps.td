//===- QuantOps.td - kiln.graph quantization ops -----------*- tablegen -*-===//
//
// ONNX QuantizeLinear and DequantizeLinear: affine maps between floats and
// 8/16/32-bit integers with a per-tensor or per-axis (1-D along `axis`)
// scale and zero point.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_QUANT_OPS
#define KILN_GRAPH_QUANT_OPS

include "dialects/graph/GraphDialect.td"

def Graph_QuantizeLinearOp : Graph_Op<"QuantizeLinear"> {
  let summary = "saturate(round_half_even(x / scale) + zero_point)";
  let arguments = (ins AnyTensor:$x, AnyTensor:$y_scale,
                   Graph_TensorOrNone:$y_zero_point,
                   DefaultValuedAttr<SI64Attr, "1">:$axis,
                   DefaultValuedAttr<I64Attr, "1">:$saturate);
  let results = (outs AnyTensor:$y);
  let inferBody = [{
    ::mlir::Type elt = ::kiln::graph::isNoValue(adaptor.getYZeroPoint())
        ? ::mlir::Type(::mlir::IntegerType::get(ctx, 8,
                                                ::mlir::IntegerType::Unsigned))
        : ::mlir::getElementTypeOrSelf(adaptor.getYZeroPoint().getType());
    return ::kiln::graph::inferSameShape(adaptor.getX(), elt, types);
  }];
}

def Graph_DequantizeLinearOp : Graph_Op<"DequantizeLinear"> {
  let summary = "(x - zero_point) * scale";
  let arguments = (ins AnyTensor:$x, AnyTensor:$x_scale,
                   Graph_TensorOrNone:$x_zero_point,
                   DefaultValuedAttr<SI64Attr, "1">:$axis);
  let results = (outs AnyTensor:$y);
  let inferBody = [{
    return ::kiln::graph::inferSameShape(adaptor.getX(),
        ::mlir::getElementTypeOrSelf(adaptor.getXScale().getType()), types);
  }];
}

#endif // KILN_GRAPH_QUANT_OPS
