// The .npy reader and writer of the tools (sdk/tools/common/npy.hpp): round
// trips, files as numpy writes them, and malformed files that must give an
// error rather than a crash.
#include "sdk/tools/common/npy.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"

namespace mote::tools {
namespace {

// A .npy image with a hand-written header dict, as numpy lays it out: magic,
// version, little-endian header length, dict, data.
std::vector<uint8_t> npy_image(const std::string& dict, const std::vector<uint8_t>& data, uint8_t major = 1) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0};
  size_t length_bytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < length_bytes; ++i) out.push_back(static_cast<uint8_t>(dict.size() >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> float_bytes(const std::vector<float>& values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Result<Tensor> parse(const std::vector<uint8_t>& image) { return parse_npy(image.data(), image.size(), "t.npy"); }

// Expects a failure whose message names the file and contains `fragment`.
void expect_error(const std::vector<uint8_t>& image, const std::string& fragment) {
  auto result = parse(image);
  ASSERT_FALSE(result.ok()) << "expected an error containing '" << fragment << "'";
  EXPECT_NE(result.status().message().find("t.npy"), std::string::npos) << result.status().message();
  EXPECT_NE(result.status().message().find(fragment), std::string::npos) << result.status().message();
}

TEST(Npy, RoundTripsEveryDType) {
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::I8, DType::U8, DType::I32, DType::I64,
                      DType::Bool}) {
    Tensor t = Tensor::zeros(dtype, {2, 3});
    auto* bytes = static_cast<uint8_t*>(t.raw());
    for (size_t i = 0; i < t.bytes(); ++i) bytes[i] = static_cast<uint8_t>(dtype == DType::Bool ? i % 2 : i * 7);
    auto encoded = encode_npy(t);
    ASSERT_TRUE(encoded.ok()) << encoded.status().to_string();
    auto decoded = parse_npy(encoded->data(), encoded->size());
    ASSERT_TRUE(decoded.ok()) << dtype_name(dtype) << ": " << decoded.status().to_string();
    EXPECT_EQ(decoded->dtype(), dtype);
    EXPECT_EQ(decoded->shape(), t.shape());
    EXPECT_EQ(std::memcmp(decoded->raw(), t.raw(), t.bytes()), 0) << dtype_name(dtype);
  }
}

TEST(Npy, EncodesLikeNumpy) {
  // np.save(f, np.zeros((2, 3), np.float32)) writes these 128 header bytes
  // (numpy 2.4): the dict, space padding to a multiple of 64, a newline.
  auto encoded = encode_npy(Tensor::zeros(DType::F32, {2, 3}));
  ASSERT_TRUE(encoded.ok());
  ASSERT_EQ(encoded->size(), 128u + 24u);
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string expected =
      std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict + std::string(128 - 11 - dict.size(), ' ') + "\n";
  EXPECT_EQ(std::string(encoded->begin(), encoded->begin() + 128), expected);
  // 1-D shapes keep Python's trailing comma.
  auto vec = encode_npy(Tensor::zeros(DType::I64, {5}));
  ASSERT_TRUE(vec.ok());
  EXPECT_NE(std::string(vec->begin(), vec->begin() + 64).find("'shape': (5,)"), std::string::npos);
}

TEST(Npy, ReadsScalarsEmptyArraysAndLooseSpacing) {
  auto scalar = parse(npy_image("{'descr':'<f4','fortran_order':False,'shape':()}\n", float_bytes({2.5f})));
  ASSERT_TRUE(scalar.ok()) << scalar.status().to_string();
  EXPECT_EQ(scalar->rank(), 0);
  EXPECT_EQ(scalar->data<float>()[0], 2.5f);

  auto empty = parse(npy_image("{ \"shape\" : ( 0 , 4 ), \"fortran_order\": False, \"descr\": \"<f4\" }   \n", {}));
  ASSERT_TRUE(empty.ok()) << empty.status().to_string();
  EXPECT_EQ(empty->shape(), (Shape{0, 4}));
}

TEST(Npy, ReadsVersion2HeadersAndOneByteOrderMarkers) {
  auto v2 = parse(npy_image("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }\n", {1, 2, 3}, 2));
  ASSERT_TRUE(v2.ok()) << v2.status().to_string();
  EXPECT_EQ(v2->dtype(), DType::U8);
  EXPECT_EQ(v2->data<uint8_t>()[2], 3);
}

TEST(Npy, NormalisesBools) {
  auto b = parse(npy_image("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", {0, 1, 7}));
  ASSERT_TRUE(b.ok()) << b.status().to_string();
  EXPECT_EQ(b->data<uint8_t>()[2], 1);
}

TEST(Npy, RejectsWhatItDoesNotSupport) {
  std::vector<uint8_t> six_floats = float_bytes({1, 2, 3, 4, 5, 6});
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", six_floats), "Fortran");
  expect_error(npy_image("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", six_floats), "big-endian");
  expect_error(npy_image("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", six_floats), "'<c8'");
  expect_error(npy_image("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", six_floats), "not supported");
  expect_error(npy_image("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (6,), }", six_floats),
               "structured");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", six_floats, 9), "version 9");
}

TEST(Npy, RejectsMalformedFiles) {
  std::vector<uint8_t> six_floats = float_bytes({1, 2, 3, 4, 5, 6});
  expect_error({}, "not a .npy");
  expect_error({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0}, "not a .npy");
  // Header length beyond the end of the file.
  std::vector<uint8_t> long_header = npy_image("{'descr': '<f4'}", {});
  long_header[8] = 0xFF;
  long_header[9] = 0xFF;
  expect_error(long_header, "truncated");
  // Data shorter or longer than the shape says.
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", six_floats), "holds 24");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", six_floats), "holds 24");
  // Broken dicts.
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False}", six_floats), "needs the keys");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), 'x': 1}", six_floats),
               "unexpected key");
  expect_error(npy_image("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (6,)}", six_floats),
               "twice");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (6,)}", six_floats), "True or False");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (-6,)}", six_floats), "non-negative");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (6", six_floats), "malformed header");
  expect_error(npy_image("{'descr: '<f4', 'fortran_order': False, 'shape': (6,)}", six_floats), "malformed header");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (6,)} junk", six_floats), "after the dict");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", six_floats),
               "too large");
  expect_error(npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 16)}", six_floats),
               "too large");
}

