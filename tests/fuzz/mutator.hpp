// A small byte mutator for fuzzing without libFuzzer: replay_main's
// --mutate mode, which CI runs for a bounded time in the sanitizer build
// (no coverage guidance; platforms/linux/fuzz.sh runs libFuzzer for that).
// The edits are the kinds that break binary formats: flipped bits, boundary
// integers over offsets and sizes, cut, repeated and spliced ranges.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace mote::fuzz {

using Bytes = std::vector<uint8_t>;

// Applies one to four random edits to `bytes`; `other` is a second input
// to splice from. The result stays under `max_size` bytes.
void mutate(Bytes& bytes, const Bytes& other, std::mt19937_64& rng, size_t max_size);

}  // namespace mote::fuzz
