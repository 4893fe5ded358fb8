//===- TensorIO.cpp - Read and write tensors as .npy and ONNX .pb files ---===//
#include "compiler/driver/TensorIO.h"

#include "onnx/onnx_pb.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace kiln {

//===----------------------------------------------------------------------===//
// Common
//===----------------------------------------------------------------------===//

namespace {

struct DtypeEntry {
  int32_t code;
  const char *name;
  size_t size;
  const char *npy; // NumPy kind + size, nullptr if NumPy has no equivalent
};

constexpr DtypeEntry kDtypes[] = {
    {KILN_DTYPE_FLOAT32, "float32", 4, "f4"},
    {KILN_DTYPE_UINT8, "uint8", 1, "u1"},
    {KILN_DTYPE_INT8, "int8", 1, "i1"},
    {KILN_DTYPE_UINT16, "uint16", 2, "u2"},
    {KILN_DTYPE_INT16, "int16", 2, "i2"},
    {KILN_DTYPE_INT32, "int32", 4, "i4"},
    {KILN_DTYPE_INT64, "int64", 8, "i8"},
    {KILN_DTYPE_BOOL, "bool", 1, "b1"},
    {KILN_DTYPE_FLOAT16, "float16", 2, "f2"},
    {KILN_DTYPE_FLOAT64, "float64", 8, "f8"},
    {KILN_DTYPE_UINT32, "uint32", 4, "u4"},
    {KILN_DTYPE_UINT64, "uint64", 8, "u8"},
    {KILN_DTYPE_BFLOAT16, "bfloat16", 2, nullptr},
};

const DtypeEntry *findDtype(int32_t code) {
  for (const DtypeEntry &e : kDtypes)
    if (e.code == code)
      return &e;
  return nullptr;
}

bool fail(std::string &err, std::string msg) {
  err = std::move(msg);
  return false;
}

bool readFile(const std::string &path, std::vector<uint8_t> &out,
              std::string &err) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(err, "cannot open '" + path + "'");
  out.assign(std::istreambuf_iterator<char>(in),
             std::istreambuf_iterator<char>());
  if (in.bad())
    return fail(err, "cannot read '" + path + "'");
  return true;
}

bool writeFile(const std::string &path, const void *data, size_t size,
               std::string &err) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    return fail(err, "cannot create '" + path + "'");
  out.write(static_cast<const char *>(data),
            static_cast<std::streamsize>(size));
  out.close();
  if (!out)
    return fail(err, "cannot write '" + path + "'");
  return true;
}

// Byte count of `count` elements of `dtype`, or false on overflow.
bool byteCount(int64_t count, size_t elem, uint64_t &bytes) {
  if (count < 0 || elem == 0 ||
      static_cast<uint64_t>(count) >
          std::numeric_limits<uint64_t>::max() / elem)
    return false;
  bytes = static_cast<uint64_t>(count) * elem;
  return bytes <= std::numeric_limits<size_t>::max();
}

int64_t numElementsOf(const std::vector<int64_t> &dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d != 0 && n > std::numeric_limits<int64_t>::max() / d))
      return -1;
    n *= d;
  }
  return n;
}

std::string shapeString(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

} // namespace

int64_t HostTensor::numElements() const { return numElementsOf(dims); }

size_t dtypeByteSize(int32_t dtype) {
  const DtypeEntry *e = findDtype(dtype);
  return e ? e->size : 0;
}

const char *dtypeName(int32_t dtype) {
  const DtypeEntry *e = findDtype(dtype);
  return e ? e->name : "unknown";
}

bool checkHostTensor(const HostTensor &t, std::string &err) {
  size_t elem = dtypeByteSize(t.dtype);
  if (!elem)
    return fail(err, "unsupported dtype " + std::to_string(t.dtype));
  uint64_t need;
  if (!byteCount(t.numElements(), elem, need))
    return fail(err, "invalid shape " + shapeString(t.dims));
  if (t.bytes.size() != need)
    return fail(err, "tensor of shape " + shapeString(t.dims) + " and dtype " +
                         dtypeName(t.dtype) + " needs " + std::to_string(need) +
                         " bytes, has " + std::to_string(t.bytes.size()));
  return true;
}

//===----------------------------------------------------------------------===//
// NumPy .npy
//===----------------------------------------------------------------------===//

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicLen = 6;

// Parser for the header: a Python dict literal with string keys whose values
// are strings, True/False, or tuples of integers.
class NpyHeaderParser {
public:
  explicit NpyHeaderParser(const std::string &text) : s(text) {}

