// The windows of pool.comp and qlinear_pool.comp over up to three spatial
// dims (the host pads 1-D and 2-D windows to 3-D with unit dims), geometry
// resolved on the host by pool_geometry(). Expects the push block `p` with
// in_size, out_size, kernel, stride, dilation, pad_begin and pad_end.

// Where the window of output position o (within a plane) starts.
ivec3 window_start(uint o) {
  return ivec3(o / (p.out_size[1] * p.out_size[2]), o / p.out_size[2] % p.out_size[1], o % p.out_size[2]) *
             ivec3(p.stride[0], p.stride[1], p.stride[2]) -
         ivec3(p.pad_begin[0], p.pad_begin[1], p.pad_begin[2]);
}

uint window_taps() { return p.kernel[0] * p.kernel[1] * p.kernel[2]; }

// The tap after `k` (kd, kh, kw) in a walk over the window, kw fastest:
// callers step through the taps with it instead of dividing a flat tap
// index three ways per tap (on lavapipe a vector division is one scalar
// division per lane: ResNet-18's 3x3 stride-2 MaxPool 17.3-19.1 -> 8.0-11.6
// ms without them).
void next_tap(inout uvec3 k) {
  if (++k.z < p.kernel[2]) return;
  k.z = 0u;
  if (++k.y < p.kernel[1]) return;
  k.y = 0u;
  ++k.x;
}

// Tap k of the window at `start`: whether it lies in the input (then `at`
// is its offset within the plane) and, in `padded`, whether it lies in the
// input or its declared padding (count_include_pad counts those; the space
// past the padding that a ceil_mode window may reach never counts).
bool window_tap(ivec3 start, uvec3 k, out uint at, out bool padded) {
  ivec3 pos = start + ivec3(k.x * p.dilation[0], k.y * p.dilation[1], k.z * p.dilation[2]);
  ivec3 size = ivec3(p.in_size[0], p.in_size[1], p.in_size[2]);
  ivec3 pad_lo = -ivec3(p.pad_begin[0], p.pad_begin[1], p.pad_begin[2]);
  ivec3 pad_hi = size + ivec3(p.pad_end[0], p.pad_end[1], p.pad_end[2]);
  padded = all(greaterThanEqual(pos, pad_lo)) && all(lessThan(pos, pad_hi));
  at = uint((pos.x * size.y + pos.y) * size.z + pos.z);
  return all(greaterThanEqual(pos, ivec3(0))) && all(lessThan(pos, size));
}

uint plane_elements() { return p.in_size[0] * p.in_size[1] * p.in_size[2]; }
uint plane_outputs() { return p.out_size[0] * p.out_size[1] * p.out_size[2]; }
