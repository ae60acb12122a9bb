// The FlatBuffers verifier of flatc 2.0 checks a vector's length field for
// 4-byte alignment but not its elements: a hostile file can place a [long]
// (a shape, an attribute list) or a vector of 8-byte structs at 4 mod 8, and
// reading it is undefined behaviour (UBSan found it by fuzzing). This walk
// over the schema's type tables refuses such a file before anything reads it.
// Any schema whose header flatc wrote with --reflect-names can use it: the
// .mote loader, and the TFLite importer (TFLite's zero points are [long]).
#pragma once

#include <cstddef>
#include <cstdint>

#include "mote/status.hpp"

namespace flatbuffers {
struct TypeTable;
}

namespace mote {

// `bytes` must already have passed the FlatBuffers verifier; `root` is the
// type table of its root table (for a .mote file, fb::ModelTypeTable()).
Status verify_field_alignment(const uint8_t* bytes, const flatbuffers::TypeTable* root);

}  // namespace mote
