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
    plexa_verifier plexa_text plexa_proto plexa_runtime plexa_eval plexa_abi_shape plexa_sdk
    plexa_host)
foreach(lib ${plexa_exported_libraries} plexa_c_api)
  string(REGEX REPLACE "^plexa_" "" export_name ${lib})
  set_target_properties(${lib} PROPERTIES EXPORT_NAME ${export_name})
endforeach()

install(TARGETS plexa_c_api ${plexa_exported_libraries}
        EXPORT PlexaTargets
        ARCHIVE DESTINATION lib COMPONENT ${PLEXA_DEV_COMPONENT}
        INCLUDES DESTINATION include include/plexa/internal)
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
