// Tests of mote::cpu::sgemm against a triple loop in double precision, over
// odd shapes (edge panels in every direction), transposes, beta, epilogues,
// packed operands and 1 or 2 threads.
#include "runtime/cpu/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/cpu/gemm_internal.hpp"
#include "runtime/cpu/simd_target.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "tests/support/op_test_util.hpp"
#include "tests/support/simd_targets.hpp"

namespace mote::cpu {
namespace {

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
// Padding written around C: it must survive every call.
constexpr float kSentinel = -12345.0f;

// A logical rows x cols matrix stored row-major with leading dimension ld,
// transposed in memory when `trans` (then it is cols x rows).
struct Stored {
  std::vector<float> data;
  int64_t ld;
};
Stored store(const std::vector<float>& logical, int64_t rows, int64_t cols, bool trans,
             int64_t pad) {
  const int64_t mem_rows = trans ? cols : rows, mem_cols = trans ? rows : cols;
  Stored s{std::vector<float>(static_cast<size_t>(std::max<int64_t>(1, mem_rows * (mem_cols + pad))),
                              kNaN),  // padding is never read
           mem_cols + pad};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      s.data[trans ? j * s.ld + i : i * s.ld + j] = logical[i * cols + j];
  return s;
}

struct Shape {
  int64_t M, N, K;
};
std::ostream& operator<<(std::ostream& os, const Shape& s) {
  return os << s.M << "x" << s.N << "x" << s.K;
}

enum class Packing { kNone, kA, kB, kBoth, kIndexedA, kIndexedANegative, kRowOffsetB };
const char* name(Packing p) {
  switch (p) {
    case Packing::kNone: return "unpacked";
    case Packing::kA: return "packed A";
    case Packing::kB: return "packed B";
    case Packing::kBoth: return "packed A and B";
    case Packing::kIndexedA: return "indexed A, packed B";
    case Packing::kIndexedANegative:
      return "indexed A (negative column offsets), packed B";
    case Packing::kRowOffsetB:
      return "packed A, B by row offsets";
  }
  return "?";
}

// Inputs of one shape and its exact product, shared by all its variants.
class Case {
 public:
  explicit Case(Shape s, uint32_t seed = 1) : s_(s) {
    a_ = test::random_floats(static_cast<size_t>(s.M * s.K), seed);
    b_ = test::random_floats(static_cast<size_t>(s.K * s.N), seed + 1);
    c0_ = test::random_floats(static_cast<size_t>(s.M * s.N), seed + 2);
    row_bias_ = test::random_floats(static_cast<size_t>(s.M), seed + 3);
    col_bias_ = test::random_floats(static_cast<size_t>(s.N), seed + 4);
    product_.assign(static_cast<size_t>(s.M * s.N), 0.0);
    magnitude_.assign(static_cast<size_t>(s.M * s.N), 0.0);
    for (int64_t i = 0; i < s.M; ++i) {
      for (int64_t k = 0; k < s.K; ++k) {
        const double a = a_[i * s.K + k];
        for (int64_t j = 0; j < s.N; ++j) {
          const double b = b_[k * s.N + j];
          product_[i * s.N + j] += a * b;
          magnitude_[i * s.N + j] += std::abs(a * b);
        }
      }
    }
  }

  // Runs one variant and compares every element of C, and checks that the
  // padding of C was left alone.
  ::testing::AssertionResult check(bool ta, bool tb, float alpha, float beta,
                                   const GemmEpilogue& ep, Packing packing, ThreadPool* pool,
                                   int64_t pad = 0) const {
    const Shape s = s_;
    const Stored A = store(a_, s.M, s.K, ta, pad), B = store(b_, s.K, s.N, tb, pad);
    const int64_t ldc = s.N + pad + 1;
    std::vector<float> C(static_cast<size_t>(s.M * ldc), kSentinel);
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j)
        C[i * ldc + j] = beta == 0.0f ? kNaN : c0_[i * s.N + j];  // NaN must not leak

