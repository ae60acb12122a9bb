#include "runtime/cpu/strided_copy.hpp"

#include <algorithm>

#include "runtime/cpu/thread_pool.hpp"
#include "runtime/cpu/transpose_simd.hpp"

namespace mote::cpu {
namespace {

struct Dim {
  int64_t size;
  int64_t src;  // strides in elements
  int64_t dst;
};

// Drops size-1 dimensions and merges each pair of neighbours that steps
// through memory as one dimension on both sides, so a transpose of a
// contiguous [2,3,4,5] by (0,1,3,2) becomes a [6,4,5] -> [6,5,4] copy.
std::vector<Dim> simplify(const StridedCopy& copy) {
  std::vector<Dim> dims;
  for (size_t k = 0; k < copy.shape.size(); ++k) {
    Dim d{copy.shape[k], copy.src_strides[k], copy.dst_strides[k]};
    if (d.size == 1) continue;
    if (!dims.empty() && dims.back().src == d.src * d.size && dims.back().dst == d.dst * d.size) {
      dims.back() = {dims.back().size * d.size, d.src, d.dst};
    } else {
      dims.push_back(d);
    }
  }
  return dims;
}

// Row-major walk over `dims` from a linear index, tracking the element
// offsets of both sides.
class Walker {
 public:
  Walker(const std::vector<Dim>& dims, int64_t start) : dims_(dims), index_(dims.size(), 0) {
    for (size_t k = dims.size(); k-- > 0;) {
      index_[k] = start % dims[k].size;
      start /= dims[k].size;
      src_ += index_[k] * dims[k].src;
      dst_ += index_[k] * dims[k].dst;
    }
  }
  int64_t src() const { return src_; }
  int64_t dst() const { return dst_; }
  void next() {
    for (size_t k = dims_.size(); k-- > 0;) {
      src_ += dims_[k].src;
      dst_ += dims_[k].dst;
      if (++index_[k] < dims_[k].size) return;
      src_ -= dims_[k].src * dims_[k].size;
      dst_ -= dims_[k].dst * dims_[k].size;
      index_[k] = 0;
    }
  }

