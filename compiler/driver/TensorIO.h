//===- TensorIO.h - Read and write tensors as .npy and ONNX .pb files -----===//
//
// Host-side tensors for the CLI (`kiln run`, `kiln bench`, reference data):
// NumPy .npy (format v1/v2/v3, C order) and ONNX TensorProto .pb files.
// Deliberately free of LLVM/MLIR so tools and tests can link it alone. Every
// function reports failure through its return value and `err`; malformed or
// truncated files never abort.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_DRIVER_TENSORIO_H
#define KILN_COMPILER_DRIVER_TENSORIO_H

#include "kiln_model_abi.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// A dense row-major little-endian tensor in host memory.
struct HostTensor {
  int32_t dtype = KILN_DTYPE_UNDEFINED; ///< kiln_dtype, i.e. an ONNX code
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
  std::string name; ///< from .pb files; empty for .npy

  /// Product of dims (1 for a scalar); -1 if a dim is negative or the
  /// product overflows.
  int64_t numElements() const;
};

/// Bytes per element of a kiln_dtype; 0 for unsupported codes.
size_t dtypeByteSize(int32_t dtype);
/// "float32", "int64", ...; "unknown" for unsupported codes.
const char *dtypeName(int32_t dtype);
/// True if `t` has a supported dtype, non-negative dims and exactly
/// numElements() * dtypeByteSize() bytes; otherwise explains in `err`.
bool checkHostTensor(const HostTensor &t, std::string &err);
/// Element `i` of `t` as a double (bfloat16/float16 widened, integers and
/// bools by value); NaN for unsupported types.
double elementAsDouble(const HostTensor &t, int64_t i);

// NumPy .npy.
bool parseNpy(const uint8_t *data, size_t size, HostTensor &out,
              std::string &err);
bool serializeNpy(const HostTensor &t, std::vector<uint8_t> &out,
                  std::string &err);
bool readNpy(const std::string &path, HostTensor &out, std::string &err);
bool writeNpy(const std::string &path, const HostTensor &t, std::string &err);

// ONNX TensorProto (raw_data or the typed repeated fields; written with
// raw_data).
bool parseTensorProto(const uint8_t *data, size_t size, HostTensor &out,
                      std::string &err);
bool serializeTensorProto(const HostTensor &t, std::string &out,
                          std::string &err);
bool readTensorProto(const std::string &path, HostTensor &out,
                     std::string &err);
bool writeTensorProto(const std::string &path, const HostTensor &t,
                      std::string &err);

/// Reads .npy or .pb: by the NumPy magic, else as a TensorProto.
bool readTensorFile(const std::string &path, HostTensor &out, std::string &err);
/// Writes .npy if `path` ends in ".npy", else a TensorProto.
bool writeTensorFile(const std::string &path, const HostTensor &t,
                     std::string &err);

} // namespace kiln

#endif // KILN_COMPILER_DRIVER_TENSORIO_H
