#include "tests/fuzz/mutator.hpp"

#include <algorithm>
#include <cstring>
#include <iterator>

namespace mote::fuzz {
namespace {

// Integers that sit on the boundaries parsers check: zero, one, all ones,
// signed extremes, and sizes just past common limits.
constexpr uint64_t kBoundaries[] = {0,          1,          2,          0x7f,       0x80,      0xff,
                                    0x100,      0x7fff,     0x8000,     0xffff,     0x10000,   0x7fffffff,
                                    0x80000000, 0xffffffff, 0x100000000, ~uint64_t{0}, uint64_t{1} << 62};

size_t pick(std::mt19937_64& rng, size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); }

void edit(Bytes& b, const Bytes& other, std::mt19937_64& rng) {
  switch (pick(rng, 7)) {
    case 0:  // flip one bit
      if (!b.empty()) b[pick(rng, b.size())] ^= static_cast<uint8_t>(1u << pick(rng, 8));
      break;
    case 1:  // one random byte
      if (!b.empty()) b[pick(rng, b.size())] = static_cast<uint8_t>(rng());
      break;
    case 2: {  // a boundary integer, 1 to 8 bytes wide, over whatever was there
      const size_t width = size_t{1} << pick(rng, 4);
      if (b.size() < width) break;
      uint64_t value = kBoundaries[pick(rng, std::size(kBoundaries))];
      if (rng() & 1) value = ~value + 1;  // and its negation
      std::memcpy(&b[pick(rng, b.size() - width + 1)], &value, width);  // little-endian, as the formats are
      break;
    }
    case 3: {  // cut a range
      if (b.empty()) break;
      const size_t at = pick(rng, b.size());
      const size_t n = 1 + pick(rng, std::min<size_t>(b.size() - at, 64));
      b.erase(b.begin() + static_cast<ptrdiff_t>(at), b.begin() + static_cast<ptrdiff_t>(at + n));
      break;
    }
    case 4: {  // repeat a range of the input somewhere in it
      if (b.empty()) break;
      const size_t from = pick(rng, b.size());
      const size_t n = 1 + pick(rng, std::min<size_t>(b.size() - from, 64));
      Bytes chunk(b.begin() + static_cast<ptrdiff_t>(from), b.begin() + static_cast<ptrdiff_t>(from + n));
      b.insert(b.begin() + static_cast<ptrdiff_t>(pick(rng, b.size() + 1)), chunk.begin(), chunk.end());
      break;
    }
    case 5:  // truncate
      if (!b.empty()) b.resize(pick(rng, b.size()));
      break;
    default: {  // splice: this input's head, the other's tail
      if (other.empty()) break;
      const size_t keep = pick(rng, b.size() + 1);
      const size_t from = pick(rng, other.size());
      b.resize(keep);
      b.insert(b.end(), other.begin() + static_cast<ptrdiff_t>(from), other.end());
      break;
    }
  }
}

}  // namespace

void mutate(Bytes& bytes, const Bytes& other, std::mt19937_64& rng, size_t max_size) {
  const size_t edits = 1 + pick(rng, 4);
  for (size_t i = 0; i < edits; ++i) edit(bytes, other, rng);
  if (bytes.size() > max_size) bytes.resize(max_size);
}

}  // namespace mote::fuzz
