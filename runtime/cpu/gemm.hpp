// Single-precision matrix multiplication for the CPU kernels (Conv, Gemm,
// MatMul).
//
//   C[M,N] = clamp(alpha * op(A)[M,K] * op(B)[K,N] + beta * C
//                  + row_bias[M] + col_bias[N], clamp_min, clamp_max)
//
// All matrices are row-major with leading dimensions (distance between rows,
// in elements); op(X) is X or its transpose. The SIMD code is compiled for
// several instruction sets (AVX-512, AVX2, NEON, plus a scalar fallback) and
// the best one the CPU supports is chosen at run time.
//
// Constant operands (weights) can be packed once into the layout the
// micro-kernel reads, so a model pays for that copy at load time only:
//
//   PackedMatrix w = pack_a(false, M, K, weights, K);       // at model load
//   sgemm(w, false, N, 1.0f, im2col, N, 0.0f, out, N, {bias, nullptr, 0.0f},
//         pool);                                             // Conv + Relu
//
// Threads: with a pool, a product splits over its threads once it is worth
// it (a few MFLOP per thread); smaller ones run on the calling thread. Any
// number of threads may call sgemm at once (each has its own scratch memory,
// kept between calls), but a ThreadPool runs one call at a time, so do not
// pass the pool from inside one of its own tasks. Results do not depend on
// the number of threads: every element sums its products in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

namespace mote {
class ThreadPool;
}

namespace mote::cpu {

// Applied to every element of C as it is stored, after alpha and beta:
// adds row_bias[i], col_bias[j] and residual(i, j) (each optional), clamps to
// [clamp_min, clamp_max], then runs `activation` if set. Relu is
// {.., .., 0}; Relu6/Clip set both bounds.
struct GemmEpilogue {
  const float* row_bias = nullptr;  // length M, or nullptr
  const float* col_bias = nullptr;  // length N, or nullptr
  // Added after the biases, before the clamp: element (i, j) of an M x N
  // matrix at residual[i * ld_residual + j] (a Conv's residual input).
  const float* residual = nullptr;
  int64_t ld_residual = 0;
  float clamp_min = -std::numeric_limits<float>::infinity();
  float clamp_max = std::numeric_limits<float>::infinity();
  // Applied last, exactly once to every element of C, a row segment of a
  // finished tile at a time while it is still in cache: the activations
  // that are more than a clamp (SiLU, HardSwish...). Called from the pool's
  // threads or the calling one, with `activation_state` passed through.
  void (*activation)(const void* state, float* data, int64_t n) = nullptr;
  const void* activation_state = nullptr;
};

// An operand copied into the micro-kernel's panel layout, about the size of
// the original. It owns its (64-byte aligned) memory and is immutable, so one
// packed weight can serve concurrent sgemm calls. The layout depends on the
// instruction set chosen at run time: use it in the process that packed it
// (sgemm throws std::invalid_argument otherwise).
class PackedMatrix {
 public:
  enum class Role : uint8_t { kNone, kA, kB };

  PackedMatrix() = default;
  PackedMatrix(PackedMatrix&&) noexcept = default;
  PackedMatrix& operator=(PackedMatrix&&) noexcept = default;

  bool empty() const { return data_ == nullptr; }
  Role role() const { return role_; }
  // Shape of op(X) as it enters the product: M x K for A, K x N for B.
  int64_t rows() const { return rows_; }
  int64_t cols() const { return cols_; }
  size_t size_bytes() const { return floats_ * sizeof(float); }

