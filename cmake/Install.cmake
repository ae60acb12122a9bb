# Install rules: the library, public headers (with the generated schema
# header), the CMake package (find_package(mote) -> mote::mote) and a
# pkg-config file.
#
# With MOTE_SHARED, mote::mote and `pkg-config mote` are libmote.so, and the
# static library is there too as mote::mote_static and `pkg-config --static
# mote-static`; without it, mote::mote and `pkg-config mote` are libmote.a.
include(CMakePackageConfigHelpers)

if(MOTE_SHARED)
  set_target_properties(mote_shared PROPERTIES EXPORT_NAME mote)
  set_target_properties(mote PROPERTIES EXPORT_NAME mote_static)
  set(MOTE_INSTALLED_LIBRARIES mote_shared mote)
else()
  set_target_properties(mote PROPERTIES EXPORT_NAME mote)
  set(MOTE_INSTALLED_LIBRARIES mote)
endif()
install(TARGETS ${MOTE_INSTALLED_LIBRARIES} mote_schema_headers EXPORT moteTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/sdk/include/mote DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${MOTE_SCHEMA_HEADER} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/mote)
install(FILES ${PROJECT_SOURCE_DIR}/sdk/schema/mote.fbs DESTINATION ${CMAKE_INSTALL_DATADIR}/mote)

set(MOTE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/mote)
install(EXPORT moteTargets NAMESPACE mote:: DESTINATION ${MOTE_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/moteConfig.cmake.in
  ${PROJECT_BINARY_DIR}/moteConfig.cmake INSTALL_DESTINATION ${MOTE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/moteConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/moteConfig.cmake ${PROJECT_BINARY_DIR}/moteConfigVersion.cmake
  DESTINATION ${MOTE_CMAKE_DIR})

# Relative to the .pc file, so an install tree can be moved (or installed to a
# scratch prefix by the package test) and still resolve.
file(RELATIVE_PATH MOTE_PC_PREFIX_FROM_PCDIR
  ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
# A static libmote needs its private dependencies at link time; libmote.so
# carries them itself.
set(MOTE_STATIC_PRIVATE_LIBS "-lhwy -lstdc++ -lm -pthread -ldl")
if(MOTE_SHARED)
  set(MOTE_PC_NAME mote)
  set(MOTE_PC_LIBS "-L\${libdir} -lmote")
  set(MOTE_PC_PRIVATE_LIBS "")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/mote.pc.in ${PROJECT_BINARY_DIR}/mote.pc @ONLY)
  # The archive by path: with both installed, -lmote would pick the .so.
  set(MOTE_PC_NAME mote-static)
  set(MOTE_PC_LIBS "\${libdir}/libmote.a")
  set(MOTE_PC_PRIVATE_LIBS ${MOTE_STATIC_PRIVATE_LIBS})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/mote.pc.in ${PROJECT_BINARY_DIR}/mote-static.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/mote.pc ${PROJECT_BINARY_DIR}/mote-static.pc
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
else()
  set(MOTE_PC_NAME mote)
  set(MOTE_PC_LIBS "-L\${libdir} -lmote")
  set(MOTE_PC_PRIVATE_LIBS ${MOTE_STATIC_PRIVATE_LIBS})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/mote.pc.in ${PROJECT_BINARY_DIR}/mote.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/mote.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
