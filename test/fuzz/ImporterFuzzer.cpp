//===- ImporterFuzzer.cpp - libFuzzer target for the ONNX importer --------===//
//
// Feeds arbitrary bytes to importOnnxModelFromBuffer. The importer promises
// that malformed input never crashes it and that every failure is one line of
// error; a module it returns must verify. ASan and UBSan (the KILN_FUZZ build)
// catch memory errors and undefined behaviour; the checks below catch broken
// promises that are not crashes.
//
//===----------------------------------------------------------------------===//

#include "compiler/importer/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fail(const char *what, const std::string &detail) {
  llvm::errs() << "ImporterFuzzer: " << what << ": " << detail << "\n";
  std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A fresh context per input: a shared one would keep every uniqued constant
  // of every input alive, and inputs could influence each other. No threads,
  // so each input costs no thread-pool start and stays reproducible.
  mlir::MLIRContext ctx(mlir::MLIRContext::Threading::DISABLED);
  // Diagnostics are expected for bad input; their text is not checked here
  // and printing them would slow the fuzzer down.
  mlir::ScopedDiagnosticHandler quiet(
      &ctx, [](mlir::Diagnostic &) { return mlir::success(); });

  std::string error;
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto module =
      kiln::importer::importOnnxModelFromBuffer(ctx, bytes, "fuzz.onnx", error);
  if (mlir::failed(module)) {
    if (error.empty())
      fail("import failed without an error message", "");
    if (error.find('\n') != std::string::npos)
      fail("error message is not one line", error);
    return 0;
  }
  if (!error.empty())
    fail("import succeeded but set an error", error);
  if (mlir::failed(mlir::verify(module->get())))
    fail("imported module does not verify", "");
  return 0;
}
