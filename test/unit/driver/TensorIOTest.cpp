//===- TensorIOTest.cpp - .npy and TensorProto reading and writing --------===//
#include "compiler/driver/TensorIO.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <unistd.h>

using kiln::HostTensor;

namespace {

// A fresh directory per test process, removed when the process exits.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/kiln_tensorio_XXXXXX";
    const char *d = mkdtemp(tmpl);
    path = d ? d : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty())
      std::filesystem::remove_all(path, ec);
  }
};

std::string tempDir() {
  static TempDir dir;
  return dir.path;
}

std::string tempPath(const std::string &name) { return tempDir() + "/" + name; }

HostTensor makeTensor(int32_t dtype, std::vector<int64_t> dims,
                      unsigned seed = 1) {
  HostTensor t;
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.bytes.resize(static_cast<size_t>(t.numElements()) *
                 kiln::dtypeByteSize(dtype));
  std::mt19937 rng(seed);
  for (uint8_t &b : t.bytes)
    b = static_cast<uint8_t>(rng());
  if (dtype == KILN_DTYPE_BOOL)
    for (uint8_t &b : t.bytes)
      b &= 1;
  return t;
}

void expectSame(const HostTensor &a, const HostTensor &b) {
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.dims, b.dims);
  EXPECT_EQ(a.bytes, b.bytes);
}

void writeBytes(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char *>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

const int32_t kNpyDtypes[] = {
    KILN_DTYPE_FLOAT32, KILN_DTYPE_FLOAT64, KILN_DTYPE_FLOAT16,
    KILN_DTYPE_INT8,    KILN_DTYPE_INT16,   KILN_DTYPE_INT32,
    KILN_DTYPE_INT64,   KILN_DTYPE_UINT8,   KILN_DTYPE_UINT16,
    KILN_DTYPE_UINT32,  KILN_DTYPE_UINT64,  KILN_DTYPE_BOOL};

const std::vector<std::vector<int64_t>> kShapes = {
    {}, {1}, {5}, {0}, {2, 3}, {3, 0, 2}, {2, 3, 4, 5}};

TEST(Npy, RoundTripsDtypesAndRanks) {
  for (int32_t dtype : kNpyDtypes)
    for (const auto &shape : kShapes) {
      HostTensor t = makeTensor(dtype, shape), back;
      std::string err, path = tempPath("rt.npy");
      ASSERT_TRUE(kiln::writeNpy(path, t, err)) << err;
      ASSERT_TRUE(kiln::readNpy(path, back, err)) << err;
      expectSame(t, back);
      ASSERT_TRUE(kiln::readTensorFile(path, back, err)) << err;
      expectSame(t, back);
    }
}

TEST(Npy, HeaderIsAlignedAndNumpyShaped) {
  std::vector<uint8_t> bytes;
  std::string err;
  ASSERT_TRUE(
      kiln::serializeNpy(makeTensor(KILN_DTYPE_FLOAT32, {3}), bytes, err));
  size_t headerLen = bytes[8] | (bytes[9] << 8);
  EXPECT_EQ((10 + headerLen) % 64, 0u);
  std::string header(bytes.begin() + 10, bytes.begin() + 10 + headerLen);
  EXPECT_EQ(header.rfind("{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (3,), }",
                         0),
            0u)
      << header;
  EXPECT_EQ(header.back(), '\n');
}

// Bytes as numpy 1.x writes np.array([[1, 2, 3], [4, 5, 6]], np.int16).
TEST(Npy, ReadsEmbeddedNumpyFile) {
  std::string header = "{'descr': '<i2', 'fortran_order': False, 'shape': "
                       "(2, 3), }";
  header.append(118 - header.size() - 1, ' ');
  header += '\n';
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 118, 0};
  bytes.insert(bytes.end(), header.begin(), header.end());
  for (int16_t v : {1, 2, 3, 4, 5, 6}) {
    bytes.push_back(static_cast<uint8_t>(v));
    bytes.push_back(0);
  }
  HostTensor t;
  std::string err;
  ASSERT_TRUE(kiln::parseNpy(bytes.data(), bytes.size(), t, err)) << err;
  EXPECT_EQ(t.dtype, KILN_DTYPE_INT16);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 3}));
  int16_t values[6];
  std::memcpy(values, t.bytes.data(), sizeof(values));
  EXPECT_EQ(values[5], 6);
}

