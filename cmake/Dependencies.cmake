# Every dependency is a Debian package (installed by scripts/setup.sh); none is
# copied into the tree. Build-time generators (flatc, python3) are host tools,
# so cross-compiling for Jetson or Android finds them on the build machine.

find_program(MOTE_FLATC flatc REQUIRED)
find_package(Python3 REQUIRED COMPONENTS Interpreter)
find_path(MOTE_FLATBUFFERS_INCLUDE flatbuffers/flatbuffers.h REQUIRED)
find_package(hwy REQUIRED)
find_package(Threads REQUIRED)
if(MOTE_VULKAN)
  # Headers only: the loader is opened at run time through volk, so nothing
  # links against libvulkan and a machine without it runs on the CPU.
  find_package(VulkanHeaders QUIET)
  if(NOT TARGET Vulkan::Headers)
    # The Android NDK ships vulkan/vulkan.h in its sysroot, without a CMake package.
    find_path(MOTE_VULKAN_INCLUDE vulkan/vulkan.h REQUIRED)
    add_library(Vulkan::Headers INTERFACE IMPORTED)
    set_target_properties(Vulkan::Headers PROPERTIES INTERFACE_INCLUDE_DIRECTORIES ${MOTE_VULKAN_INCLUDE})
  endif()
  find_path(MOTE_VOLK_INCLUDE volk.h REQUIRED)
  find_program(MOTE_GLSLANG glslangValidator REQUIRED)
endif()

if(MOTE_BUILD_TOOLS OR MOTE_BUILD_TESTS)
  find_package(CLI11 REQUIRED)
endif()
if(MOTE_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(MOTE_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
