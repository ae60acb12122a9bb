// Driver of the fp32 GEMM: argument checks, the choice between the packed
// (BLIS-style) path and the skinny/tiny paths, the split of the work over
// threads, and the packed-operand API. The SIMD code is in gemm_kernel.cpp.
#include "runtime/cpu/gemm.hpp"

#include <algorithm>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/cpu/gemm_internal.hpp"
#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/transpose_simd.hpp"

namespace mote::cpu {

using gemm_detail::kernel_shape;
using gemm_detail::KernelShape;
using gemm_detail::round_up;

namespace {

constexpr std::align_val_t kAlignment{64};  // a cache line; >= any vector we use

// Below this many multiply-adds a plain loop beats packing (3x5x7 is 105).
constexpr int64_t kTinyMacs = 512;
// A thread is only worth waking for this much work: about 10 us of one core
// at 100 GFLOP/s, still well above the cost of handing a job to a spinning
// worker (the pool's workers spin between a model's ops). At 2^22 the 1x1 layers of
// small images ran on one core: at 2 threads (2 vCPU AMD EPYC, best of 4
// rounds) ShuffleNetV2 3.04 -> 2.46 ms, MobileNetV3-Small 1.54 -> 1.26 ms,
// SqueezeNet 3.71 -> 3.48 ms with 2^20; 2^19 and 2^18 measured the same.
constexpr int64_t kMinFlopsPerThread = int64_t{1} << 20;
// Same for the memory-bound matrix-vector path, in multiply-adds.
constexpr int64_t kMinGemvMacsPerThread = int64_t{1} << 17;
// Bound on the scratch memory for A packed on the fly (16 MiB).
constexpr int64_t kMaxChunkFloats = int64_t{1} << 22;

float* allocate_floats(size_t n) {
  return static_cast<float*>(::operator new(std::max<size_t>(n, 1) * sizeof(float), kAlignment));
}
void free_floats(float* p) { ::operator delete(p, kAlignment); }

// Scratch memory owned by the calling thread, kept between calls: a model
// runs the same shapes again and again, and a fresh multi-megabyte allocation
// would cost page faults on every call. Not zeroed.
class Scratch {
 public:
  ~Scratch() { free_floats(data_); }
  float* get(size_t floats) {
    if (floats > size_) {
      free_floats(data_);
      data_ = nullptr;  // stays consistent if the allocation throws
      size_ = 0;
      data_ = allocate_floats(floats);
      size_ = floats;
    }
    return data_;
  }

 private:
  float* data_ = nullptr;
  size_t size_ = 0;
};

// Operands packed for all threads of one call (caller thread) and the
// gemv vectors.
float* scratch(size_t floats) {
  thread_local Scratch buffer;
  return buffer.get(floats);
}

}  // namespace

// A B block packed by the task that uses it (each thread has its own).
float* gemm_detail::block_buffer(size_t floats) {
  thread_local Scratch buffer;
  return buffer.get(floats);
}

// Access to PackedMatrix internals for this file.
struct PackedMatrixAccess {
  static const float* data(const PackedMatrix& m) { return m.data_.get(); }
  static int64_t layout(const PackedMatrix& m) { return m.layout_; }
  static PackedMatrix make(PackedMatrix::Role role, int64_t rows, int64_t cols, size_t floats) {
    PackedMatrix m;
    m.data_.reset(allocate_floats(floats));
    m.role_ = role;
    m.rows_ = rows;
    m.cols_ = cols;
    m.floats_ = floats;
    m.layout_ = kernel_shape().target;
    return m;
  }
  static float* mutable_data(PackedMatrix& m) { return m.data_.get(); }
};

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("sgemm: " + what); }

// One operand: a packed matrix, a row-major array read through op(), or
// (A only) an indexed matrix.
struct Operand {
  const PackedMatrix* packed = nullptr;
  bool trans = false;
  const float* data = nullptr;
  int64_t ld = 0;
  const IndexedMatrix* indexed = nullptr;
  int64_t block_stride = 0;  // A only: channel-blocked (ChannelBlocks, block = lanes) when not 0
  const int64_t* row_offsets = nullptr;  // B only: RowOffsetMatrix (not trans, ld unused)
};

