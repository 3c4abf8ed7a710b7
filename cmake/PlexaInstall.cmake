# Install rules and the CMake package (find_package(Plexa)) for out-of-tree
# plugins and hosts. Included from the top-level CMakeLists.txt after every
# target exists.
#
# `cmake --install BUILD --prefix P` installs, besides the `plexa` tool and
# the plugins (component Unspecified), the development files (component
# Plexa_Development, installable alone with --component Plexa_Development):
#   P/include/plexa/plexa_c_api.h                 the C ABI
#   P/include/plexa/internal/{abi/sdk,abi/host,abi/shape,core}/...h
#                                                 SDK, host and core headers
#   P/lib/libplexa_*.a                            static libraries
#   P/lib/cmake/Plexa/PlexaConfig.cmake           Plexa::sdk, Plexa::c_api, ...
#   P/lib/cmake/Plexa/plugin.map                  the plugin version script
include(CMakePackageConfigHelpers)

set(PLEXA_INSTALL_CMAKEDIR lib/cmake/Plexa)
set(PLEXA_DEV_COMPONENT Plexa_Development)

# What the SDK, the host and the evaluator need, bottom-up; exported as
# Plexa::<name without the plexa_ prefix>.
set(plexa_exported_libraries plexa_shape plexa_literal plexa_ir plexa_infer
    plexa_verifier plexa_text plexa_stablehlo plexa_proto plexa_runtime plexa_eval plexa_abi_shape plexa_sdk
    plexa_host)
foreach(lib ${plexa_exported_libraries} plexa_c_api)
  string(REGEX REPLACE "^plexa_" "" export_name ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${export_name})
endforeach()

install(TARGETS plexa_c_api ${plexa_exported_libraries}
        EXPORT PlexaTargets
        ARCHIVE DESTINATION lib COMPONENT ${PLEXA_DEV_COMPONENT}
        INCLUDES DESTINATION include include/plexa/internal)
# `cmake --install --strip` and cpack (CPACK_STRIP_FILES) strip executables
# and shared libraries; the static libraries lose their debug sections too
# (RelWithDebInfo's debug information is four fifths of their size).
install(CODE "
  if(CMAKE_INSTALL_DO_STRIP)
    file(GLOB archives \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/libplexa_*.a\")
    foreach(archive \${archives})
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-debug \"\${archive}\"
                      RESULT_VARIABLE failed)
      if(failed)
        message(FATAL_ERROR \"strip --strip-debug \${archive} failed\")
      endif()
    endforeach()
  endif()" COMPONENT ${PLEXA_DEV_COMPONENT})
install(EXPORT PlexaTargets NAMESPACE Plexa::
        DESTINATION ${PLEXA_INSTALL_CMAKEDIR} COMPONENT ${PLEXA_DEV_COMPONENT})

install(FILES ${PROJECT_SOURCE_DIR}/abi/include/plexa/plexa_c_api.h
        DESTINATION include/plexa COMPONENT ${PLEXA_DEV_COMPONENT})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/abi/sdk ${PROJECT_SOURCE_DIR}/abi/host
                  ${PROJECT_SOURCE_DIR}/abi/shape
        DESTINATION include/plexa/internal/abi COMPONENT ${PLEXA_DEV_COMPONENT}
        FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/core/
        DESTINATION include/plexa/internal/core COMPONENT ${PLEXA_DEV_COMPONENT}
        FILES_MATCHING PATTERN "*.h"
        PATTERN "*_test*" EXCLUDE PATTERN "testdata" EXCLUDE)

file(STRINGS ${PROJECT_SOURCE_DIR}/abi/include/plexa/plexa_c_api.h plexa_abi_defines
     REGEX "^#define PLX_API_(MAJOR|MINOR) ")
string(REGEX REPLACE ".*PLX_API_MAJOR ([0-9]+).*PLX_API_MINOR ([0-9]+).*" "\\1.\\2"
       PLEXA_ABI_VERSION "${plexa_abi_defines}")
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/PlexaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cmake/PlexaConfig.cmake
  INSTALL_DESTINATION ${PLEXA_INSTALL_CMAKEDIR})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/cmake/PlexaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/PlexaConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/PlexaConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/plugins/plugin.map
        DESTINATION ${PLEXA_INSTALL_CMAKEDIR} COMPONENT ${PLEXA_DEV_COMPONENT})

# pkg-config: plexa.pc (the C header) and plexa-sdk.pc (the SDK's static
# libraries, in one link group, with the Debian packages they need).
set(PLEXA_PC_REQUIRES "absl_status absl_statusor absl_strings absl_str_format absl_span absl_inlined_vector absl_flat_hash_map absl_flat_hash_set absl_hash absl_synchronization protobuf")
string(REPLACE " " ", " PLEXA_PC_REQUIRES "${PLEXA_PC_REQUIRES}")
set(PLEXA_PC_LIBS "")
foreach(lib plexa_sdk plexa_abi_shape plexa_proto plexa_text plexa_verifier
            plexa_infer plexa_runtime plexa_ir plexa_literal plexa_shape)
  string(APPEND PLEXA_PC_LIBS " -l${lib}")
endforeach()
string(STRIP "${PLEXA_PC_LIBS}" PLEXA_PC_LIBS)
# Libraries built with sanitizers need their runtimes in whatever links them
# (as PlexaConfig.cmake adds to Plexa::shape).
set(PLEXA_PC_SANITIZE "")
if(PLEXA_SANITIZE)
  set(PLEXA_PC_SANITIZE "-fsanitize=${PLEXA_SANITIZE}")
endif()
foreach(pc plexa plexa-sdk)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${pc}.pc.in
                 ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/pkgconfig/${pc}.pc
          DESTINATION lib/pkgconfig COMPONENT ${PLEXA_DEV_COMPONENT})
endforeach()

# A Debian package of the whole install (`cpack -G DEB` in a build tree):
# the plexa tool, the plugins, the conformance cases, the headers, static
# libraries, CMake package and pkg-config files. Binaries are stripped; the
# dependencies on Debian's shared libraries come from dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME plexa)
set(CPACK_PACKAGE_VENDOR "Plexa")
set(CPACK_PACKAGE_CONTACT "Plexa developers <plexa@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "XLA-style compiler framework with a stable C ABI for backend plugins")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The development files need the -dev packages to be used (headers and
# static libraries); the Vulkan plugin loads libvulkan at run time (so that
# it loads on machines without a Vulkan loader), and finds a device through
# an installed driver (Mesa's lavapipe runs on any CPU).
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
    "libabsl-dev, libprotobuf-dev, pkg-config, libvulkan1, mesa-vulkan-drivers")
set(CPACK_DEBIAN_COMPRESSION_TYPE gzip)
set(CPACK_MONOLITHIC_INSTALL ON)
include(CPack)