TEST(Npy, BigEndianIsSwapped) {
  std::string header =
      "{'descr': '>i4', 'fortran_order': False, 'shape': (1,), }\n";
  std::vector<uint8_t> bytes = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0};
  for (int i = 0; i < 4; ++i)
    bytes.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  bytes.insert(bytes.end(), {0, 0, 1, 2});
  HostTensor t;
  std::string err;
  ASSERT_TRUE(kiln::parseNpy(bytes.data(), bytes.size(), t, err)) << err;
  int32_t v;
  std::memcpy(&v, t.bytes.data(), 4);
  EXPECT_EQ(v, 0x0102);
}

#ifdef KILN_TEST_PYTHON
bool runPython(const std::string &script) {
  std::string path = tempPath("gen.py");
  std::ofstream(path) << script;
  std::string cmd = std::string(KILN_TEST_PYTHON) + " " + path + " 2>/dev/null";
  return std::system(cmd.c_str()) == 0;
}

TEST(Npy, ReadsAndWritesForNumpy) {
  std::string dir = tempDir();
  if (!runPython("import numpy as np\n"
                 "np.save('" +
                 dir +
                 "/np_f32.npy', "
                 "np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 4)\n"
                 "np.save('" +
                 dir +
                 "/np_bool.npy', np.array([True, False]))\n"
                 "np.save('" +
                 dir +
                 "/np_scalar.npy', np.float64(2.5))\n"
                 "np.save('" +
                 dir +
                 "/np_fortran.npy', "
                 "np.asfortranarray(np.ones((2, 3))))\n"))
    GTEST_SKIP() << "numpy is not available";
  HostTensor t;
  std::string err;
  ASSERT_TRUE(kiln::readNpy(dir + "/np_f32.npy", t, err)) << err;
  EXPECT_EQ(t.dtype, KILN_DTYPE_FLOAT32);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 3, 4}));
  float f[24];
  std::memcpy(f, t.bytes.data(), sizeof(f));
  EXPECT_EQ(f[23], 23.0f / 4);
  ASSERT_TRUE(kiln::readNpy(dir + "/np_bool.npy", t, err)) << err;
  EXPECT_EQ(t.dtype, KILN_DTYPE_BOOL);
  EXPECT_EQ(t.bytes, (std::vector<uint8_t>{1, 0}));
  ASSERT_TRUE(kiln::readNpy(dir + "/np_scalar.npy", t, err)) << err;
  EXPECT_TRUE(t.dims.empty());
  EXPECT_EQ(t.dtype, KILN_DTYPE_FLOAT64);
  EXPECT_FALSE(kiln::readNpy(dir + "/np_fortran.npy", t, err));
  EXPECT_NE(err.find("Fortran"), std::string::npos) << err;

  // And numpy reads what we write.
  HostTensor out = makeTensor(KILN_DTYPE_INT64, {3, 2}, 7);
  ASSERT_TRUE(kiln::writeNpy(dir + "/ours.npy", out, err)) << err;
  int64_t v[6];
  std::memcpy(v, out.bytes.data(), sizeof(v));
  EXPECT_TRUE(runPython("import numpy as np\n"
                        "a = np.load('" +
                        dir +
                        "/ours.npy')\n"
                        "assert a.dtype == np.int64 and a.shape == (3, 2)\n"
                        "assert a[2, 1] == " +
                        std::to_string(v[5]) + "\n"));
}