struct Problem {
  int64_t M, N, K;
  float alpha, beta;
  float* C;
  int64_t ldc;
  GemmEpilogue ep;
  Operand a, b;
};

// op(A)(i, k) and op(B)(k, j) of unpacked operands.
inline float at_a(const Problem& p, int64_t i, int64_t k) {
  return p.a.trans ? p.a.data[k * p.a.ld + i] : p.a.data[i * p.a.ld + k];
}
inline float at_b(const Problem& p, int64_t k, int64_t j) {
  return p.b.trans ? p.b.data[j * p.b.ld + k] : p.b.data[k * p.b.ld + j];
}

// The value stored in C(i, j) given the raw sum of products; scalar paths only.
inline float finish(const Problem& p, int64_t i, int64_t j, float sum) {
  float x = p.alpha * sum;
  if (p.beta != 0.0f) x += p.beta * p.C[i * p.ldc + j];
  if (p.ep.row_bias) x += p.ep.row_bias[i];
  if (p.ep.col_bias) x += p.ep.col_bias[j];
  if (p.ep.residual) x += p.ep.residual[i * p.ep.ld_residual + j];
  return std::min(std::max(x, p.ep.clamp_min), p.ep.clamp_max);
}

// alpha == 0 or K == 0: C = beta * C plus the epilogue; A and B are not
// read (as in BLAS, alpha * A * B counts as zero even if A holds NaN).
void scale_only(const Problem& p) {
  Problem q = p;
  q.alpha = 0.0f;
  for (int64_t i = 0; i < p.M; ++i)
    for (int64_t j = 0; j < p.N; ++j) p.C[i * p.ldc + j] = finish(q, i, j, 0.0f);
}

void tiny(const Problem& p) {
  for (int64_t i = 0; i < p.M; ++i) {
    for (int64_t j = 0; j < p.N; ++j) {
      float sum = 0.0f;
      for (int64_t k = 0; k < p.K; ++k) sum += at_a(p, i, k) * at_b(p, k, j);
      p.C[i * p.ldc + j] = finish(p, i, j, sum);
    }
  }
}

int64_t threads_for(ThreadPool* pool, int64_t work, int64_t min_work_per_thread) {
  if (!pool) return 1;
  return std::max<int64_t>(1, std::min<int64_t>(pool->size(), work / min_work_per_thread));
}

// Runs fn(0..tasks-1) on the pool, or inline when a single thread is wanted.
template <class Fn>
void run_tasks(ThreadPool* pool, int64_t threads, int64_t tasks, const Fn& fn) {
  if (threads <= 1 || tasks <= 1 || !pool) {
    for (int64_t t = 0; t < tasks; ++t) fn(t);
  } else {
    pool->run(tasks, fn);
  }
}