    const bool pa = packing == Packing::kA || packing == Packing::kBoth;
    const bool pb = packing == Packing::kB || packing == Packing::kBoth;
    if (packing == Packing::kIndexedA || packing == Packing::kIndexedANegative) {
      // A scattered in memory: rows in reverse order with a gap between
      // them, columns in reverse order within a row. With negative column
      // offsets (from a pointer K floats on) the GEMM cannot gather whole
      // panels with 32-bit indices and packs element by element.
      std::vector<float> scattered(static_cast<size_t>(s.M * (s.K + 3) + 1), kNaN);
      std::vector<int64_t> row_offsets(static_cast<size_t>(s.M)), col_offsets(static_cast<size_t>(s.K));
      for (int64_t i = 0; i < s.M; ++i) row_offsets[i] = (s.M - 1 - i) * (s.K + 3) + 1;
      for (int64_t k = 0; k < s.K; ++k) col_offsets[k] = s.K - 1 - k;
      for (int64_t i = 0; i < s.M; ++i)
        for (int64_t k = 0; k < s.K; ++k) scattered[row_offsets[i] + col_offsets[k]] = a_[i * s.K + k];
      const int64_t shift = packing == Packing::kIndexedANegative ? s.K : 0;
      for (int64_t& offset : col_offsets) offset -= shift;
      const PackedMatrix PB = pack_b(tb, s.K, s.N, B.data.data(), B.ld);
      sgemm(IndexedMatrix{scattered.data() + shift, row_offsets.data(), col_offsets.data()}, s.M, alpha, PB, beta,
            C.data(), ldc, ep, pool);
    } else if (packing == Packing::kRowOffsetB) {
      // B's rows in reverse order, each at its own offset with a gap of NaN
      // between them (never read); C = A * B, so alpha 1 and beta 0 only.
      EXPECT_TRUE(!tb && alpha == 1.0f && beta == 0.0f);
      std::vector<float> scattered(static_cast<size_t>(s.K * (s.N + 5) + 2), kNaN);
      std::vector<int64_t> row_offsets(static_cast<size_t>(s.K));
      for (int64_t k = 0; k < s.K; ++k) {
        row_offsets[k] = (s.K - 1 - k) * (s.N + 5) + 2;
        std::copy(b_.begin() + k * s.N, b_.begin() + (k + 1) * s.N, scattered.begin() + row_offsets[k]);
      }
      const PackedMatrix PA = pack_a(ta, s.M, s.K, A.data.data(), A.ld);
      sgemm(PA, RowOffsetMatrix{scattered.data(), row_offsets.data()}, s.N, C.data(), ldc, ep, pool);
    } else if (pa && pb) {
      const PackedMatrix PA = pack_a(ta, s.M, s.K, A.data.data(), A.ld);
      const PackedMatrix PB = pack_b(tb, s.K, s.N, B.data.data(), B.ld);
      sgemm(PA, PB, alpha, beta, C.data(), ldc, ep, pool);
    } else if (pa) {
      const PackedMatrix PA = pack_a(ta, s.M, s.K, A.data.data(), A.ld);
      sgemm(PA, tb, s.N, alpha, B.data.data(), B.ld, beta, C.data(), ldc, ep, pool);
    } else if (pb) {
      const PackedMatrix PB = pack_b(tb, s.K, s.N, B.data.data(), B.ld);
      sgemm(ta, s.M, alpha, A.data.data(), A.ld, PB, beta, C.data(), ldc, ep, pool);
    } else {
      sgemm(ta, tb, s.M, s.N, s.K, alpha, A.data.data(), A.ld, B.data.data(), B.ld, beta,
            C.data(), ldc, ep, pool);
    }

    int64_t bad = 0;
    std::ostringstream first;
    for (int64_t i = 0; i < s.M; ++i) {
      for (int64_t j = 0; j < ldc; ++j) {
        const float got = C[i * ldc + j];
        if (j >= s.N) {
          if (got != kSentinel && bad++ == 0) first << "padding C(" << i << "," << j << ") written";
          continue;
        }
        double want = alpha * product_[i * s.N + j];
        double scale = std::abs(alpha) * magnitude_[i * s.N + j];
        if (beta != 0.0f) {
          want += beta * c0_[i * s.N + j];
          scale += std::abs(beta * c0_[i * s.N + j]);
        }
        if (ep.row_bias) want += ep.row_bias[i], scale += std::abs(ep.row_bias[i]);
        if (ep.residual) {
          want += ep.residual[i * ep.ld_residual + j];
          scale += std::abs(ep.residual[i * ep.ld_residual + j]);
        }
        if (ep.col_bias) want += ep.col_bias[j], scale += std::abs(ep.col_bias[j]);
        want = std::min<double>(std::max<double>(want, ep.clamp_min), ep.clamp_max);
        if (ep.activation) {  // the test's own function, applied once
          float activated = static_cast<float>(want);
          ep.activation(ep.activation_state, &activated, 1);
          want = activated;
          scale *= 2.0;
        }
        // Float accumulation: the error grows with the sum of |terms|.
        const double tol = 1e-5 * scale + 1e-6;
        if (!(std::abs(got - want) <= tol) && bad++ == 0) {
          first << "C(" << i << "," << j << ") = " << got << ", want " << want;
        }
      }
    }
    if (bad == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << bad << " wrong elements, first " << first.str();
  }