  bool parse(std::string &descr, bool &fortran, std::vector<int64_t> &shape,
             std::string &err) {
    bool haveDescr = false, haveFortran = false, haveShape = false;
    skipSpace();
    if (!eat('{'))
      return fail(err, "npy header is not a dict");
    while (true) {
      skipSpace();
      if (eat('}'))
        break;
      std::string key;
      if (!parseString(key))
        return fail(err, "npy header: expected a quoted key");
      skipSpace();
      if (!eat(':'))
        return fail(err, "npy header: expected ':' after '" + key + "'");
      skipSpace();
      if (key == "descr") {
        if (!parseString(descr))
          return fail(err, "npy header: 'descr' is not a simple type string "
                           "(structured dtypes are unsupported)");
        haveDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(fortran))
          return fail(err, "npy header: 'fortran_order' is not True/False");
        haveFortran = true;
      } else if (key == "shape") {
        if (!parseShape(shape))
          return fail(err, "npy header: 'shape' is not a tuple of integers");
        haveShape = true;
      } else {
        return fail(err, "npy header: unexpected key '" + key + "'");
      }
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      if (eat('}'))
        break;
      return fail(err, "npy header: expected ',' or '}'");
    }
    if (!haveDescr || !haveFortran || !haveShape)
      return fail(err, "npy header: missing descr, fortran_order or shape");
    return true;
  }

private:
  bool eat(char c) {
    if (pos < s.size() && s[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }
  void skipSpace() {
    while (pos < s.size() && (s[pos] == ' ' || s[pos] == '\t' ||
                              s[pos] == '\n' || s[pos] == '\r'))
      ++pos;
  }
  bool parseString(std::string &out) {
    if (pos >= s.size() || (s[pos] != '\'' && s[pos] != '"'))
      return false;
    char quote = s[pos++];
    size_t end = s.find(quote, pos);
    if (end == std::string::npos)
      return false;
    out = s.substr(pos, end - pos);
    pos = end + 1;
    return true;
  }
  bool parseBool(bool &out) {
    if (s.compare(pos, 4, "True") == 0) {
      pos += 4;
      out = true;
      return true;
    }
    if (s.compare(pos, 5, "False") == 0) {
      pos += 5;
      out = false;
      return true;
    }
    return false;
  }
  bool parseInt(int64_t &out) {
    size_t start = pos;
    int64_t v = 0;
    while (pos < s.size() && s[pos] >= '0' && s[pos] <= '9') {
      int digit = s[pos++] - '0';
      if (v > (std::numeric_limits<int64_t>::max() - digit) / 10)
        return false;
      v = v * 10 + digit;
    }
    // Python 2 era files may write longs as "3L".
    if (pos > start && pos < s.size() && s[pos] == 'L')
      ++pos;
    out = v;
    return pos > start;
  }
  bool parseShape(std::vector<int64_t> &out) {
    out.clear();
    if (!eat('('))
      return false;
    while (true) {
      skipSpace();
      if (eat(')'))
        return true;
      int64_t v;
      if (!parseInt(v))
        return false;
      out.push_back(v);
      skipSpace();
      if (eat(','))
        continue;
      skipSpace();
      return eat(')');
    }
  }

  const std::string &s;
  size_t pos = 0;
};

uint32_t readLE(const uint8_t *p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

void byteSwap(std::vector<uint8_t> &bytes, size_t elem) {
  for (size_t i = 0; i + elem <= bytes.size(); i += elem)
    for (size_t a = i, b = i + elem - 1; a < b; ++a, --b)
      std::swap(bytes[a], bytes[b]);
}

} // namespace

bool parseNpy(const uint8_t *data, size_t size, HostTensor &out,
              std::string &err) {
  if (size < kNpyMagicLen + 2 || std::memcmp(data, kNpyMagic, kNpyMagicLen))
    return fail(err, "not a .npy file (bad magic)");
  uint8_t major = data[6];
  size_t lenBytes = major == 1 ? 2 : (major == 2 || major == 3) ? 4 : 0;
  if (!lenBytes)
    return fail(err, "unsupported .npy version " + std::to_string(major));
  size_t prefix = kNpyMagicLen + 2 + lenBytes;
  if (size < prefix)
    return fail(err, "truncated .npy header");
  size_t headerLen = readLE(data + kNpyMagicLen + 2, lenBytes);
  if (headerLen > size - prefix)
    return fail(err, "truncated .npy header");
  std::string header(reinterpret_cast<const char *>(data + prefix), headerLen);

  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
  if (!NpyHeaderParser(header).parse(descr, fortran, shape, err))
    return false;
  if (fortran)
    return fail(err, ".npy file is in Fortran order; only C order is "
                     "supported");
  if (descr.size() < 3)
    return fail(err, "unsupported .npy dtype '" + descr + "'");
  char order = descr[0];
  std::string kind = descr.substr(1);
  const DtypeEntry *dtype = nullptr;
  for (const DtypeEntry &e : kDtypes)
    if (e.npy && kind == e.npy)
      dtype = &e;
  if (!dtype || (order != '<' && order != '>' && order != '|' && order != '='))
    return fail(err, "unsupported .npy dtype '" + descr + "'");

  uint64_t need;
  if (!byteCount(numElementsOf(shape), dtype->size, need))
    return fail(err, "invalid .npy shape " + shapeString(shape));
  size_t offset = prefix + headerLen;
  if (need > size - offset)
    return fail(err, "truncated .npy data: shape " + shapeString(shape) +
                         " needs " + std::to_string(need) +
                         " bytes, file has " + std::to_string(size - offset));
  out.dtype = dtype->code;
  out.dims = std::move(shape);
  out.bytes.assign(data + offset, data + offset + need);
  out.name.clear();
  if (order == '>' && dtype->size > 1)
    byteSwap(out.bytes, dtype->size);
  return true;
}

bool serializeNpy(const HostTensor &t, std::vector<uint8_t> &out,
                  std::string &err) {
  if (!checkHostTensor(t, err))
    return false;
  const DtypeEntry *dtype = findDtype(t.dtype);
  if (!dtype->npy)
    return fail(err, std::string("NumPy has no ") + dtype->name + " dtype");
  std::string header = std::string("{'descr': '") +
                       (dtype->size == 1 ? '|' : '<') + dtype->npy +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < t.dims.size(); ++i)
    header += (i ? ", " : "") + std::to_string(t.dims[i]);
  if (t.dims.size() == 1)
    header += ",";
  header += "), }";
  // NumPy pads with spaces and a newline so the data is 64-byte aligned.
  size_t lenBytes = header.size() + 1 + 10 <= 65535 ? 2 : 4;
  size_t prefix = kNpyMagicLen + 2 + lenBytes;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  out.clear();
  out.insert(out.end(), kNpyMagic, kNpyMagic + kNpyMagicLen);
  out.push_back(lenBytes == 2 ? 1 : 2);
  out.push_back(0);
  for (size_t i = 0; i < lenBytes; ++i)
    out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), t.bytes.begin(), t.bytes.end());
  return true;
}