// M == 1 or N == 1 with unpacked operands: one output vector, each element
// of the big operand used once, so the work is bound by reading it and
// packing would double the traffic. Runs on unit-stride views: a strided
// vector operand is copied first.
void gemv(const Problem& p, ThreadPool* pool) {
  const bool row = p.M == 1;  // C is 1 x N, else C is M x 1
  const int64_t n = row ? p.N : p.M;
  const int64_t K = p.K;
  // The small operand as a contiguous vector of length K.
  const Operand& vec_op = row ? p.a : p.b;
  const int64_t vec_stride = row ? (p.a.trans ? p.a.ld : 1) : (p.b.trans ? 1 : p.b.ld);
  // The big operand X: either X(k, idx) at k * ld + idx ("rows"), or
  // X(idx, k) at idx * ld + k ("dots").
  const Operand& big = row ? p.b : p.a;
  const bool dots = row ? big.trans : !big.trans;

  float* out = scratch(static_cast<size_t>(round_up(n, 16) + K));
  const float* vec = vec_op.data;
  if (vec_stride != 1) {
    float* copy = out + round_up(n, 16);
    for (int64_t k = 0; k < K; ++k) copy[k] = vec_op.data[k * vec_stride];
    vec = copy;
  }
  const int64_t threads = threads_for(pool, n * K, kMinGemvMacsPerThread);
  // Split points are multiples of 64 so that every output element takes the
  // same code path (and rounding) whatever the number of threads.
  const int64_t blocks = (n + 63) / 64;
  run_tasks(pool, threads, threads, [&](int64_t t) {
    const int64_t i0 = std::min(n, blocks * t / threads * 64);
    const int64_t i1 = std::min(n, blocks * (t + 1) / threads * 64);
    if (dots) {
      gemm_detail::gemv_dots(i1 - i0, K, big.data + i0 * big.ld, big.ld, vec, out + i0);
    } else {
      gemm_detail::gemv_rows(i1 - i0, K, vec, big.data + i0, big.ld, out + i0);
    }
    for (int64_t i = i0; i < i1; ++i) {
      if (row) {
        p.C[i] = finish(p, 0, i, out[i]);
      } else {
        p.C[i * p.ldc] = finish(p, i, 0, out[i]);
      }
    }
  });
}

// How the packed path divides C among threads: a gm x gn grid of
// rectangles, one per task. Rows are cut at micro-panel boundaries. B, unless
// packed by the caller, is either packed block by block by the task that uses
// it (in L2, never written to memory: only when each column range has one
// task, gm == 1, so no block is packed twice), or packed whole by all threads
// before the tasks start (shared_b), which any grid allows.
struct Split {
  int64_t gm = 1, gn = 1;
  bool shared_b = false;
  int64_t col_unit = 1;  // columns are cut at multiples of this
};

// Picks the split with the smallest estimated time: tasks are taken by free
// threads, so time ~ (tasks per thread) x (largest task), with rows and
// columns rounded up to what the kernel really computes. Packing B for all
// threads costs a pass over B, a round trip of it between the cores' caches
// and a second fork-join: a fixed cost per column of B, charged as
// kSharedBRows more rows of product. Small M cannot hide it: at 2 threads,
// 1x1 convolutions of MobileNetV2's 14x14 stage (M = 64 and 96 output
// channels, N = 196 pixels) ran 1.3 to 1.9 times slower sharing B than
// splitting the columns with private packing (0.100-0.114 against
// 0.056-0.075 ms, 0.192-0.197 against 0.157 ms), slower than one thread;
// at M = 1024 sharing was about 3 % faster. Then the fewest tasks win: each
// re-reads shared operands.
constexpr double kSharedBRows = 24.0;

Split plan_split(int64_t M, int64_t N, const KernelShape& s, int64_t threads, bool own_b) {
  Split best;
  best.col_unit = own_b ? s.lanes : s.nr;
  if (threads <= 1) return best;
  const int64_t mp = (M + s.mr - 1) / s.mr;
  const int64_t max_tasks = 4 * threads;
  double best_cost = -1.0;
  int64_t best_tasks = 0;
  for (int64_t gm = 1; gm <= std::min(mp, max_tasks); ++gm) {
    const bool shared_b = own_b && gm > 1;
    const int64_t unit = (own_b && !shared_b) ? s.lanes : s.nr;
    const int64_t units = (N + unit - 1) / unit;
    for (int64_t gn = 1; gn <= std::min(units, max_tasks / gm); ++gn) {
      const int64_t tasks = gm * gn;
      const int64_t rounds = (tasks + threads - 1) / threads;
      const double rows = static_cast<double>((mp + gm - 1) / gm * s.mr);
      const double cols = static_cast<double>(std::min(round_up(N, s.lanes), (units + gn - 1) / gn * unit));
      const double cost = static_cast<double>(rounds) * rows * cols +
                          (shared_b ? kSharedBRows * static_cast<double>(round_up(N, s.lanes)) : 0.0);
      if (best_cost < 0 || cost < best_cost || (cost == best_cost && tasks < best_tasks)) {
        best_cost = cost;
        best_tasks = tasks;
        best.gm = gm;
        best.gn = gn;
        best.shared_b = shared_b;
        best.col_unit = unit;
      }
    }
  }
  return best;
}