TEST(TensorProto, ReadsOnnxTypedAndRawFields) {
  std::string dir = tempDir();
  if (!runPython(
          "import numpy as np, onnx\n"
          "from onnx import helper, numpy_helper, TensorProto as T\n"
          "def save(name, t):\n"
          "    open('" +
          dir +
          "/' + name, 'wb').write(t.SerializeToString())\n"
          "save('f.pb', helper.make_tensor('f', T.FLOAT, [2, 2], "
          "[1.5, 2, 3, 4]))\n"
          "save('i8.pb', helper.make_tensor('i8', T.INT8, [3], [-1, 0, 7]))\n"
          "save('h.pb', helper.make_tensor('h', T.FLOAT16, [2], "
          "np.array([1, -2], np.float16)))\n"
          "save('l.pb', helper.make_tensor('l', T.INT64, [], [-5]))\n"
          "save('d.pb', helper.make_tensor('d', T.DOUBLE, [1], [0.25]))\n"
          "save('u.pb', helper.make_tensor('u', T.UINT32, [1], [4000000000]))\n"
          "save('raw.pb', numpy_helper.from_array("
          "np.arange(6, dtype=np.int32).reshape(3, 2), 'raw'))\n"))
    GTEST_SKIP() << "onnx is not available";
  HostTensor t;
  std::string err;
  ASSERT_TRUE(kiln::readTensorProto(dir + "/f.pb", t, err)) << err;
  EXPECT_EQ(t.name, "f");
  EXPECT_EQ(t.dims, (std::vector<int64_t>{2, 2}));
  float f[4];
  std::memcpy(f, t.bytes.data(), sizeof(f));
  EXPECT_EQ(f[0], 1.5f);
  EXPECT_EQ(f[3], 4.0f);

  ASSERT_TRUE(kiln::readTensorProto(dir + "/i8.pb", t, err)) << err;
  EXPECT_EQ(t.bytes, (std::vector<uint8_t>{0xff, 0, 7}));
  ASSERT_TRUE(kiln::readTensorProto(dir + "/h.pb", t, err)) << err;
  EXPECT_EQ(t.bytes, (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0xc0}));
  ASSERT_TRUE(kiln::readTensorFile(dir + "/l.pb", t, err)) << err;
  EXPECT_TRUE(t.dims.empty());
  int64_t l;
  std::memcpy(&l, t.bytes.data(), 8);
  EXPECT_EQ(l, -5);
  ASSERT_TRUE(kiln::readTensorProto(dir + "/d.pb", t, err)) << err;
  double d;
  std::memcpy(&d, t.bytes.data(), 8);
  EXPECT_EQ(d, 0.25);
  ASSERT_TRUE(kiln::readTensorProto(dir + "/u.pb", t, err)) << err;
  uint32_t u;
  std::memcpy(&u, t.bytes.data(), 4);
  EXPECT_EQ(u, 4000000000u);
  ASSERT_TRUE(kiln::readTensorProto(dir + "/raw.pb", t, err)) << err;
  EXPECT_EQ(t.dtype, KILN_DTYPE_INT32);
  int32_t r[6];
  std::memcpy(r, t.bytes.data(), sizeof(r));
  EXPECT_EQ(r[5], 5);

  // onnx reads what we write.
  HostTensor out = makeTensor(KILN_DTYPE_FLOAT32, {2, 3});
  out.name = "ours";
  ASSERT_TRUE(kiln::writeTensorProto(dir + "/ours.pb", out, err)) << err;
  float o[6];
  std::memcpy(o, out.bytes.data(), sizeof(o));
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.9g", static_cast<double>(o[4]));
  EXPECT_TRUE(
      runPython("import onnx, numpy as np\nfrom onnx import numpy_helper\n"
                "t = onnx.TensorProto()\n"
                "t.ParseFromString(open('" +
                dir +
                "/ours.pb', 'rb').read())\n"
                "a = numpy_helper.to_array(t)\n"
                "assert t.name == 'ours' and a.shape == (2, 3)\n"
                "assert np.array_equal(a[1, 1], np.float32(" +
                std::string(buf) + ")) or np.isnan(a[1, 1])\n"));
}
#endif

TEST(TensorProto, RoundTripsAllDtypes) {
  std::vector<int32_t> dtypes(std::begin(kNpyDtypes), std::end(kNpyDtypes));
  dtypes.push_back(KILN_DTYPE_BFLOAT16);
  for (int32_t dtype : dtypes)
    for (const auto &shape : kShapes) {
      HostTensor t = makeTensor(dtype, shape), back;
      t.name = "t";
      std::string err, path = tempPath("rt.pb");
      ASSERT_TRUE(kiln::writeTensorFile(path, t, err)) << err;
      ASSERT_TRUE(kiln::readTensorFile(path, back, err)) << err;
      expectSame(t, back);
      EXPECT_EQ(back.name, "t");
    }
}