  const std::vector<float>& row_bias() const { return row_bias_; }
  const std::vector<float>& col_bias() const { return col_bias_; }

 private:
  Shape s_;
  std::vector<float> a_, b_, c0_, row_bias_, col_bias_;
  std::vector<double> product_, magnitude_;
};

class SgemmShapeTest : public ::testing::TestWithParam<Shape> {};

TEST_P(SgemmShapeTest, MatchesReference) {
  const Shape s = GetParam();
  const Case c(s);
  ThreadPool pool(2);
  const GemmEpilogue plain;
  GemmEpilogue bias_relu;
  bias_relu.row_bias = c.row_bias().data();
  bias_relu.col_bias = c.col_bias().data();
  bias_relu.clamp_min = 0.0f;
  GemmEpilogue clip;
  clip.col_bias = c.col_bias().data();
  clip.clamp_min = -0.5f;
  clip.clamp_max = 0.5f;
  const std::pair<const char*, GemmEpilogue> epilogues[] = {
      {"none", plain}, {"bias+relu", bias_relu}, {"col bias+clip", clip}};

  for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
    for (Packing packing : {Packing::kNone, Packing::kA, Packing::kB, Packing::kBoth}) {
      for (bool ta : {false, true}) {
        for (bool tb : {false, true}) {
          for (float beta : {0.0f, 1.0f}) {
            for (const auto& [ep_name, ep] : epilogues) {
              EXPECT_TRUE(c.check(ta, tb, 1.0f, beta, ep, packing, p))
                  << s << " " << name(packing) << (ta ? " A^T" : "") << (tb ? " B^T" : "")
                  << " beta " << beta << " epilogue " << ep_name << " threads "
                  << (p ? 2 : 1);
            }
          }
        }
      }
    }
  }
}

// Shapes cover 1, 3, 13, 127 and 255 in every position, K deeper than one K
// block with N wider than one L2 slab (37x700x777), the matrix-vector paths
// large enough to use two threads (1x1000x600, 700x1x600), and a narrow B that
// two threads share rather than split (515x40x300). Whole 8-row panels
// before a last partial vector of 1 to 8 columns (on 16-lane vectors: 49,
// 196, 18, 20, 21, 22, 23, 40) take the GEMM's column-tail kernel, the 49
// over two K blocks. Packed B with at most 256 rows of A (37x700x777 across
// K blocks and slabs, 16x49x500, 255x255x255) runs B's panels outside A's
// (gemm_kernel.cpp, PanelsOfBOutside); 515x40x300 does at 2 threads only
// (rows split in two tasks of at most 256).
INSTANTIATE_TEST_SUITE_P(Shapes, SgemmShapeTest,
                         ::testing::Values(Shape{1, 1, 1}, Shape{3, 5, 7}, Shape{1, 255, 127}, Shape{255, 1, 127},
                                           Shape{13, 127, 3}, Shape{127, 13, 255}, Shape{255, 255, 13},
                                           Shape{127, 127, 127}, Shape{255, 3, 255}, Shape{3, 255, 255},
                                           Shape{255, 127, 1}, Shape{13, 13, 13}, Shape{255, 255, 255},
                                           Shape{1, 1000, 600}, Shape{700, 1, 600}, Shape{37, 700, 777},
                                           Shape{515, 40, 300}, Shape{16, 49, 500}, Shape{24, 196, 40},
                                           Shape{8, 18, 9}, Shape{16, 20, 33}, Shape{8, 21, 5}, Shape{16, 22, 400},
                                           Shape{8, 23, 3}),
                         [](const ::testing::TestParamInfo<Shape>& info) {
                           std::ostringstream os;
                           os << info.param;
                           return os.str();
                         });

TEST(Sgemm, AlphaScaleAndPaddedLeadingDimensions) {
  const Case c({61, 77, 150});
  ThreadPool pool(2);
  GemmEpilogue ep;
  ep.row_bias = c.row_bias().data();
  for (Packing packing : {Packing::kNone, Packing::kA, Packing::kB}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        EXPECT_TRUE(c.check(ta, tb, -0.75f, 0.5f, ep, packing, &pool, /*pad=*/5))
            << name(packing) << ta << tb;
        EXPECT_TRUE(c.check(ta, tb, 2.0f, 0.0f, {}, packing, nullptr, /*pad=*/3))
            << name(packing) << ta << tb;
      }
    }
  }
}