// Panels [panel_begin, panel_end) of a channel-blocked A (rows x K, block
// = s.lanes; ChannelBlocks) in pack_a's layout: per panel and channel block,
// a transpose of h pixels x (up to) lanes channels.
void pack_a_blocked(const float* data, int64_t block_stride, int64_t rows, int64_t K, int64_t panel_begin,
                    int64_t panel_end, const KernelShape& s, float* dst) {
  const gemm_detail::KBlocks blocks(K, s.kc);
  const int64_t lanes = s.lanes;
  const int64_t i_end = std::min(rows, panel_end * s.mr);
  for (int64_t blk = 0; blk < blocks.count; ++blk) {
    const int64_t k0 = blocks.begin(blk), kc = blocks.begin(blk + 1) - k0;
    for (int64_t i0 = panel_begin * s.mr; i0 < i_end; i0 += s.mr) {
      const int64_t h = std::min(s.mr, rows - i0);
      float* panel = dst + k0 * rows + i0 * kc;
      for (int64_t k = k0; k < k0 + kc;) {
        const int64_t width = std::min(lanes - k % lanes, k0 + kc - k);
        const float* src = data + k / lanes * block_stride + i0 * lanes + k % lanes;
        simd::transpose_4byte(src, lanes, h, width, panel + (k - k0) * h, h);
        k += width;
      }
    }
  }
}

