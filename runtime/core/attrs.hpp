// Kernels include attribute access through here; the definitions are public
// (mote/attrs.hpp) because GraphBuilder users set attributes too.
#pragma once
#include "mote/attrs.hpp"
