# Extracts the ONNX backend test tarball into DEST once; a stamp file named
# after the tarball's hash makes later runs (and a changed tarball) cheap and
# correct. Run as: cmake -DTARBALL=... -DDEST=... -P extract_suite.cmake
file(SHA256 ${TARBALL} hash)
set(stamp ${DEST}/.extracted-${hash})
if(EXISTS ${stamp})
  return()
endif()
file(REMOVE_RECURSE ${DEST})
file(MAKE_DIRECTORY ${DEST})
file(ARCHIVE_EXTRACT INPUT ${TARBALL} DESTINATION ${DEST})
file(TOUCH ${stamp})
