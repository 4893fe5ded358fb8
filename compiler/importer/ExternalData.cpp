//===- ExternalData.cpp - Initializers stored beside the model ------------===//

#include "compiler/importer/ExternalData.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

namespace kiln::importer {

namespace {

/// `path` is `dir` or below it (both real paths).
bool isWithin(llvm::StringRef path, llvm::StringRef dir) {
  if (!path.starts_with(dir))
    return false;
  return path.size() == dir.size() ||
         llvm::sys::path::is_separator(path[dir.size()]) ||
         (!dir.empty() && llvm::sys::path::is_separator(dir.back()));
}

bool parseNumber(const std::string &text, uint64_t &out) {
  return !text.empty() && !llvm::StringRef(text).getAsInteger(10, out);
}

/// Reads one tensor's external bytes into its raw_data.
bool loadTensor(onnx::TensorProto &t, llvm::StringRef realDir,
                std::string &why) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool hasLength = false;
  for (const onnx::StringStringEntryProto &e : t.external_data()) {
    if (e.key() == "location") {
      location = e.value();
    } else if (e.key() == "offset") {
      if (!parseNumber(e.value(), offset)) {
        why = "bad external data offset '" + e.value() + "'";
        return false;
      }
    } else if (e.key() == "length") {
      if (!parseNumber(e.value(), length)) {
        why = "bad external data length '" + e.value() + "'";
        return false;
      }
      hasLength = true;
    }
  }
  if (location.empty()) {
    why = "external data without a location";
    return false;
  }
  if (llvm::sys::path::is_absolute(location)) {
    why = "external data location '" + location +
          "' is an absolute path; it must be relative to the model's folder";
    return false;
  }
  for (llvm::StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                               llvm::sys::path::end(location)))
    if (part == "..") {
      why =
          "external data location '" + location + "' leaves the model's folder";
      return false;
    }
  llvm::SmallString<256> path(realDir);
  llvm::sys::path::append(path, location);
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(path, real)) {
    why = "cannot open external data file '" + location + "'";
    return false;
  }
  if (!isWithin(real, realDir)) {
    why = "external data location '" + location +
          "' leads out of the model's folder (through a symbolic link)";
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFile(real, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    why = "cannot read external data file '" + location +
          "': " + buffer.getError().message();
    return false;
  }
  uint64_t size = (*buffer)->getBufferSize();
  if (offset > size || (hasLength && length > size - offset)) {
    why = "external data [" + std::to_string(offset) + ", +" +
          (hasLength ? std::to_string(length) : std::string("rest")) +
          ") is outside '" + location + "' (" + std::to_string(size) +
          " bytes)";
    return false;
  }
  if (!hasLength)
    length = size - offset;
  t.set_raw_data((*buffer)->getBufferStart() + offset, length);
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto_DataLocation_DEFAULT);
  return true;
}

} // namespace

bool loadExternalData(onnx::ModelProto &model, llvm::StringRef modelDir,
                      std::string &error) {
  llvm::SmallString<256> realDir;
  bool resolved = false;
  for (onnx::TensorProto &t : *model.mutable_graph()->mutable_initializer()) {
    if (t.data_location() != onnx::TensorProto_DataLocation_EXTERNAL &&
        t.external_data_size() == 0)
      continue;
    auto fail = [&](const std::string &why) {
      error = "initializer '" + t.name() + "': " + why;
      return false;
    };
    if (modelDir.empty())
      return fail("external data needs the model's folder (import the "
                  "model from its file)");
    if (!resolved) {
      if (llvm::sys::fs::real_path(modelDir, realDir))
        return fail("cannot resolve the model's folder");
      resolved = true;
    }
    std::string why;
    if (!loadTensor(t, realDir, why))
      return fail(why);
  }
  return true;
}

} // namespace kiln::importer
