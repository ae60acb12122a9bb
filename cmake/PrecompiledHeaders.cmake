# Precompiled headers for the targets with many sources.
#
# Nearly every source includes mote/tensor.hpp, and with it the
# FlatBuffers-generated schema header (430 KB); the tests add GoogleTest.
# Parsing those took 1.1 to 1.8 s of each file's 3 to 9 s in the sanitizer
# build (measured with and without a precompiled header on runtime/cpu/pool.cpp,
# core/session.cpp and ops/binary.cpp: 3.3 -> 2.2, 8.6 -> 6.9, 4.5 -> 2.7 s),
# and CI compiles the runtime four times (Release, ASan, TSan, arm64). A
# precompiled header costs one compile of its own per target, so only targets
# of many files get one.
option(MOTE_PRECOMPILED_HEADERS "Precompile the headers nearly every source includes (faster builds)" ON)

# mote_precompile_headers(TARGET [HEADER...]): TARGET's C++ sources are
# compiled as if each began with the common headers and the HEADERs given
# (<system> names or absolute paths). A target's C sources are left alone.
function(mote_precompile_headers target)
  if(NOT MOTE_PRECOMPILED_HEADERS)
    return()
  endif()
  set(headers <algorithm> <cstdint> <functional> <memory> <string> <vector>
      ${PROJECT_SOURCE_DIR}/sdk/include/mote/tensor.hpp ${PROJECT_SOURCE_DIR}/sdk/include/mote/attrs.hpp ${ARGN})
  set(cxx_only)
  foreach(header IN LISTS headers)
    # A '>' would end the generator expression: $<ANGLE-R> writes it.
    string(REPLACE ">" "$<ANGLE-R>" header "${header}")
    list(APPEND cxx_only "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${cxx_only})
endfunction()