TEST(Npy, EveryTruncationOfAValidFileIsAnErrorNotACrash) {
  auto encoded = encode_npy(Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  ASSERT_TRUE(encoded.ok());
  for (size_t n = 0; n < encoded->size(); ++n) {
    std::vector<uint8_t> cut(encoded->begin(), encoded->begin() + static_cast<std::ptrdiff_t>(n));
    EXPECT_FALSE(parse_npy(cut.data(), cut.size()).ok()) << "truncated to " << n << " bytes";
  }
}

TEST(Npy, CorruptedHeaderBytesAreErrorsNotCrashes) {
  // Every byte of the prefix and header set to a few telling values: the
  // result may be an error or (for harmless spaces) a tensor, never a crash.
  auto encoded = encode_npy(Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}));
  ASSERT_TRUE(encoded.ok());
  const uint8_t values[] = {0x00, 0xFF, '(', ')', '\'', ',', '9', '{', '}'};
  for (size_t i = 0; i < 64; ++i) {
    for (uint8_t value : values) {
      std::vector<uint8_t> bad = *encoded;
      bad[i] = value;
      auto result = parse_npy(bad.data(), bad.size());
      if (result.ok()) EXPECT_EQ(result->bytes(), 16u) << "byte " << i;
    }
  }
}

TEST(Npy, FilesRoundTripAndMissingFilesAreNamed) {
  test::ScopedTempDir dir("npy");
  std::string path = dir.file("t.npy");
  Tensor t = Tensor::from_vector<int32_t>({3}, {-1, 0, 7});
  ASSERT_TRUE(write_npy(path, t).ok());
  auto back = read_npy(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back.ok()) << back.status().to_string();
  EXPECT_EQ(back->to_int64s(), (std::vector<int64_t>{-1, 0, 7}));

  auto missing = read_npy(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(path), std::string::npos);
  EXPECT_FALSE(read_npy(dir.path()).ok());  // a directory
}

}  // namespace
}  // namespace mote::tools