TEST(TensorIO, RejectsInconsistentTensors) {
  HostTensor t = makeTensor(KILN_DTYPE_FLOAT32, {2, 2});
  t.bytes.pop_back();
  std::string err;
  std::vector<uint8_t> npy;
  EXPECT_FALSE(kiln::serializeNpy(t, npy, err));
  EXPECT_NE(err.find("needs 16 bytes, has 15"), std::string::npos) << err;
  HostTensor bf = makeTensor(KILN_DTYPE_BFLOAT16, {2});
  EXPECT_FALSE(kiln::serializeNpy(bf, npy, err));
  HostTensor neg = makeTensor(KILN_DTYPE_FLOAT32, {});
  neg.dims = {-1};
  std::string pb;
  EXPECT_FALSE(kiln::serializeTensorProto(neg, pb, err));
  EXPECT_FALSE(kiln::readTensorFile(tempPath("missing.npy"), t, err));
  EXPECT_NE(err.find("cannot open"), std::string::npos);
}

// Every prefix of a valid file, and random garbage, must fail cleanly.
TEST(TensorIO, TruncatedAndGarbageFilesFail) {
  HostTensor t = makeTensor(KILN_DTYPE_FLOAT32, {3, 4}), back;
  t.name = "x";
  std::vector<uint8_t> npy;
  std::string pb, err;
  ASSERT_TRUE(kiln::serializeNpy(t, npy, err));
  ASSERT_TRUE(kiln::serializeTensorProto(t, pb, err));
  for (size_t n = 0; n < npy.size(); ++n)
    EXPECT_FALSE(kiln::parseNpy(npy.data(), n, back, err)) << n;
  std::vector<uint8_t> pbBytes(pb.begin(), pb.end());
  for (size_t n = 0; n < pbBytes.size(); ++n) {
    err.clear();
    bool ok = kiln::parseTensorProto(pbBytes.data(), n, back, err);
    // A prefix may still be a well-formed message; then it must be
    // self-consistent.
    if (ok) {
      EXPECT_TRUE(kiln::checkHostTensor(back, err)) << n << ": " << err;
    }
  }
  std::mt19937 rng(42);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> junk(rng() % 200);
    for (uint8_t &b : junk)
      b = static_cast<uint8_t>(rng());
    if (trial % 2 && junk.size() > 10)
      std::memcpy(junk.data(), "\x93NUMPY\x01\x00", 8); // plausible magic
    if (kiln::parseNpy(junk.data(), junk.size(), back, err))
      EXPECT_TRUE(kiln::checkHostTensor(back, err));
    if (kiln::parseTensorProto(junk.data(), junk.size(), back, err))
      EXPECT_TRUE(kiln::checkHostTensor(back, err)) << err;
  }
  // Header lies about the shape: huge dims with no data.
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': "
                       "(4611686018427387904, 4), }\n";
  std::vector<uint8_t> lie = {
      0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<uint8_t>(header.size()),
      0};
  lie.insert(lie.end(), header.begin(), header.end());
  EXPECT_FALSE(kiln::parseNpy(lie.data(), lie.size(), back, err));
  std::string path = tempPath("garbage.pb");
  writeBytes(path, {0xff, 0xff, 0xff, 0xff, 0x0f});
  EXPECT_FALSE(kiln::readTensorFile(path, back, err));
  EXPECT_NE(err.find("garbage.pb"), std::string::npos);
}

// Hand-encoded messages: field 1 dims, 2 data_type, 5 int32_data, 9 raw_data.
TEST(TensorProto, RejectsSizeMismatch) {
  HostTensor back;
  std::string err;
  // dims [5], INT32, two packed int32_data values.
  std::vector<uint8_t> typed = {0x08, 0x05, 0x10, 0x06, 0x2a, 0x02, 0x01, 0x02};
  EXPECT_FALSE(kiln::parseTensorProto(typed.data(), typed.size(), back, err));
  EXPECT_NE(err.find("holds 2 values"), std::string::npos) << err;
  // dims [1], INT32, raw_data of 3 bytes.
  std::vector<uint8_t> raw = {0x08, 0x01, 0x10, 0x06, 0x4a, 0x03, 1, 2, 3};
  EXPECT_FALSE(kiln::parseTensorProto(raw.data(), raw.size(), back, err));
  EXPECT_NE(err.find("raw_data has 3 bytes"), std::string::npos) << err;
  // dims [1], STRING.
  std::vector<uint8_t> str = {0x08, 0x01, 0x10, 0x08};
  EXPECT_FALSE(kiln::parseTensorProto(str.data(), str.size(), back, err));
  EXPECT_NE(err.find("data_type 8"), std::string::npos) << err;
}

} // namespace