// An A too big for one packing chunk is packed in several; a large B.
TEST(Sgemm, ChunkedPacking) {
  ThreadPool pool(2);
  for (Shape s : {Shape{2100, 5, 2000}, Shape{3, 2100, 2000}}) {
    const Case c(s);
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        EXPECT_TRUE(c.check(ta, tb, 1.0f, 1.0f, {}, Packing::kNone, &pool)) << s << ta << tb;
      }
    }
  }
}

// The left operand gathered through offsets as it is packed (a conv's
// patches): edge panels, chunks of A, beta, epilogues, 1 or 2 threads.
TEST(Sgemm, IndexedLeftOperand) {
  ThreadPool pool(2);
  GemmEpilogue relu;
  relu.clamp_min = 0.0f;
  for (Shape s : {Shape{1, 1, 1}, Shape{49, 64, 1152}, Shape{13, 97, 5}, Shape{196, 40, 300}, Shape{2100, 5, 2000}}) {
    const Case c(s);
    GemmEpilogue biased = relu;
    biased.col_bias = c.col_bias().data();
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      EXPECT_TRUE(c.check(false, false, 1.0f, 0.0f, biased, Packing::kIndexedA, p)) << s;
      EXPECT_TRUE(c.check(false, true, -0.5f, 1.0f, {}, Packing::kIndexedA, p, /*pad=*/2)) << s;
      EXPECT_TRUE(c.check(false, false, 1.0f, 0.0f, biased, Packing::kIndexedANegative, p)) << s;
    }
  }
}

// A right operand given by row offsets (a strided convolution's patches,
// conv_phase_planes.hpp): packed per task, or shared by the threads where
// plan_split shares it (515x40x300), read in place never (it has no ldb),
// K deeper than one block, the epilogue with biases and a clamp.
TEST(Sgemm, RowOffsetRightOperand) {
  ThreadPool pool(2);
  for (Shape s : {Shape{1, 1, 1}, Shape{8, 17, 3}, Shape{64, 812, 1152}, Shape{128, 100, 450}, Shape{515, 40, 300},
                  Shape{13, 255, 127}}) {
    const Case c(s);
    GemmEpilogue bias_relu;
    bias_relu.row_bias = c.row_bias().data();
    bias_relu.clamp_min = 0.0f;
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      for (bool ta : {false, true}) {
        EXPECT_TRUE(c.check(ta, false, 1.0f, 0.0f, bias_relu, Packing::kRowOffsetB, p, /*pad=*/1))
            << s << (p ? " 2 threads" : "");
        EXPECT_TRUE(c.check(ta, false, 1.0f, 0.0f, {}, Packing::kRowOffsetB, p)) << s;
      }
    }
  }
}

// The epilogue's activation runs exactly once on every element of C, on
// every path: tiny, matrix-vector, packed (one chunk or several, one or two
// threads, packed or indexed operands) and alpha == 0.
TEST(Sgemm, EpilogueActivationRunsOncePerElement) {
  ThreadPool pool(2);
  GemmEpilogue ep;
  ep.clamp_min = -0.5f;
  ep.activation = [](const void*, float* data, int64_t n) {
    for (int64_t i = 0; i < n; ++i) data[i] = 2.0f * data[i] + 1.0f;  // twice would be 4x + 3
  };
  // 300x700x777: B panels outside A panels over several K blocks and
  // slabs, its rows in two tasks at 2 threads.
  for (Shape s : {Shape{2, 3, 4}, Shape{1, 300, 50}, Shape{70, 1, 40}, Shape{37, 141, 29}, Shape{2100, 5, 2000},
                  Shape{300, 700, 777}}) {
    const Case c(s);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      for (Packing packing : {Packing::kNone, Packing::kA, Packing::kB, Packing::kIndexedA}) {
        EXPECT_TRUE(c.check(false, true, 1.5f, 0.5f, ep, packing, p)) << s << " " << name(packing);
      }
      EXPECT_TRUE(c.check(false, false, 0.0f, 1.0f, ep, Packing::kNone, p)) << s;
    }
  }
}

