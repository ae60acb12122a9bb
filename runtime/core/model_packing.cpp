#include "runtime/core/model_packing.hpp"

#include <cstring>

namespace mote {

Result<uint64_t> pack_model(fb::ModelT& def, const std::function<uint8_t*(uint64_t size)>& allocate) {
  // The segment starts after the FlatBuffer, whose size depends on the
  // offset's value only through its presence: write a placeholder, measure,
  // then patch the real offset in place.
  def.segment_offset = ~uint64_t{0};
  flatbuffers::FlatBufferBuilder fbb;
  fbb.ForceDefaults(true);
  fbb.Finish(fb::Model::Pack(fbb, &def), fb::ModelIdentifier());
  const uint64_t segment_offset = (fbb.GetSize() + kWeightAlignment - 1) / kWeightAlignment * kWeightAlignment;
  uint8_t* file = allocate(segment_offset + def.segment_size);
  std::memcpy(file, fbb.GetBufferPointer(), fbb.GetSize());
  if (!fb::GetMutableModel(file)->mutate_segment_offset(segment_offset)) {
    return internal_error("could not patch the weight segment offset");
  }
  def.segment_offset = segment_offset;
  return segment_offset;
}

}  // namespace mote