 private:
  const std::vector<Dim>& dims_;
  std::vector<int64_t> index_;
  int64_t src_ = 0;
  int64_t dst_ = 0;
};

int64_t product(const std::vector<Dim>& dims) {
  int64_t n = 1;
  for (const Dim& d : dims) n *= d.size;
  return n;
}

template <size_t N>
void strided_run(const unsigned char* src, unsigned char* dst, const Dim& run) {
  constexpr int64_t kN = static_cast<int64_t>(N);  // signed: source strides may be negative
  for (int64_t j = 0; j < run.size; ++j) std::memcpy(dst + j * run.dst * kN, src + j * run.src * kN, N);
}

// One innermost run of a copy.
void copy_run(const unsigned char* src, unsigned char* dst, size_t elem_size, const Dim& run) {
  if (run.src == 1 && run.dst == 1) {
    std::memcpy(dst, src, static_cast<size_t>(run.size) * elem_size);
  } else if (run.src == 0 && run.dst == 1) {
    fill_elements(dst, src, elem_size, run.size);
  } else {
    switch (elem_size) {
      case 1: strided_run<1>(src, dst, run); break;
      case 2: strided_run<2>(src, dst, run); break;
      case 4: strided_run<4>(src, dst, run); break;
      case 8: strided_run<8>(src, dst, run); break;
      default:
        for (int64_t j = 0; j < run.size; ++j) {
          std::memcpy(dst + j * run.dst * static_cast<int64_t>(elem_size),
                      src + j * run.src * static_cast<int64_t>(elem_size), elem_size);
        }
    }
  }
}

void copy_rows(const unsigned char* src, unsigned char* dst, size_t elem_size, const std::vector<Dim>& dims,
               ThreadPool& pool) {
  const Dim run = dims.back();
  const std::vector<Dim> outer(dims.begin(), dims.end() - 1);
  const int64_t es = static_cast<int64_t>(elem_size);
  const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / (run.size * es));
  pool.parallel_for(product(outer), grain, [&](int64_t begin, int64_t end) {
    Walker at(outer, begin);
    for (int64_t r = begin; r < end; ++r, at.next()) copy_run(src + at.src() * es, dst + at.dst() * es, elem_size, run);
  });
}

// Square tiles small enough that a tile and its staging copy stay in L1.
template <size_t N>
constexpr int64_t kTile = N >= 8 ? 16 : 32;

// One strip of rows [i0, i1) of a 2-D transpose: the rows are contiguous in
// the source, the columns in the destination. 4-byte elements go straight
// through transpose_4byte, whose 4x4 vector blocks read four source rows at
// a time. Other sizes stage each tile through a small buffer so that both
// the reads and the writes run along contiguous memory: with power-of-two
// strides, reading a column of a tile directly touches lines that all map
// to one cache set and evict one another. Staged, 4-byte elements were
// slower, power-of-two strides too (1 thread, AVX-512): NCHW -> NHWC of 256
// x 56 x 56 floats 0.241 -> 0.184 ms (onnxruntime 0.166), of 256 x 64 x 64
// 0.356 -> 0.248, a 1024 x 1024 transpose 1.087 -> 0.944.
template <size_t N>
void transpose_strip(const unsigned char* src, unsigned char* dst, int64_t i0, int64_t i1, const Dim& rows,
                     const Dim& cols) {
  constexpr int64_t kN = static_cast<int64_t>(N);
  const int64_t height = i1 - i0;
  if constexpr (N == 4) {
    simd::transpose_4byte(src + i0 * kN, cols.src, cols.size, height, dst + i0 * rows.dst * kN, rows.dst);
    return;
  }
  constexpr int64_t kT = kTile<N>;
  alignas(64) unsigned char tile[kT * kT * kN];
  for (int64_t j0 = 0; j0 < cols.size; j0 += kT) {
    const int64_t width = std::min(cols.size, j0 + kT) - j0;
    for (int64_t j = 0; j < width; ++j) {
      std::memcpy(tile + j * kT * kN, src + (i0 + (j0 + j) * cols.src) * kN, static_cast<size_t>(height * kN));
    }
    for (int64_t i = 0; i < height; ++i) {
      unsigned char* d = dst + ((i0 + i) * rows.dst + j0) * kN;
      for (int64_t j = 0; j < width; ++j) std::memcpy(d + j * kN, tile + (j * kT + i) * kN, N);
    }
  }
}

// fn(src offset, dst offset, part) for each of `parts` parts of every index
// of `outer` (offsets in elements), the tasks spread over the pool in runs
// of at least `grain`, each run walking `outer` from where it starts.
template <class Fn>
void for_each_outer_part(const std::vector<Dim>& outer, int64_t parts, int64_t grain, ThreadPool& pool, Fn fn) {
  pool.parallel_for(product(outer) * parts, grain, [&](int64_t begin, int64_t end) {
    Walker at(outer, begin / parts);
    for (int64_t task = begin; task < end; ++task) {
      const int64_t part = task % parts;
      if (task != begin && part == 0) at.next();
      fn(at.src(), at.dst(), part);
    }
  });
}

// Transposes of at most this many rows, whose columns lie at most this many
// elements apart in the source, move element by element, in tasks of
// kFewRowsColumns columns.
constexpr int64_t kFewRows = 4;
constexpr int64_t kFewRowsColumns = 8192;

// A copy whose destination-contiguous dimension (the last) is strided in
// the source while another dimension, `rows_at`, is contiguous there: moved
// as 2-D tiles of [rows x last] for every index of the other dimensions.
template <size_t N>
void copy_transposed(const unsigned char* src, unsigned char* dst, const std::vector<Dim>& dims, size_t rows_at,
                     ThreadPool& pool) {
  const Dim rows = dims[rows_at];
  const Dim cols = dims.back();
  std::vector<Dim> outer;
  for (size_t k = 0; k + 1 < dims.size(); ++k) {
    if (k != rows_at) outer.push_back(dims[k]);
  }
  constexpr int64_t kN = static_cast<int64_t>(N);
  if (rows.size <= kFewRows && cols.src <= kFewRows) {
    // Few rows close together in the source (an NHWC image of 3 channels
    // to NCHW): a tile would hold 3 of its 32 rows and move each element
    // with two copies of a few bytes (a TFLite int8 MobileNetV2's input,
    // 150,528 bytes: 0.23 ms on one thread). Each element moves directly
    // instead, a row at a time so the writes run along the destination
    // (the rows' reads share cache lines), the columns split between the
    // threads.
    const int64_t chunks = (cols.size + kFewRowsColumns - 1) / kFewRowsColumns;
    const int64_t chunk_bytes = rows.size * std::min(cols.size, kFewRowsColumns) * kN;
    const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / chunk_bytes);
    for_each_outer_part(outer, chunks, grain, pool, [&](int64_t src_at, int64_t dst_at, int64_t chunk) {
      const int64_t j0 = chunk * kFewRowsColumns, j1 = std::min(cols.size, j0 + kFewRowsColumns);
      for (int64_t i = 0; i < rows.size; ++i) {
        const unsigned char* from = src + (src_at + i) * kN;
        unsigned char* to = dst + (dst_at + i * rows.dst) * kN;
        for (int64_t j = j0; j < j1; ++j) std::memcpy(to + j * kN, from + j * cols.src * kN, N);
      }
    });
    return;
  }
  const int64_t strips = (rows.size + kTile<N> - 1) / kTile<N>;
  const int64_t strip_bytes = kTile<N> * cols.size * static_cast<int64_t>(N);
  const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / strip_bytes);
  for_each_outer_part(outer, strips, grain, pool, [&](int64_t src_at, int64_t dst_at, int64_t strip) {
    const int64_t i0 = strip * kTile<N>;
    const int64_t i1 = std::min(rows.size, i0 + kTile<N>);
    transpose_strip<N>(src + src_at * kN, dst + dst_at * kN, i0, i1, rows, cols);
  });
}