bool readNpy(const std::string &path, HostTensor &out, std::string &err) {
  std::vector<uint8_t> data;
  if (!readFile(path, data, err))
    return false;
  if (!parseNpy(data.data(), data.size(), out, err))
    return fail(err, path + ": " + err);
  return true;
}

bool writeNpy(const std::string &path, const HostTensor &t, std::string &err) {
  std::vector<uint8_t> data;
  if (!serializeNpy(t, data, err))
    return fail(err, path + ": " + err);
  return writeFile(path, data.data(), data.size(), err);
}

//===----------------------------------------------------------------------===//
// ONNX TensorProto
//===----------------------------------------------------------------------===//

namespace {

// Copies typed repeated-field values into little-endian bytes of `elem` size
// each (narrowing int32_data for the small types, as ONNX specifies).
template <typename Field>
void packValues(const Field &values, size_t elem, std::vector<uint8_t> &out) {
  out.resize(static_cast<size_t>(values.size()) * elem);
  uint8_t *p = out.data();
  for (const auto &v : values) {
    if (sizeof(v) == elem) {
      std::memcpy(p, &v, elem);
    } else {
      uint64_t bits = static_cast<uint64_t>(v);
      for (size_t i = 0; i < elem; ++i)
        p[i] = static_cast<uint8_t>(bits >> (8 * i));
    }
    p += elem;
  }
}

} // namespace

