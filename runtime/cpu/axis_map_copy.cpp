#include "runtime/cpu/axis_map_copy.hpp"

#include <algorithm>
#include <cstring>

#include "runtime/cpu/strided_copy.hpp"
#include "runtime/cpu/thread_pool.hpp"

namespace mote::cpu {
namespace {

bool is_identity(const std::vector<int64_t>& map, int64_t in_dim) {
  if (static_cast<int64_t>(map.size()) != in_dim) return false;
  for (size_t i = 0; i < map.size(); ++i) {
    if (map[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

// `length` output blocks from `dst_at` on: a fill (src_at == -1) or a copy
// of as many consecutive source blocks from `src_at`.
struct Segment {
  int64_t dst_at;
  int64_t src_at;
  int64_t length;
};

std::vector<Segment> segments_of(const std::vector<int64_t>& map) {
  std::vector<Segment> segments;
  for (int64_t o = 0; o < static_cast<int64_t>(map.size()); ++o) {
    const int64_t s = map[static_cast<size_t>(o)];
    if (!segments.empty()) {
      Segment& last = segments.back();
      const bool continues = s == -1 ? last.src_at == -1 : last.src_at != -1 && s == last.src_at + last.length;
      if (continues) {
        ++last.length;
        continue;
      }
    }
    segments.push_back({o, s, 1});
  }
  return segments;
}

}  // namespace

void copy_axis_mapped(const void* src, const Shape& in_shape, void* dst, const Shape& out_shape, size_t elem_size,
                      const std::vector<std::vector<int64_t>>& maps, const void* fill, ThreadPool& pool) {
  if (shape_numel(out_shape) <= 0) return;
  const auto* in = static_cast<const unsigned char*>(src);
  auto* out = static_cast<unsigned char*>(dst);

  // Trailing identity axes form a contiguous block moved as one.
  size_t mapped = out_shape.size();
  int64_t block_bytes = static_cast<int64_t>(elem_size);
  while (mapped > 0 && is_identity(maps[mapped - 1], in_shape[mapped - 1])) {
    --mapped;
    block_bytes *= in_shape[mapped];
  }
  if (mapped == 0) {
    copy_contiguous(in, out, static_cast<size_t>(block_bytes), pool);
    return;
  }

  std::vector<int64_t> in_strides(mapped);  // in bytes
  int64_t stride = block_bytes;
  for (size_t k = mapped; k-- > 0;) {
    in_strides[k] = stride;
    stride *= in_shape[k];
  }
  const size_t inner = mapped - 1;
  const std::vector<Segment> segments = segments_of(maps[inner]);
  const int64_t row_bytes = out_shape[inner] * block_bytes;
  int64_t rows = 1;
  for (size_t k = 0; k < inner; ++k) rows *= out_shape[k];
  const int64_t block_elems = block_bytes / static_cast<int64_t>(elem_size);

  auto fill_blocks = [&](unsigned char* at, int64_t blocks) { fill_elements(at, fill, elem_size, blocks * block_elems); };

  const int64_t grain = std::max<int64_t>(1, kMinBytesPerTask / row_bytes);
  pool.parallel_for(rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> index(inner, 0);
    int64_t rest = begin;
    for (size_t k = inner; k-- > 0;) {
      index[k] = rest % out_shape[k];
      rest /= out_shape[k];
    }
    int64_t previous_source = -1;  // byte offset of the previous row's source, -1 for none or a fill
    for (int64_t r = begin; r < end; ++r) {
      unsigned char* row = out + r * row_bytes;
      int64_t source = 0;
      for (size_t k = 0; k < inner && source >= 0; ++k) {
        const int64_t s = maps[k][static_cast<size_t>(index[k])];
        source = s < 0 ? -1 : source + s * in_strides[k];
      }
      if (source < 0) {
        fill_blocks(row, out_shape[inner]);
      } else if (source == previous_source) {
        std::memcpy(row, row - row_bytes, static_cast<size_t>(row_bytes));
      } else {
        for (const Segment& seg : segments) {
          unsigned char* at = row + seg.dst_at * block_bytes;
          if (seg.src_at < 0) {
            fill_blocks(at, seg.length);
          } else if (seg.length * block_bytes <= 8) {
            copy_element(at, in + source + seg.src_at * block_bytes, static_cast<size_t>(seg.length * block_bytes));
          } else {
            std::memcpy(at, in + source + seg.src_at * block_bytes, static_cast<size_t>(seg.length * block_bytes));
          }
        }
      }
      previous_source = source;
      for (size_t k = inner; k-- > 0;) {
        if (++index[k] < out_shape[k]) break;
        index[k] = 0;
      }
    }
  });
}

}  // namespace mote::cpu
