//===- KernelDialect.td - kiln.kernel dialect definition ---*- tablegen -*-===//
//
// kiln.kernel holds tensor ops with no upstream home that graph passes
// produce and the to-linalg conversion consumes: convolutions in a packed
// layout with weights already rearranged at compile time, and (later)
// block-sparse and quantized contractions with an epilogue. Its attributes
// carry the per-op schedules the code generators read.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_KERNEL_DIALECT
#define KILN_KERNEL_DIALECT

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Kernel_Dialect : Dialect {
  let name = "kiln_kernel";
  let summary = "Layout-specific kernels of the kiln compiler";
  let description = [{
    Ops take their operands in the layout the micro-kernel reads (NHWC
    activations, HWCF/HWC filters, ...). Layout passes on kiln.graph create
    them; the to-linalg conversion lowers them to upstream named ops.
  }];
  let cppNamespace = "::kiln::kernel";
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Adds the attributes (KernelAttrs.cpp, where their storage is defined).
    void registerAttributes();
  }];
}

class Kernel_Op<string mnemonic, list<Trait> traits = []>
    : Op<Kernel_Dialect, mnemonic, !listconcat(traits, [Pure])>;

#endif // KILN_KERNEL_DIALECT
