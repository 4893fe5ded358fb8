//===- RecurrentOps.td - kiln.graph RNN, GRU and LSTM ------*- tablegen -*-===//
//
// ONNX recurrent ops with every output modelled (Y, Y_h and, for LSTM, Y_c;
// unused ones are removed after lowering). Optional inputs are `none` when
// absent. Lowered by lowering/to-linalg/Recurrent.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_RECURRENT_OPS
#define KILN_GRAPH_RECURRENT_OPS

include "dialects/graph/GraphDialect.td"

class Graph_RecurrentOp<string mnemonic, int numStates, dag extraInputs,
                        dag extraAttrs>
    : Graph_Op<mnemonic> {
  let arguments = !con(
      (ins Graph_FloatTensor:$X, Graph_FloatTensor:$W, Graph_FloatTensor:$R,
           Graph_TensorOrNone:$B, Graph_TensorOrNone:$sequence_lens,
           Graph_TensorOrNone:$initial_h),
      extraInputs,
      (ins OptionalAttr<DenseF32ArrayAttr>:$activation_alpha,
           OptionalAttr<DenseF32ArrayAttr>:$activation_beta,
           OptionalAttr<StrArrayAttr>:$activations,
           OptionalAttr<F32Attr>:$clip,
           DefaultValuedAttr<StrAttr, "\"forward\"">:$direction,
           OptionalAttr<I64Attr>:$hidden_size,
           DefaultValuedAttr<I64Attr, "0">:$layout),
      extraAttrs);
  let inferBody = [{
    return ::kiln::graph::inferRecurrent(loc, adaptor.getX(), adaptor.getR(),
        adaptor.getDirection(), adaptor.getHiddenSize(), adaptor.getLayout(),
        }] # numStates # [{, types);
  }];
}

def Graph_RNNOp : Graph_RecurrentOp<"RNN", 1, (ins), (ins)> {
  let results = (outs AnyTensor:$Y, AnyTensor:$Y_h);
}

def Graph_GRUOp : Graph_RecurrentOp<"GRU", 1, (ins),
    (ins DefaultValuedAttr<I64Attr, "0">:$linear_before_reset)> {
  let results = (outs AnyTensor:$Y, AnyTensor:$Y_h);
}

def Graph_LSTMOp : Graph_RecurrentOp<"LSTM", 2,
    (ins Graph_TensorOrNone:$initial_c, Graph_TensorOrNone:$P),
    (ins DefaultValuedAttr<I64Attr, "0">:$input_forget)> {
  let results = (outs AnyTensor:$Y, AnyTensor:$Y_h, AnyTensor:$Y_c);
}

#endif // KILN_GRAPH_RECURRENT_OPS