 private:
  friend struct PackedMatrixAccess;
  struct Free {
    void operator()(float* p) const noexcept;
  };
  std::unique_ptr<float[], Free> data_;
  Role role_ = Role::kNone;
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  size_t floats_ = 0;
  int64_t layout_ = 0;  // identifies the kernel variant the layout is for
};

// Packs op(A) (M x K; A is K x M when trans_a) as the left operand.
PackedMatrix pack_a(bool trans_a, int64_t M, int64_t K, const float* A, int64_t lda);
// Packs op(B) (K x N; B is N x K when trans_b) as the right operand.
PackedMatrix pack_b(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb);

// A left operand gathered as it is packed: element (i, k) of the M x K
// matrix is data[row_offsets[i] + col_offsets[k]]. A convolution's patches
// (im2col) are such a matrix over a zero-padded input: the GEMM packs them
// straight from the input instead of from a column buffer written first.
struct IndexedMatrix {
  const float* data = nullptr;
  const int64_t* row_offsets = nullptr;  // M entries
  const int64_t* col_offsets = nullptr;  // K entries
};

// A right operand whose row k (N floats, not transposed) starts at
// data + row_offsets[k]. A strided convolution's patches are such a matrix
// over its input split into phase planes (conv_phase_planes.hpp): each tap's
// row is a run of one plane, which the GEMM copies as it packs B, with no
// im2col buffer written first.
struct RowOffsetMatrix {
  const float* data = nullptr;
  const int64_t* row_offsets = nullptr;  // K entries
};

// General product. beta == 0 means C is only written (it may hold NaN);
// alpha == 0 or K == 0 reads neither A nor B. pool == nullptr runs on the
// calling thread. Throws std::invalid_argument on negative sizes or leading
// dimensions shorter than a row (lda >= K, or M when trans_a; ldb >= N, or K
// when trans_b; ldc >= N).
void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha,
           const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C,
           int64_t ldc, const GemmEpilogue& epilogue = {}, ThreadPool* pool = nullptr);

// Left operand packed (M and K come from it): Conv with constant weights.
void sgemm(const PackedMatrix& A, bool trans_b, int64_t N, float alpha, const float* B,
           int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue& epilogue = {},
           ThreadPool* pool = nullptr);

// Right operand packed (K and N come from it): Gemm / MatMul with constant B.
void sgemm(bool trans_a, int64_t M, float alpha, const float* A, int64_t lda,
           const PackedMatrix& B, float beta, float* C, int64_t ldc,
           const GemmEpilogue& epilogue = {}, ThreadPool* pool = nullptr);

// Left operand gathered (M rows; K comes from B), right operand packed:
// Conv with constant weights where pixels run along M.
void sgemm(const IndexedMatrix& A, int64_t M, float alpha, const PackedMatrix& B, float beta, float* C,
           int64_t ldc, const GemmEpilogue& epilogue = {}, ThreadPool* pool = nullptr);

// Left operand packed (M and K come from it), right operand by row offsets:
// C = A * B with the epilogue, C row-major with leading dimension ldc >= N.
void sgemm(const PackedMatrix& A, const RowOffsetMatrix& B, int64_t N, float* C, int64_t ldc,
           const GemmEpilogue& epilogue = {}, ThreadPool* pool = nullptr);

// Both operands packed.
void sgemm(const PackedMatrix& A, const PackedMatrix& B, float alpha, float beta, float* C,
           int64_t ldc, const GemmEpilogue& epilogue = {}, ThreadPool* pool = nullptr);

// A pixels x channels matrix of a convolution's activations stored in
// channel blocks: element (i, j) at data[(j / block) * block_stride +
// i * block + j % block]. With block 1 and block_stride the plane size it is
// an NCHW image read as pixels x channels; with block gemm_lanes() it is the
// runtime's channel-blocked layout (runtime/core/layout.hpp), each pixel's
// channels of one block side by side; a row-major matrix with leading
// dimension ld is one block of width ld.
template <class T>
struct ChannelBlocks {
  T* data = nullptr;
  int64_t block = 1;
  int64_t block_stride = 0;
};

// Floats per vector of the GEMM kernel chosen for this CPU: the block of a
// channel-blocked A below.
int64_t gemm_lanes();

// A 1x1 convolution with pixels along M and the weights packed as B (from
// pack_b(true, C_in, C_out, W, C_in)): C = A * B with the epilogue. A is an
// NCHW image (block 1) or channel-blocked (block gemm_lanes()); C is
// row-major with leading dimension ldc >= N. (Layers writing channel
// blocks do so through pointwise_blocked, not the GEMM.)
void sgemm(const ChannelBlocks<const float>& A, int64_t M, const PackedMatrix& B, float* C, int64_t ldc,
           const GemmEpilogue& epilogue = {}, ThreadPool* pool = nullptr);

}  // namespace mote::cpu