// A residual matrix (its own leading dimension) is added after the biases
// and before the clamp, on every path.
// With no bound, a lower one (Relu) and both (Clip), with row or column
// biases: the whole-tile write-back has a variant for each, over one K
// block and several (16 x 49 x 500, 60 x 100 x 900).
TEST(Sgemm, EpilogueAddsResidualBeforeClamp) {
  ThreadPool pool(2);
  for (Shape s : {Shape{2, 3, 4}, Shape{1, 300, 50}, Shape{70, 1, 40}, Shape{37, 141, 29}, Shape{2100, 5, 2000},
                  Shape{16, 49, 500}, Shape{60, 100, 900}}) {
    const Case c(s);
    const std::vector<float> residual = test::random_floats(static_cast<size_t>(s.M * (s.N + 3)), 99);
    for (auto [lo, hi] : {std::pair{-HUGE_VALF, HUGE_VALF}, std::pair{0.0f, HUGE_VALF}, std::pair{-0.25f, 0.75f}}) {
      for (bool col_bias : {false, true}) {
        GemmEpilogue ep;
        if (col_bias) {
          ep.col_bias = c.col_bias().data();
        } else {
          ep.row_bias = c.row_bias().data();
        }
        ep.residual = residual.data();
        ep.ld_residual = s.N + 3;
        ep.clamp_min = lo;
        ep.clamp_max = hi;
        for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
          for (Packing packing : {Packing::kNone, Packing::kA, Packing::kB, Packing::kBoth, Packing::kIndexedA}) {
            EXPECT_TRUE(c.check(true, false, 1.0f, 0.0f, ep, packing, p))
                << s << " " << name(packing) << " bounds " << lo << " " << hi << (col_bias ? " column" : " row")
                << " bias";
          }
        }
      }
    }
  }
}

TEST(Sgemm, ZeroAlphaOrDepthOnlyScalesC) {
  const Case c({5, 9, 4});
  GemmEpilogue ep;
  ep.col_bias = c.col_bias().data();
  EXPECT_TRUE(c.check(false, false, 0.0f, 0.5f, ep, Packing::kNone, nullptr));
  EXPECT_TRUE(c.check(false, true, 0.0f, 0.0f, {}, Packing::kA, nullptr));

  std::vector<float> C = {1, 2, 3, 4, 5, 6};
  sgemm(false, false, 2, 3, 0, 1.0f, nullptr, 1, nullptr, 3, 2.0f, C.data(), 3);
  EXPECT_EQ(C, (std::vector<float>{2, 4, 6, 8, 10, 12}));
  sgemm(false, false, 2, 3, 0, 1.0f, nullptr, 1, nullptr, 3, 0.0f, C.data(), 3);
  EXPECT_EQ(C, (std::vector<float>(6, 0.0f)));
}

TEST(Sgemm, EmptyOutputIsANoOp) {
  std::vector<float> A(12, 1.0f), B(12, 1.0f);
  sgemm(false, false, 0, 3, 4, 1.0f, A.data(), 4, B.data(), 3, 0.0f, nullptr, 3);
  sgemm(false, false, 3, 0, 4, 1.0f, A.data(), 4, B.data(), 1, 0.0f, nullptr, 1);
}

TEST(Sgemm, PackedOperandsReportTheirShape) {
  const std::vector<float> W = test::random_floats(6 * 10, 7);
  const PackedMatrix a = pack_a(false, 6, 10, W.data(), 10);
  EXPECT_EQ(a.role(), PackedMatrix::Role::kA);
  EXPECT_EQ(a.rows(), 6);
  EXPECT_EQ(a.cols(), 10);
  EXPECT_GE(a.size_bytes(), 60 * sizeof(float));
  const PackedMatrix b = pack_b(true, 10, 6, W.data(), 10);
  EXPECT_EQ(b.role(), PackedMatrix::Role::kB);
  EXPECT_EQ(b.rows(), 10);
  EXPECT_EQ(b.cols(), 6);
  EXPECT_TRUE(PackedMatrix().empty());
}

