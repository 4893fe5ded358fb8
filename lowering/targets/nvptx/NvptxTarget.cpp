//===- NvptxTarget.cpp - NVIDIA GPUs through PTX --------------------------===//
//
// `--target sm_80` (and the other chips below): kernels compiled to PTX for
// that chip and embedded in an x86-64 host library, whose run function
// copies tensors to the device, launches the kernels through kiln_rt's CUDA
// launcher and copies the outputs back. The host side is an ordinary x86-64
// library (baseline x86-64 unless `--cpu` says otherwise), so it links
// and loads like one; the driver JIT-compiles the PTX for the GPU it finds.
//
//===----------------------------------------------------------------------===//

#include "lowering/emit/Linker.h"
#include "lowering/gpu/GpuPipeline.h"
#include "lowering/targets/TargetBackend.h"

#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"

namespace kiln {
namespace {

class NvptxTargetBackend : public TargetBackend {
public:
  NvptxTargetBackend(std::string chip, std::string ptxFeatures)
      : chip(std::move(chip)), ptxFeatures(std::move(ptxFeatures)),
        description("NVIDIA " + this->chip +
                    " (PTX kernels, x86-64 host code; CUDA driver at run "
                    "time)") {}

  llvm::StringRef getName() const override { return chip; }
  llvm::StringRef getDescription() const override { return description; }
  std::string getTriple() const override { return "x86_64-linux-gnu"; }
  /// The host side only copies and launches: baseline x86-64 loads on any
  /// machine a GPU sits in.
  std::string getDefaultCpu() const override { return "x86-64"; }
  std::string getDevice(const TargetOptions &options) const override {
    return options.emulateDevice ? "" : "cuda:" + chip;
  }
  /// tf32: f32 contractions on tensor cores (10-bit mantissa inputs, f32
  /// accumulation), as TensorRT does by default; fp32 keeps IEEE products.
  std::vector<std::string> getPrecisions(const TargetOptions &) const override {
    return {"fp32", "tf32"};
  }

  void appendDialectRegistry(mlir::DialectRegistry &registry) const override {
    mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);
    mlir::registerBuiltinDialectTranslation(registry);
    mlir::registerLLVMDialectTranslation(registry);
    mlir::registerNVVMDialectTranslation(registry);
    mlir::registerGPUDialectTranslation(registry);
    mlir::gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(
        registry);
  }

  void buildLoweringPipeline(mlir::OpPassManager &pm,
                             const TargetOptions &options) const override {
    GpuPipelineOptions gpu;
    gpu.chip = chip;
    gpu.features = ptxFeatures;
    gpu.optLevel = options.optLevel;
    gpu.toolkitPath = findCudaToolkit();
    gpu.tf32 = options.precision == "tf32";
    gpu.emulate = options.emulateDevice;
    buildGpuLoweringPipeline(pm, gpu);
  }

  llvm::Error linkSharedLibrary(llvm::ArrayRef<std::string> objects,
                                llvm::StringRef output) const override {
    return linkSharedLibraryWithLld(objects, output,
                                    {"-L/usr/lib/x86_64-linux-gnu",
                                     "-L/lib/x86_64-linux-gnu", "-lm", "-lc"});
  }

private:
  std::string chip, ptxFeatures, description;
};

} // namespace

void registerNvptxTarget() {
  // PTX 8.0 (CUDA 12.0 drivers) is the newest ISA every listed chip takes
  // from this LLVM; the driver JIT-compiles it for newer GPUs too.
  for (const char *chip : {"sm_80", "sm_86", "sm_89", "sm_90"})
    registerTarget(chip, [chip] {
      return std::make_unique<NvptxTargetBackend>(chip, "+ptx80");
    });
}

} // namespace kiln