// The general path. A, unless packed by the caller, is packed whole by all
// threads first (every task reads all A panels of its rows), then the tasks
// compute their rectangles. A is packed in chunks of at most kMaxChunkFloats
// rows x K so the scratch memory of a huge product stays bounded; B is only
// packed whole when it is narrow (see plan_split), else block by block.
void packed_product(const Problem& p, ThreadPool* pool) {
  const KernelShape s = kernel_shape();
  const int64_t M = p.M, N = p.N, K = p.K;
  const bool own_a = p.a.packed == nullptr, own_b = p.b.packed == nullptr;
  // Work in flop-equivalents: reading an operand element costs about as much
  // time as 32 flops (memory bandwidth vs FMA throughput), which matters when
  // M or N is small, e.g. a batch-1 fully connected layer reading its weights.
  const int64_t work = 2 * M * N * K + 32 * (M * K + K * N);
  const int64_t threads = threads_for(pool, work, kMinFlopsPerThread);
  const int64_t np = (N + s.nr - 1) / s.nr;

  // Whether an indexed A's offsets fit 32-bit gather indices.
  bool indexed_offsets_narrow = false;
  if (p.a.indexed && M > 0 && K > 0) {
    const auto [row_lo, row_hi] = std::minmax_element(p.a.indexed->row_offsets, p.a.indexed->row_offsets + M);
    const auto [col_lo, col_hi] = std::minmax_element(p.a.indexed->col_offsets, p.a.indexed->col_offsets + K);
    indexed_offsets_narrow = *row_lo >= 0 && *col_lo >= 0 && *row_hi + *col_hi <= std::numeric_limits<int32_t>::max();
  }
  int64_t chunk_m = M;
  if (own_a && M * K > kMaxChunkFloats) chunk_m = std::max(s.mr, kMaxChunkFloats / K / s.mr * s.mr);
  for (int64_t m0 = 0; m0 < M; m0 += chunk_m) {
    const int64_t mm = std::min(chunk_m, M - m0);
    const int64_t mp = (mm + s.mr - 1) / s.mr;
    const Split split = plan_split(mm, N, s, threads, own_b);
    const int64_t a_floats = own_a ? round_up(mm * K, 16) : 0;
    const int64_t b_floats = split.shared_b ? round_up(N, s.lanes) * K : 0;
    float* ws = (a_floats + b_floats > 0) ? scratch(static_cast<size_t>(a_floats + b_floats)) : nullptr;
    float* ws_a = ws;
    float* ws_b = ws ? ws + a_floats : nullptr;

    // Pack what the tasks share, each packing task taking a run of panels.
    const int64_t a_parts = own_a ? std::min(threads, mp) : 0;
    const int64_t b_parts = split.shared_b ? std::min(threads, np) : 0;
    const float* a_src =
        own_a && p.a.data && !p.a.block_stride ? (p.a.trans ? p.a.data + m0 : p.a.data + m0 * p.a.ld) : nullptr;
    run_tasks(pool, threads, a_parts + b_parts, [&](int64_t t) {
      if (t < a_parts && p.a.indexed) {
        const IndexedMatrix& a = *p.a.indexed;
        gemm_detail::pack_a_indexed(a.data, a.row_offsets + m0, a.col_offsets, indexed_offsets_narrow, mm, K,
                                    mp * t / a_parts, mp * (t + 1) / a_parts, ws_a);
      } else if (t < a_parts && p.a.block_stride) {
        pack_a_blocked(p.a.data + m0 * s.lanes, p.a.block_stride, mm, K, mp * t / a_parts, mp * (t + 1) / a_parts, s,
                       ws_a);
      } else if (t < a_parts) {
        gemm_detail::pack_a(p.a.trans, a_src, p.a.ld, mm, K, mp * t / a_parts, mp * (t + 1) / a_parts, ws_a);
      } else {
        t -= a_parts;
        gemm_detail::pack_b(p.b.trans, p.b.data, p.b.ld, K, N, np * t / b_parts, np * (t + 1) / b_parts, ws_b,
                            p.b.row_offsets);
      }
    });

    gemm_detail::TileJob job{};
    job.pa = own_a ? ws_a : PackedMatrixAccess::data(*p.a.packed);
    job.pa_rows = mm;
    job.pa_prepacked = !own_a;
    job.pb = split.shared_b ? ws_b : own_b ? nullptr : PackedMatrixAccess::data(*p.b.packed);
    job.b = p.b.data;
    job.ldb = p.b.ld;
    job.b_trans = p.b.trans;
    job.b_row_offsets = p.b.row_offsets;
    job.cols = N;
    job.K = K;
    job.C = p.C + m0 * p.ldc;
    job.ldc = p.ldc;
    job.alpha = p.alpha;
    job.beta = p.beta;
    job.row_bias = p.ep.row_bias ? p.ep.row_bias + m0 : nullptr;
    job.col_bias = p.ep.col_bias;
    job.residual = p.ep.residual ? p.ep.residual + m0 * p.ep.ld_residual : nullptr;
    job.ld_residual = p.ep.ld_residual;
    job.clamp_min = p.ep.clamp_min;
    job.clamp_max = p.ep.clamp_max;
    job.activation = p.ep.activation;
    job.activation_state = p.ep.activation_state;
    const int64_t units = (N + split.col_unit - 1) / split.col_unit;
    run_tasks(pool, threads, split.gm * split.gn, [&](int64_t t) {
      const int64_t tm = t / split.gn, tn = t % split.gn;
      gemm_detail::TileJob tile = job;
      tile.row_begin = mp * tm / split.gm * s.mr;
      tile.row_end = std::min(mm, mp * (tm + 1) / split.gm * s.mr);
      tile.col_begin = units * tn / split.gn * split.col_unit;
      tile.col_end = std::min(N, units * (tn + 1) / split.gn * split.col_unit);
      gemm_detail::compute_tile(tile);
    });
  }
}

void check_ld(const char* name, int64_t ld, int64_t min_ld) {
  if (ld < std::max<int64_t>(1, min_ld)) {
    fail(std::string(name) + " = " + std::to_string(ld) + " is below " +
         std::to_string(std::max<int64_t>(1, min_ld)));
  }
}