TEST(Sgemm, RejectsInvalidArguments) {
  std::vector<float> X(100, 1.0f), C(100);
  // Leading dimensions smaller than a row.
  EXPECT_THROW(sgemm(false, false, 4, 5, 6, 1.0f, X.data(), 5, X.data(), 5, 0.0f, C.data(), 5),
               std::invalid_argument);
  EXPECT_THROW(sgemm(false, true, 4, 5, 6, 1.0f, X.data(), 6, X.data(), 5, 0.0f, C.data(), 5),
               std::invalid_argument);
  EXPECT_THROW(sgemm(false, false, 4, 5, 6, 1.0f, X.data(), 6, X.data(), 5, 0.0f, C.data(), 4),
               std::invalid_argument);
  EXPECT_THROW(sgemm(false, false, -1, 5, 6, 1.0f, X.data(), 6, X.data(), 5, 0.0f, C.data(), 5),
               std::invalid_argument);
  // Packed operands on the wrong side, or with mismatched depths.
  const PackedMatrix a = pack_a(false, 4, 6, X.data(), 6);
  const PackedMatrix b = pack_b(false, 5, 5, X.data(), 5);
  EXPECT_THROW(sgemm(b, false, 5, 1.0f, X.data(), 5, 0.0f, C.data(), 5), std::invalid_argument);
  EXPECT_THROW(sgemm(false, 4, 1.0f, X.data(), 6, a, 0.0f, C.data(), 5), std::invalid_argument);
  EXPECT_THROW(sgemm(a, b, 1.0f, 0.0f, C.data(), 5), std::invalid_argument);
  EXPECT_THROW(sgemm(PackedMatrix(), false, 5, 1.0f, X.data(), 5, 0.0f, C.data(), 5),
               std::invalid_argument);
}

// The tests above run the kernels of the best instruction set of this CPU;
// this one runs each compiled variant the CPU supports (AVX-512, AVX2, scalar
// on a current x86), whose register blocking and packed layouts all differ.
TEST(Sgemm, EveryCompiledTarget) {
  const test::RestoreSimdTargets restore;
  ThreadPool pool(2);
  const std::vector<int64_t> targets = test::kernel_targets_to_test(gemm_detail::targets_for_test());
  if (targets.empty() && test::simd_target_forced()) {
    // The GEMM kernel is not compiled for the forced target (SVE: see
    // gemm_kernel.cpp); it then runs a worse one (NEON), tested in that run.
    GTEST_SKIP() << "the GEMM kernel has no " << std::getenv("MOTE_SIMD_TARGET") << " variant";
  }
  EXPECT_FALSE(targets.empty());
  for (int64_t target : targets) {
    gemm_detail::force_target_for_test(target);
    ASSERT_EQ(gemm_detail::kernel_shape().target, target);
    for (Shape s : {Shape{3, 5, 7}, Shape{1, 70, 33}, Shape{70, 1, 33}, Shape{37, 91, 400},
                    Shape{130, 150, 140}}) {
      const Case c(s);
      GemmEpilogue ep;
      ep.row_bias = c.row_bias().data();
      ep.col_bias = c.col_bias().data();
      ep.clamp_min = 0.0f;
      for (Packing packing : {Packing::kNone, Packing::kA, Packing::kB, Packing::kBoth}) {
        for (bool ta : {false, true}) {
          for (bool tb : {false, true}) {
            for (float beta : {0.0f, 1.0f}) {
              EXPECT_TRUE(c.check(ta, tb, 1.0f, beta, beta == 0.0f ? ep : GemmEpilogue{},
                                  packing, &pool))
                  << "target " << target << " " << s << " " << name(packing) << ta << tb
                  << " beta " << beta;
            }
          }
        }
      }
      // A gathered as it is packed: whole panels by vector gathers, or
      // element by element.
      for (Packing packing : {Packing::kIndexedA, Packing::kIndexedANegative}) {
        EXPECT_TRUE(c.check(false, false, 1.0f, 0.0f, ep, packing, &pool))
            << "target " << target << " " << s << " " << name(packing);
      }
    }
  }
}

