// Writing a .mote file's bytes: the FlatBuffer, then the weight segment at
// the first kWeightAlignment offset past it. Shared by GraphBuilder and by
// tools that rewrite a loaded model (choose_gpu_precision's probe).
#pragma once

#include <cstdint>
#include <functional>

#include "mote/model.hpp"
#include "mote/status.hpp"

namespace mote {

// Packs `def` into `allocate(size)` (zeroed bytes the caller owns) and
// returns where its weight segment of def.segment_size bytes starts, for the
// caller to fill. def.segment_offset is overwritten with it.
Result<uint64_t> pack_model(fb::ModelT& def, const std::function<uint8_t*(uint64_t size)>& allocate);

}  // namespace mote
