//===- OnnxFiles.cpp - ONNX model files read and written as protobuf ------===//

#include "compiler/driver/OnnxFiles.h"
#include "compiler/driver/Commands.h"

#include "onnx/onnx_pb.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <climits>

namespace kiln::driver {

int readOnnxModel(const std::string &path, onnx::ModelProto &model) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return fail("cannot read " + path + ": " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() > size_t(INT_MAX) ||
      !model.ParseFromArray(bytes.data(), int(bytes.size())))
    return fail(path + ": not a valid ONNX model");
  return 0;
}

std::string writeOnnxModel(const onnx::ModelProto &model,
                           const std::string &path) {
  std::string bytes;
  if (!model.SerializeToString(&bytes))
    return "cannot serialize the model (over 2 GiB?)";
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (!ec) {
    os << bytes;
    os.close();
  }
  if (ec || os.has_error())
    return "cannot write " + path + ": " + (ec ? ec : os.error()).message();
  return "";
}

std::string derivedModelPath(llvm::StringRef input, llvm::StringRef suffix) {
  input.consume_back(".onnx");
  return (input + suffix).str();
}

} // namespace kiln::driver
