// Mote C++ API: include this one header.
#pragma once

#include "mote/attrs.hpp"
#include "mote/gpu.hpp"
#include "mote/graph_builder.hpp"
#include "mote/model.hpp"
#include "mote/session.hpp"
#include "mote/status.hpp"
#include "mote/tensor.hpp"
#include "mote/training.hpp"
