// Ops that keep every element and only relabel the shape: the gradient is the
// output gradient reshaped back to the input's shape.
#include "runtime/train/grad_builder.hpp"

MOTE_GRAD(Reshape, mote::reshape_like_input_grad);
MOTE_GRAD(Flatten, mote::reshape_like_input_grad);
MOTE_GRAD(Squeeze, mote::reshape_like_input_grad);
MOTE_GRAD(Unsqueeze, mote::reshape_like_input_grad);
MOTE_GRAD(Identity, mote::reshape_like_input_grad);
