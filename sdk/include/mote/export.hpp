// MOTE_API marks what libmote.so exports: the C++ API's classes and free
// functions (the C API has MOTE_C_API in mote.h). The library is compiled
// with hidden visibility, so everything else (kernels, the Vulkan layer,
// Highway, the registries) stays internal to it, and an app's own symbols
// never clash with Mote's. `nm -D --defined-only libmote.so` lists the result.
#pragma once

// The standard attribute syntax, so it can follow [[nodiscard]] on a class.
#if defined(__GNUC__) || defined(__clang__)
#define MOTE_API [[gnu::visibility("default")]]
#else
#define MOTE_API
#endif
