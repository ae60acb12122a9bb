// The FlatBuffers verifier of flatc 2.0 checks a vector's length field for
// 4-byte alignment but not its elements: a hostile file can place a [long]
// (a shape, an attribute list) or a vector of 8-byte structs at 4 mod 8, and
// reading it is undefined behaviour (UBSan found it by fuzzing). This walk
// over the schema's type tables refuses such a file before anything reads it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mote/status.hpp"

namespace mote {

// `bytes` must already have passed the FlatBuffers verifier.
Status verify_field_alignment(const uint8_t* bytes);

}  // namespace mote
