// The source of Resize's output element i (resize.comp, resize_codes.comp):
// the offset of its all-lower corner in X, and per axis the offset from
// the lower to the upper index and the upper weight (linear mode). The
// coordinate rules (runtime/ops/resize.hpp) ran on the host: per axis and
// output coordinate, `table` holds (lower index, upper index, upper weight
// as float bits) from p.table_off[d]. Expects the push block `p` with n,
// rank, dims, in_strides and table_off.
uint resize_source(uint i, out uint step[6], out float weight[6]) {
  uint rest = i;
  uint lower = 0u;
  for (int d = 5; d >= 6 - int(p.rank); --d) {
    uint coord = rest % p.dims[d];
    rest /= p.dims[d];
    uint entry = p.table_off[d] + 3u * coord;
    uint lo = table[entry];
    lower += lo * p.in_strides[d];
    step[d] = (table[entry + 1u] - lo) * p.in_strides[d];
    weight[d] = uintBitsToFloat(table[entry + 2u]);
  }
  return lower;
}
