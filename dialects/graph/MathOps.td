//===- MathOps.td - kiln.graph elementwise math and logic --*- tablegen -*-===//
//
// Elementwise ONNX operators beyond the arithmetic core in GraphOps.td:
// trigonometry, rounding, activations with parameters, logic and bit ops,
// and the variadic Max/Min/Sum/Mean. All broadcast as ONNX specifies and
// lower through the same scalar-body pattern (Elementwise*.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_MATH_OPS
#define KILN_GRAPH_MATH_OPS

include "dialects/graph/GraphDialect.td"

//===----------------------------------------------------------------------===//
// Unary float math
//===----------------------------------------------------------------------===//

def Graph_SinOp : Graph_FloatUnaryOp<"Sin">;
def Graph_CosOp : Graph_FloatUnaryOp<"Cos">;
def Graph_TanOp : Graph_FloatUnaryOp<"Tan">;
def Graph_AsinOp : Graph_FloatUnaryOp<"Asin">;
def Graph_AcosOp : Graph_FloatUnaryOp<"Acos">;
def Graph_AtanOp : Graph_FloatUnaryOp<"Atan">;
def Graph_SinhOp : Graph_FloatUnaryOp<"Sinh">;
def Graph_CoshOp : Graph_FloatUnaryOp<"Cosh">;
def Graph_AsinhOp : Graph_FloatUnaryOp<"Asinh">;
def Graph_AcoshOp : Graph_FloatUnaryOp<"Acosh">;
def Graph_AtanhOp : Graph_FloatUnaryOp<"Atanh">;
def Graph_ReciprocalOp : Graph_FloatUnaryOp<"Reciprocal">;
def Graph_FloorOp : Graph_FloatUnaryOp<"Floor">;
def Graph_CeilOp : Graph_FloatUnaryOp<"Ceil">;
def Graph_RoundOp : Graph_FloatUnaryOp<"Round"> {
  let summary = "ONNX Round: halves round to the even neighbour";
}
def Graph_SoftplusOp : Graph_FloatUnaryOp<"Softplus">;
def Graph_SoftsignOp : Graph_FloatUnaryOp<"Softsign">;
def Graph_HardSwishOp : Graph_FloatUnaryOp<"HardSwish">;
def Graph_SignOp : Graph_UnaryOp<"Sign">;

def Graph_EluOp : Graph_FloatUnaryOp<"Elu"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha);
}
def Graph_CeluOp : Graph_FloatUnaryOp<"Celu"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha);
}
def Graph_SeluOp : Graph_FloatUnaryOp<"Selu"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "1.67326319217681884765625f">:$alpha,
                   DefaultValuedAttr<F32Attr, "1.05070102214813232421875f">:$gamma);
}
def Graph_ThresholdedReluOp : Graph_FloatUnaryOp<"ThresholdedRelu"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<F32Attr, "1.0f">:$alpha);
}
def Graph_ShrinkOp : Graph_UnaryOp<"Shrink"> {
  let arguments = (ins AnyTensor:$X, DefaultValuedAttr<F32Attr, "0.0f">:$bias,
                   DefaultValuedAttr<F32Attr, "0.5f">:$lambd);
}

def Graph_IsNaNOp : Graph_Op<"IsNaN"> {
  let arguments = (ins Graph_FloatTensor:$X);
  let results = (outs TensorOf<[I1]>:$Y);
  let inferBody = [{
    return ::kiln::graph::inferSameShape(adaptor.getX(),
                                         ::mlir::IntegerType::get(ctx, 1), types);
  }];
}
def Graph_IsInfOp : Graph_Op<"IsInf"> {
  let arguments = (ins Graph_FloatTensor:$X,
                   DefaultValuedAttr<I64Attr, "1">:$detect_negative,
                   DefaultValuedAttr<I64Attr, "1">:$detect_positive);
  let results = (outs TensorOf<[I1]>:$Y);
  let inferBody = [{
    return ::kiln::graph::inferSameShape(adaptor.getX(),
                                         ::mlir::IntegerType::get(ctx, 1), types);
  }];
}

//===----------------------------------------------------------------------===//
// Binary
//===----------------------------------------------------------------------===//

def Graph_GreaterOrEqualOp : Graph_CompareOp<"GreaterOrEqual">;
def Graph_LessOrEqualOp : Graph_CompareOp<"LessOrEqual">;

def Graph_ModOp : Graph_BinaryOp<"Mod"> {
  let summary = "ONNX Mod: fmod = 0 takes the divisor's sign, 1 the dividend's";
  let arguments = (ins AnyTensor:$A, AnyTensor:$B,
                   DefaultValuedAttr<I64Attr, "0">:$fmod);
  let hasFolder = 1;
}
def Graph_PReluOp : Graph_Op<"PRelu"> {
  let arguments = (ins AnyTensor:$X, AnyTensor:$slope);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{
    return ::kiln::graph::inferBroadcast(loc, {adaptor.getX(), adaptor.getSlope()},
                                         /*resultElt=*/nullptr, types);
  }];
}
def Graph_BitShiftOp : Graph_BinaryOp<"BitShift"> {
  let arguments = (ins TensorOf<[UI8, UI16, UI32, UI64]>:$A,
                   TensorOf<[UI8, UI16, UI32, UI64]>:$B, StrAttr:$direction);
}

def Graph_AndOp : Graph_BinaryOp<"And", [Commutative]>;
def Graph_OrOp : Graph_BinaryOp<"Or", [Commutative]>;
def Graph_XorOp : Graph_BinaryOp<"Xor", [Commutative]>;
def Graph_NotOp : Graph_UnaryOp<"Not">;

//===----------------------------------------------------------------------===//
// Variadic, with multidirectional broadcasting over all inputs
//===----------------------------------------------------------------------===//

class Graph_VariadicOp<string mnemonic> : Graph_Op<mnemonic> {
  let arguments = (ins Variadic<AnyTensor>:$data_0);
  let results = (outs AnyTensor:$result);
  let inferBody = [{
    if (adaptor.getData_0().empty())
      return ::mlir::emitOptionalError(loc, "needs at least one input");
    ::llvm::SmallVector<::mlir::Value> inputs(adaptor.getData_0());
    return ::kiln::graph::inferBroadcast(loc, inputs, /*resultElt=*/nullptr,
                                         types);
  }];
}

def Graph_MaxOp : Graph_VariadicOp<"Max">;
def Graph_MinOp : Graph_VariadicOp<"Min">;
def Graph_SumOp : Graph_VariadicOp<"Sum">;
def Graph_MeanOp : Graph_VariadicOp<"Mean">;

#endif // KILN_GRAPH_MATH_OPS