void check_packed(const PackedMatrix& m, PackedMatrix::Role role, const char* name) {
  if (m.role() != role) fail(std::string(name) + " is not a matrix packed as " + name);
  if (PackedMatrixAccess::layout(m) != kernel_shape().target) {
    fail(std::string(name) + " was packed for another instruction set");
  }
}

void run(Problem& p, ThreadPool* pool) {
  if (p.M < 0 || p.N < 0 || p.K < 0) fail("negative dimension");
  if (p.M > 0 && p.N > 0) check_ld("ldc", p.ldc, p.N);
  if (p.ep.residual && p.M > 0 && p.N > 0) check_ld("ld_residual", p.ep.ld_residual, p.N);
  if (!p.a.packed && !p.a.indexed && !p.a.block_stride && p.M > 0 && p.K > 0)
    check_ld("lda", p.a.ld, p.a.trans ? p.M : p.K);
  if (!p.b.packed && !p.b.row_offsets && p.N > 0 && p.K > 0) check_ld("ldb", p.b.ld, p.b.trans ? p.K : p.N);
  if (p.M == 0 || p.N == 0) return;
  const bool packed = p.a.packed || p.b.packed;  // an indexed A always comes with a packed B
  if (p.K == 0 || p.alpha == 0.0f) {
    scale_only(p);
  } else if (!packed && p.M * p.N * p.K <= kTinyMacs) {
    tiny(p);
  } else if (!packed && (p.M == 1 || p.N == 1)) {
    gemv(p, pool);
  } else {
    return packed_product(p, pool);  // activates its tiles itself
  }
  if (p.ep.activation && p.ldc == p.N) {
    p.ep.activation(p.ep.activation_state, p.C, p.M * p.N);  // one call: a [M, 1] output is M rows of one
  } else if (p.ep.activation) {
    for (int64_t i = 0; i < p.M; ++i) p.ep.activation(p.ep.activation_state, p.C + i * p.ldc, p.N);
  }
}

}  // namespace

void PackedMatrix::Free::operator()(float* p) const noexcept { free_floats(p); }

PackedMatrix pack_a(bool trans_a, int64_t M, int64_t K, const float* A, int64_t lda) {
  if (M < 0 || K < 0) fail("pack_a: negative dimension");
  if (M > 0 && K > 0) check_ld("lda", lda, trans_a ? M : K);
  const KernelShape s = kernel_shape();
  PackedMatrix m = PackedMatrixAccess::make(PackedMatrix::Role::kA, M, K, static_cast<size_t>(M * K));
  gemm_detail::pack_a(trans_a, A, lda, M, K, 0, (M + s.mr - 1) / s.mr, PackedMatrixAccess::mutable_data(m));
  return m;
}

PackedMatrix pack_b(bool trans_b, int64_t K, int64_t N, const float* B, int64_t ldb) {
  if (N < 0 || K < 0) fail("pack_b: negative dimension");
  if (N > 0 && K > 0) check_ld("ldb", ldb, trans_b ? K : N);
  const KernelShape s = kernel_shape();
  PackedMatrix m =
      PackedMatrixAccess::make(PackedMatrix::Role::kB, K, N, static_cast<size_t>(round_up(N, s.lanes) * K));
  gemm_detail::pack_b(trans_b, B, ldb, K, N, 0, (N + s.nr - 1) / s.nr, PackedMatrixAccess::mutable_data(m));
  return m;
}

void sgemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda,
           const float* B, int64_t ldb, float beta, float* C, int64_t ldc, const GemmEpilogue& epilogue,
           ThreadPool* pool) {
  Problem p{M, N, K, alpha, beta, C, ldc, epilogue, {nullptr, trans_a, A, lda}, {nullptr, trans_b, B, ldb}};
  run(p, pool);
}

void sgemm(const PackedMatrix& A, bool trans_b, int64_t N, float alpha, const float* B, int64_t ldb, float beta,
           float* C, int64_t ldc, const GemmEpilogue& epilogue, ThreadPool* pool) {
  check_packed(A, PackedMatrix::Role::kA, "A");
  Problem p{
      A.rows(), N, A.cols(), alpha, beta, C, ldc, epilogue, {&A, false, nullptr, 0}, {nullptr, trans_b, B, ldb}};
  run(p, pool);
}

