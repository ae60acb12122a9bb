# mote_runnable(<target> <out_var>): a path that runs <target>'s executable
# on the build machine, for test drivers (Python, shell) that call programs
# by path: the executable itself, or, when cross-compiling with
# CMAKE_CROSSCOMPILING_EMULATOR (qemu for arm64), a generated wrapper script
# that starts it under the emulator. CTest itself adds the emulator to
# add_test() commands naming a target; drivers need this.
function(mote_runnable target out_var)
  if(NOT CMAKE_CROSSCOMPILING OR NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(${out_var} $<TARGET_FILE:${target}> PARENT_SCOPE)
    return()
  endif()
  set(wrapper ${PROJECT_BINARY_DIR}/emulated/${target})
  # Several test directories may ask for the same program: one wrapper.
  get_property(done GLOBAL PROPERTY mote_runnable_${target})
  if(done)
    set(${out_var} ${wrapper} PARENT_SCOPE)
    return()
  endif()
  set_property(GLOBAL PROPERTY mote_runnable_${target} TRUE)
  set(command)
  foreach(part IN LISTS CMAKE_CROSSCOMPILING_EMULATOR)
    string(APPEND command "\"${part}\" ")
  endforeach()
  file(GENERATE OUTPUT ${wrapper}
    CONTENT "#!/bin/sh\nexec ${command}\"$<TARGET_FILE:${target}>\" \"$@\"\n"
    FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  set(${out_var} ${wrapper} PARENT_SCOPE)
endfunction()