template <size_t N>
void fill_typed(unsigned char* dst, const void* value, int64_t count) {
  unsigned char v[N];
  std::memcpy(v, value, N);
  for (int64_t i = 0; i < count; ++i) std::memcpy(dst + i * static_cast<int64_t>(N), v, N);
}

}  // namespace

void fill_elements(void* dst, const void* value, size_t elem_size, int64_t count) {
  auto* d = static_cast<unsigned char*>(dst);
  switch (elem_size) {
    case 1: std::memset(d, *static_cast<const unsigned char*>(value), static_cast<size_t>(count)); break;
    case 2: fill_typed<2>(d, value, count); break;
    case 4: fill_typed<4>(d, value, count); break;
    case 8: fill_typed<8>(d, value, count); break;
    default:
      for (int64_t i = 0; i < count; ++i) std::memcpy(d + i * static_cast<int64_t>(elem_size), value, elem_size);
  }
}

void copy_contiguous(const void* src, void* dst, size_t bytes, ThreadPool& pool) {
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  pool.parallel_for(static_cast<int64_t>(bytes), kMinBytesPerTask, [&](int64_t begin, int64_t end) {
    std::memcpy(d + begin, s + begin, static_cast<size_t>(end - begin));
  });
}

void copy_strided(const void* src, void* dst, size_t elem_size, const StridedCopy& copy, ThreadPool& pool) {
  if (shape_numel(copy.shape) <= 0) return;
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  std::vector<Dim> dims = simplify(copy);
  if (dims.empty()) {
    copy_element(d, s, elem_size);
    return;
  }
  const Dim& last = dims.back();
  if (dims.size() == 1 && last.src == 1 && last.dst == 1) {
    copy_contiguous(s, d, static_cast<size_t>(last.size) * elem_size, pool);
    return;
  }
  if (last.dst == 1 && last.src != 0 && last.src != 1) {
    for (size_t k = dims.size() - 1; k-- > 0;) {
      if (dims[k].src != 1) continue;
      switch (elem_size) {
        case 1: return copy_transposed<1>(s, d, dims, k, pool);
        case 2: return copy_transposed<2>(s, d, dims, k, pool);
        case 4: return copy_transposed<4>(s, d, dims, k, pool);
        case 8: return copy_transposed<8>(s, d, dims, k, pool);
        default: break;
      }
      break;
    }
  }
  copy_rows(s, d, elem_size, dims, pool);
}

}  // namespace mote::cpu