// A NaN in A reaches C through every clamp (a ReLU bound below only, a
// Clip bound on both sides) and none, on whole micro-tiles and edge ones,
// with a residual or without, on every compiled target: x86's max and min
// would turn it into the bound.
TEST(Sgemm, NaNPassesTheClampEpilogues) {
  const test::RestoreSimdTargets restore;
  const int64_t M = 37, N = 100, K = 16;
  std::vector<float> A = test::random_floats(static_cast<size_t>(M * K), 41);
  const std::vector<float> B = test::random_floats(static_cast<size_t>(K * N), 42);
  const std::vector<float> residual = test::random_floats(static_cast<size_t>(M * N), 43);
  for (int64_t row : {0, 9, 36}) A[static_cast<size_t>(row * K + 3)] = kNaN;
  for (int64_t target : test::kernel_targets_to_test(gemm_detail::targets_for_test())) {
    gemm_detail::force_target_for_test(target);
    const PackedMatrix packed = pack_a(false, M, K, A.data(), K);
    for (auto [lo, hi] : {std::pair{0.0f, HUGE_VALF}, std::pair{0.0f, 6.0f}, std::pair{-HUGE_VALF, HUGE_VALF}}) {
      for (bool with_residual : {false, true}) {
        GemmEpilogue ep;
        ep.clamp_min = lo;
        ep.clamp_max = hi;
        if (with_residual) {
          ep.residual = residual.data();
          ep.ld_residual = N;
        }
        std::vector<float> C(static_cast<size_t>(M * N));
        sgemm(packed, false, N, 1.0f, B.data(), N, 0.0f, C.data(), N, ep);
        for (int64_t i = 0; i < M; ++i) {
          const bool nan_row = i == 0 || i == 9 || i == 36;
          for (int64_t j = 0; j < N; ++j) {
            const float c = C[static_cast<size_t>(i * N + j)];
            ASSERT_EQ(std::isnan(c), nan_row) << "target " << target << " hi " << hi << " residual " << with_residual
                                              << " at " << i << ", " << j << ": " << c;
            if (!nan_row) ASSERT_TRUE(c >= lo && c <= hi) << c;
          }
        }
      }
    }
  }
}

// Many small products back to back on a shared pool (the pattern of a model).
TEST(Sgemm, RepeatedCallsOnSharedPool) {
  ThreadPool pool(2);
  const Case c({96, 400, 128});  // ~10 MFLOP: uses both threads
  GemmEpilogue ep;
  ep.clamp_min = 0.0f;
  ep.clamp_max = 6.0f;
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(c.check(false, false, 1.0f, 0.0f, ep, Packing::kA, &pool));
  }
}

// Every element sums its products in the same order whatever the split, so
// one and two threads give bit-identical results (private and shared B
// packing, the matrix-vector paths).
TEST(Sgemm, ResultsDoNotDependOnThreads) {
  ThreadPool pool(2);
  for (Shape s : {Shape{1, 1000, 600}, Shape{700, 1, 600}, Shape{255, 255, 255},
                  Shape{515, 40, 300}, Shape{37, 700, 777}}) {
    const std::vector<float> A = test::random_floats(s.M * s.K, 21), B = test::random_floats(s.K * s.N, 22);
    std::vector<float> one(s.M * s.N), two(s.M * s.N);
    for (bool tb : {false, true}) {
      const int64_t ldb = tb ? s.K : s.N;
      sgemm(false, tb, s.M, s.N, s.K, 1.0f, A.data(), s.K, B.data(), ldb, 0.0f, one.data(), s.N);
      sgemm(false, tb, s.M, s.N, s.K, 1.0f, A.data(), s.K, B.data(), ldb, 0.0f, two.data(), s.N,
            {}, &pool);
      EXPECT_EQ(one, two) << s << (tb ? " B^T" : "");
    }
  }
}

// One packed weight used by several threads at once (each with its own
// scratch memory), as concurrent inference sessions would.
TEST(Sgemm, ConcurrentCallsShareAPackedMatrix) {
  const int64_t M = 40, N = 300, K = 200;
  const std::vector<float> A = test::random_floats(M * K, 11), B = test::random_floats(K * N, 12);
  const PackedMatrix packed = pack_a(false, M, K, A.data(), K);
  std::vector<float> want(M * N);
  sgemm(false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f, want.data(), N);
  std::vector<std::vector<float>> got(4, std::vector<float>(M * N));
  std::vector<std::thread> threads;
  for (auto& out : got) {
    threads.emplace_back([&] {
      for (int i = 0; i < 10; ++i) sgemm(packed, false, N, 1.0f, B.data(), N, 0.0f, out.data(), N);
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& out : got) EXPECT_EQ(out, want);
}

}  // namespace
}  // namespace mote::cpu
