# plexa_cpu_backend: the CPU thunks (one file per kind), the thunk emitter,
# the pipeline, the program and the client (every .cc here but the tests,
# the conformance hook and cpu_plugin.cc), with plexa_backend_toolkit
# (plugins/common), plexa_cpu_codegen (LLVM, linked as the shared libLLVM)
# and plexa_cpu_runtime. A static library, so that plugins built on the CPU
# plugin with a CpuExtension (plugins/onednn) link it.
# libplexa_plugin_cpu.so: cpu_plugin.cc (the plugin's info and options) on it.
file(GLOB cpu_backend_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
list(FILTER cpu_backend_srcs EXCLUDE REGEX
     "(_test|conformance_backend|cpu_plugin)\\.cc$")
add_library(plexa_cpu_backend STATIC ${cpu_backend_srcs})
target_link_libraries(plexa_cpu_backend PUBLIC plexa_sdk plexa_backend_toolkit
  plexa_cpu_codegen plexa_cpu_runtime plexa_eval plexa_passes plexa_text
  plexa_verifier)
set_target_properties(plexa_cpu_backend PROPERTIES
  CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
plexa_warnings(plexa_cpu_backend)
plexa_add_plugin(cpu SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/cpu_plugin.cc
  LIBS plexa_cpu_backend)

if(PLEXA_BUILD_TESTS)
  file(GLOB cpu_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(cpu_tests)
    # The plugin is a shared module the tests load through the ABI; the
    # pass tests (reduction_splitter_test.cc) link the pass they test.
    add_executable(plexa_cpu_plugin_test ${cpu_tests})
    target_link_libraries(plexa_cpu_plugin_test PRIVATE plexa_host plexa_core
                          plexa_cpu_backend plexa_testing GTest::gtest
                          GTest::gtest_main)
    target_compile_definitions(plexa_cpu_plugin_test PRIVATE
      PLEXA_CPU_PLUGIN="$<TARGET_FILE:plexa_plugin_cpu>")
    add_dependencies(plexa_cpu_plugin_test plexa_plugin_cpu)
    plexa_warnings(plexa_cpu_plugin_test)
    plexa_gtest(plexa_cpu_plugin_test)
  endif()
endif()

# The conformance suite runs on this plugin (conformance_backend.cc); the
# plugin's path reaches it through this interface library.
add_library(plexa_cpu_plugin_location INTERFACE)
target_compile_definitions(plexa_cpu_plugin_location INTERFACE
  PLEXA_CPU_PLUGIN="$<TARGET_FILE:plexa_plugin_cpu>")
add_dependencies(plexa_cpu_plugin_location plexa_plugin_cpu)
set_property(GLOBAL APPEND PROPERTY PLEXA_CONFORMANCE_BACKEND_SOURCES
             ${CMAKE_CURRENT_SOURCE_DIR}/conformance_backend.cc)
set_property(GLOBAL APPEND PROPERTY PLEXA_CONFORMANCE_BACKEND_LIBS
             plexa_cpu_plugin_location)
