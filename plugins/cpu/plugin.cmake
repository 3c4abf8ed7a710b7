# libplexa_plugin_cpu.so: the CPU thunks (one file per kind), the thunk
# emitter, the pipeline, the program and the SDK glue (every .cc here but
# the tests and the conformance hook), with plexa_backend_toolkit
# (plugins/common), plexa_cpu_codegen (LLVM, linked as the shared libLLVM)
# and plexa_cpu_runtime.
file(GLOB cpu_plugin_srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cc)
list(FILTER cpu_plugin_srcs EXCLUDE REGEX "(_test|conformance_backend)\\.cc$")
plexa_add_plugin(cpu
  SOURCES ${cpu_plugin_srcs}
  LIBS plexa_backend_toolkit plexa_cpu_codegen plexa_cpu_runtime plexa_eval
       plexa_passes plexa_text plexa_verifier)

if(PLEXA_BUILD_TESTS)
  file(GLOB cpu_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cc)
  if(cpu_tests)
    # The plugin is a shared module the tests load through the ABI; the
    # pass tests (reduction_splitter_test.cc) compile the pass they test.
    add_executable(plexa_cpu_plugin_test ${cpu_tests}
                   ${CMAKE_CURRENT_SOURCE_DIR}/reduction_splitter.cc)
    target_link_libraries(plexa_cpu_plugin_test PRIVATE plexa_host plexa_core
                          plexa_backend_toolkit plexa_testing GTest::gtest
                          GTest::gtest_main)
    target_compile_definitions(plexa_cpu_plugin_test PRIVATE
      PLEXA_CPU_PLUGIN="$<TARGET_FILE:plexa_plugin_cpu>")
    add_dependencies(plexa_cpu_plugin_test plexa_plugin_cpu)
    plexa_warnings(plexa_cpu_plugin_test)
    gtest_discover_tests(plexa_cpu_plugin_test DISCOVERY_MODE PRE_TEST
                         WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
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
