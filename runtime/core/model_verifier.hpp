// Verification of an untrusted .mote file before anything reads it: the
// FlatBuffers verifier, then every offset, index, dtype and shape checked
// against the file. Error messages name the op and tensor; the caller
// prefixes the file name.
#pragma once

#include <cstddef>
#include <cstdint>

#include "mote/status.hpp"

namespace mote {

Status verify_model(const uint8_t* bytes, size_t size);

}  // namespace mote