void sgemm(bool trans_a, int64_t M, float alpha, const float* A, int64_t lda, const PackedMatrix& B, float beta,
           float* C, int64_t ldc, const GemmEpilogue& epilogue, ThreadPool* pool) {
  check_packed(B, PackedMatrix::Role::kB, "B");
  Problem p{
      M, B.cols(), B.rows(), alpha, beta, C, ldc, epilogue, {nullptr, trans_a, A, lda}, {&B, false, nullptr, 0}};
  run(p, pool);
}

void sgemm(const PackedMatrix& A, const RowOffsetMatrix& B, int64_t N, float* C, int64_t ldc,
           const GemmEpilogue& epilogue, ThreadPool* pool) {
  check_packed(A, PackedMatrix::Role::kA, "A");
  if (N > 0 && A.cols() > 0 && (!B.data || !B.row_offsets)) fail("row-offset B lacks its data or offsets");
  Operand b;
  b.data = B.data;
  b.row_offsets = B.row_offsets;
  Problem p{A.rows(), N, A.cols(), 1.0f, 0.0f, C, ldc, epilogue, {&A, false, nullptr, 0}, b};
  run(p, pool);
}

void sgemm(const IndexedMatrix& A, int64_t M, float alpha, const PackedMatrix& B, float beta, float* C, int64_t ldc,
           const GemmEpilogue& epilogue, ThreadPool* pool) {
  check_packed(B, PackedMatrix::Role::kB, "B");
  if (M > 0 && B.rows() > 0 && (!A.data || !A.row_offsets || !A.col_offsets))
    fail("indexed A lacks its data or offsets");
  Operand a;
  a.indexed = &A;
  Problem p{M, B.cols(), B.rows(), alpha, beta, C, ldc, epilogue, a, {&B, false, nullptr, 0}};
  run(p, pool);
}

int64_t gemm_lanes() { return kernel_shape().lanes; }

void sgemm(const ChannelBlocks<const float>& A, int64_t M, const PackedMatrix& B, float* C, int64_t ldc,
           const GemmEpilogue& epilogue, ThreadPool* pool) {
  check_packed(B, PackedMatrix::Role::kB, "B");
  const int64_t lanes = gemm_lanes(), N = B.cols();
  if (M > 0 && B.rows() > 0 && !A.data) fail("channel-blocked A has no data");
  if (A.block != 1 && A.block != lanes) {
    fail("A's channel block " + std::to_string(A.block) + " is neither 1 nor the kernel's " + std::to_string(lanes));
  }
  const int64_t min_stride = (A.block == 1 ? 1 : A.block) * M;
  if (M > 0 && B.rows() > (A.block == 1 ? 1 : A.block) && A.block_stride < min_stride) {
    fail("A's block stride " + std::to_string(A.block_stride) + " is below " + std::to_string(min_stride));
  }
  Operand a;
  a.data = A.data;
  if (A.block == 1) {
    a.trans = true;
    a.ld = A.block_stride;
  } else {
    a.block_stride = A.block_stride;
  }
  Problem p{M, N, B.rows(), 1.0f, 0.0f, C, ldc, epilogue, a, {&B, false, nullptr, 0}};
  run(p, pool);
}

void sgemm(const PackedMatrix& A, const PackedMatrix& B, float alpha, float beta, float* C, int64_t ldc,
           const GemmEpilogue& epilogue, ThreadPool* pool) {
  check_packed(A, PackedMatrix::Role::kA, "A");
  check_packed(B, PackedMatrix::Role::kB, "B");
  if (A.cols() != B.rows()) fail("inner dimensions of the packed A and B differ");
  Problem p{
      A.rows(), B.cols(), A.cols(), alpha, beta, C, ldc, epilogue, {&A, false, nullptr, 0}, {&B, false, nullptr, 0}};
  run(p, pool);
}

}  // namespace mote::cpu