bool parseTensorProto(const uint8_t *data, size_t size, HostTensor &out,
                      std::string &err) {
  if (size > static_cast<size_t>(INT_MAX))
    return fail(err, "TensorProto file larger than 2 GiB");
  onnx::TensorProto proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size)))
    return fail(err, "not a valid ONNX TensorProto");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return fail(err, "TensorProto with external data is unsupported");
  if (proto.has_segment())
    return fail(err, "segmented TensorProto is unsupported");
  int32_t code = proto.data_type();
  const DtypeEntry *dtype = findDtype(code);
  if (!dtype)
    return fail(err,
                "unsupported TensorProto data_type " + std::to_string(code));
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  int64_t count = numElementsOf(dims);
  uint64_t need;
  if (!byteCount(count, dtype->size, need))
    return fail(err, "invalid TensorProto shape " + shapeString(dims));

  std::vector<uint8_t> bytes;
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != need)
      return fail(err, "TensorProto raw_data has " +
                           std::to_string(raw.size()) + " bytes, shape " +
                           shapeString(dims) + " needs " +
                           std::to_string(need));
    bytes.assign(raw.begin(), raw.end());
  } else {
    int64_t have = -1;
    switch (code) {
    case KILN_DTYPE_FLOAT32:
      have = proto.float_data_size();
      packValues(proto.float_data(), dtype->size, bytes);
      break;
    case KILN_DTYPE_FLOAT64:
      have = proto.double_data_size();
      packValues(proto.double_data(), dtype->size, bytes);
      break;
    case KILN_DTYPE_INT64:
      have = proto.int64_data_size();
      packValues(proto.int64_data(), dtype->size, bytes);
      break;
    case KILN_DTYPE_UINT32:
    case KILN_DTYPE_UINT64:
      have = proto.uint64_data_size();
      packValues(proto.uint64_data(), dtype->size, bytes);
      break;
    default: // int32, int16, int8, uint16, uint8, bool, float16, bfloat16
      have = proto.int32_data_size();
      packValues(proto.int32_data(), dtype->size, bytes);
      break;
    }
    if (have != count)
      return fail(err, "TensorProto holds " + std::to_string(have) +
                           " values, shape " + shapeString(dims) + " needs " +
                           std::to_string(count));
  }
  out.dtype = code;
  out.dims = std::move(dims);
  out.bytes = std::move(bytes);
  out.name = proto.name();
  return true;
}

bool serializeTensorProto(const HostTensor &t, std::string &out,
                          std::string &err) {
  if (!checkHostTensor(t, err))
    return false;
  onnx::TensorProto proto;
  proto.set_data_type(t.dtype);
  for (int64_t d : t.dims)
    proto.add_dims(d);
  if (!t.name.empty())
    proto.set_name(t.name);
  proto.set_raw_data(t.bytes.data(), t.bytes.size());
  if (!proto.SerializeToString(&out))
    return fail(err, "cannot serialize TensorProto (over 2 GiB?)");
  return true;
}

bool readTensorProto(const std::string &path, HostTensor &out,
                     std::string &err) {
  std::vector<uint8_t> data;
  if (!readFile(path, data, err))
    return false;
  if (!parseTensorProto(data.data(), data.size(), out, err))
    return fail(err, path + ": " + err);
  return true;
}

bool writeTensorProto(const std::string &path, const HostTensor &t,
                      std::string &err) {
  std::string data;
  if (!serializeTensorProto(t, data, err))
    return fail(err, path + ": " + err);
  return writeFile(path, data.data(), data.size(), err);
}

//===----------------------------------------------------------------------===//
// By file type
//===----------------------------------------------------------------------===//

namespace {
bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}
} // namespace

bool readTensorFile(const std::string &path, HostTensor &out,
                    std::string &err) {
  std::vector<uint8_t> data;
  if (!readFile(path, data, err))
    return false;
  bool isNpy = data.size() >= kNpyMagicLen &&
               std::memcmp(data.data(), kNpyMagic, kNpyMagicLen) == 0;
  bool ok = isNpy ? parseNpy(data.data(), data.size(), out, err)
                  : parseTensorProto(data.data(), data.size(), out, err);
  if (!ok)
    return fail(err, path + ": " + err);
  return true;
}

bool writeTensorFile(const std::string &path, const HostTensor &t,
                     std::string &err) {
  return endsWith(path, ".npy") ? writeNpy(path, t, err)
                                : writeTensorProto(path, t, err);
}

double elementAsDouble(const HostTensor &t, int64_t i) {
  const uint8_t *p = t.bytes.data() + i * dtypeByteSize(t.dtype);
  auto load = [&](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.dtype) {
  case KILN_DTYPE_FLOAT32:
    return load(float());
  case KILN_DTYPE_FLOAT64:
    return load(double());
  case KILN_DTYPE_UINT8:
  case KILN_DTYPE_BOOL:
    return load(uint8_t());
  case KILN_DTYPE_INT8:
    return load(int8_t());
  case KILN_DTYPE_UINT16:
    return load(uint16_t());
  case KILN_DTYPE_INT16:
    return load(int16_t());
  case KILN_DTYPE_INT32:
    return load(int32_t());
  case KILN_DTYPE_UINT32:
    return load(uint32_t());
  case KILN_DTYPE_INT64:
    return (double)load(int64_t());
  case KILN_DTYPE_UINT64:
    return (double)load(uint64_t());
  case KILN_DTYPE_BFLOAT16: {
    uint32_t bits = (uint32_t)load(uint16_t()) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case KILN_DTYPE_FLOAT16: {
    uint16_t h = load(uint16_t());
    int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    double v = exponent == 0    ? std::ldexp(mantissa, -24)
               : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                : std::ldexp(mantissa | 0x400, exponent - 25);
    return (h & 0x8000) ? -v : v;
  }
  default:
    return NAN;
  }
}

} // namespace kiln
