// The 1-D steps of the Winograd convolutions F(4x4, 3x3) and F(2x2, 3x3)
// (Lavin and Gray, 2016) for winograd_input.comp and winograd_output.comp;
// the weight side is runtime/ops/winograd_weights.cpp, whose points these
// match (row-major over the (TILE + 2)^2 transform domain). TILE, the
// outputs per tile side (4 or 2), is specialisation constant 3 of both.
// Lines are arrays of 6 whatever TILE is, indexed only by constants once the
// callers' loops unroll, so they stay in registers.

layout(constant_id = 3) const uint TILE = 4;
const uint POINTS_SIDE = TILE + 2u;

// B^T applied to one line of TILE + 2 inputs, in place.
void input_line(inout float l[6]) {
  if (TILE == 4u) {
    float d0 = l[0], d1 = l[1], d2 = l[2], d3 = l[3], d4 = l[4], d5 = l[5];
    l[0] = 4.0 * d0 - 5.0 * d2 + d4;
    l[1] = -4.0 * (d1 + d2) + d3 + d4;
    l[2] = 4.0 * (d1 - d2) + d4 - d3;
    l[3] = 2.0 * (d3 - d1) + d4 - d2;
    l[4] = -2.0 * (d3 - d1) + d4 - d2;
    l[5] = 4.0 * d1 - 5.0 * d3 + d5;
  } else {
    float d0 = l[0], d1 = l[1], d2 = l[2], d3 = l[3];
    l[0] = d0 - d2;
    l[1] = d1 + d2;
    l[2] = d2 - d1;
    l[3] = d1 - d3;
  }
}

// A^T applied to one line of TILE + 2 products: the first TILE entries of
// `l` become the outputs.
void output_line(inout float l[6]) {
  if (TILE == 4u) {
    float a = l[1] + l[2], b = l[1] - l[2], c = l[3] + l[4], e = l[3] - l[4];
    l[0] = l[0] + a + c;
    l[1] = b + 2.0 * e;
    l[2] = a + 4.0 * c;
    l[3] = b + 8.0 * e + l[5];
  } else {
    float m0 = l[0], m1 = l[1], m2 = l[2], m3 = l[3];
    l[0] = m0 + m1 + m2;
    l[1] = m1 - m2 - m3;
  }
}
