//===- GraphDialect.td - kiln.graph dialect definition -----*- tablegen -*-===//
//
// kiln.graph models an ONNX graph after import: one op per ONNX operator,
// with the operator's newest input/attribute form (older opsets are upgraded
// by the importer), value semantics on tensors, and result-type inference.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_DIALECT
#define KILN_GRAPH_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Graph_Dialect : Dialect {
  let name = "kiln_graph";
  let summary = "ONNX-level operators of the kiln compiler";
  let description = [{
    Ops mirror ONNX operators by name (`kiln_graph.Conv`). Optional ONNX
    inputs that are absent are passed as a value of type `none` produced by
    `kiln_graph.NoValue`, so operand positions always match the ONNX schema.
  }];
  let cppNamespace = "::kiln::graph";
  let hasConstantMaterializer = 1;
  let useDefaultAttributePrinterParser = 0;
}

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

def Graph_TensorOrNone : AnyTypeOf<[AnyTensor, NoneType]>;
def Graph_FloatTensor : TensorOf<[AnyFloat]>;

// Every kiln.graph op is side-effect free, infers its result types, and uses
// one textual form. `inferBody` is the C++ statement computing `types` from
// `adaptor`; subclasses that need more set `inferBody` to a helper call.
class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic,
         !listconcat(traits, [Pure, InferTypeOpAdaptorWithIsCompatible])> {
  code inferBody = ?;
  let assemblyFormat =
      "operands attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    bool $cppClass::isCompatibleReturnTypes(::mlir::TypeRange l,
                                            ::mlir::TypeRange r) {
      return ::kiln::graph::areCompatibleTypes(l, r);
    }
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, std::optional<::mlir::Location> loc,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      (void)ctx; (void)loc;
  }] # inferBody # [{
    }
  }];
}

class Graph_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, traits> {
  let arguments = (ins AnyTensor:$X);
  let results = (outs AnyTensor:$Y);
  let inferBody = [{ return ::kiln::graph::inferSameAs(adaptor.getX(), types); }];
}

class Graph_FloatUnaryOp<string mnemonic, list<Trait> traits = []>
    : Graph_UnaryOp<mnemonic, traits> {
  let arguments = (ins Graph_FloatTensor:$X);
}

// Binary ops with ONNX multidirectional broadcasting.
class Graph_BinaryOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, traits> {
  let arguments = (ins AnyTensor:$A, AnyTensor:$B);
  let results = (outs AnyTensor:$C);
  let inferBody = [{
    return ::kiln::graph::inferBroadcast(loc, {adaptor.getA(), adaptor.getB()},
                                         /*resultElt=*/nullptr, types);
  }];
}

class Graph_CompareOp<string mnemonic> : Graph_BinaryOp<mnemonic> {
  let inferBody = [{
    return ::kiln::graph::inferBroadcast(loc, {adaptor.getA(), adaptor.getB()},
        ::mlir::IntegerType::get(ctx, 1), types);
  }];
}

#endif // KILN_GRAPH_DIALECT
