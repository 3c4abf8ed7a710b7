# plexa_gtest(TARGET [SHARDS N | ISOLATED] [PREFIX P] [WORKING_DIRECTORY DIR]
#             [TIMEOUT SECONDS] [LABELS L...] [ENVIRONMENT VAR=VALUE...])
#
# Registers a GoogleTest binary with CTest as N processes ("shards"), each
# running every N-th test of the binary through GoogleTest's own sharding
# (GTEST_TOTAL_SHARDS / GTEST_SHARD_INDEX). One CTest entry per test case
# (gtest_discover_tests) started a process per case: with 12,000 cases and
# plugins that load libLLVM, Mesa and oneDNN at start-up, process start-up
# was most of the test time (7 minutes in the release build, 20 under
# AddressSanitizer, against 1.5 and 2.5 minutes run this way). A failing
# case is still named: CTest prints the shard's output on failure, and
# --gtest_brief=1 keeps that output to the failures.
#
# ISOLATED keeps one process per case, for a binary whose cases change
# process-wide state that cannot be undone (a CustomCall target registered
# in a plugin's process-wide registry stays registered: XLA's registry has
# no unregistration either).
#
# To run one case by hand: the binary with --gtest_filter=Suite.Case.
#
# Every such binary's own sources get PLEXA_TEST_COMPILE_OPTIONS after the
# flavour's flags (scripts/build.sh gives the sanitizer flavours -O0: under
# ASan+UBSan a test file compiles about 3 times faster at -O0 than at -O1,
# and the tests' heavy work runs in the libraries, which keep -O1).
set(PLEXA_TEST_COMPILE_OPTIONS "" CACHE STRING
    "Extra compile options for the gtest binaries' own sources (e.g. -O0)")
function(plexa_gtest target)
  if(PLEXA_TEST_COMPILE_OPTIONS)
    target_compile_options(${target} PRIVATE ${PLEXA_TEST_COMPILE_OPTIONS})
  endif()
  cmake_parse_arguments(ARG "ISOLATED" "SHARDS;PREFIX;WORKING_DIRECTORY;TIMEOUT"
                        "LABELS;ENVIRONMENT" ${ARGN})
  if(NOT ARG_SHARDS)
    set(ARG_SHARDS 1)
  endif()
  if(NOT ARG_WORKING_DIRECTORY)
    set(ARG_WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
  endif()
  if(NOT ARG_TIMEOUT)
    # A hang fails its shard rather than holding CI until its own limit.
    set(ARG_TIMEOUT 900)
  endif()
  if(ARG_ISOLATED)
    include(GoogleTest)
    set(properties TIMEOUT ${ARG_TIMEOUT})
    if(ARG_LABELS)
      # gtest_discover_tests splits list-valued properties: one label only.
      list(APPEND properties LABELS ${ARG_LABELS})
    endif()
    if(ARG_ENVIRONMENT)
      list(APPEND properties ENVIRONMENT ${ARG_ENVIRONMENT})
    endif()
    # Listing the cases runs the binary: under ASan with leak checking
    # (and intercept_tls_get_addr=0, scripts/test.sh) its exit takes
    # seconds once the plugins are loaded (5.6 s measured), past CMake's
    # default 5-second limit.
    gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST
                         DISCOVERY_TIMEOUT 120
                         TEST_PREFIX "${ARG_PREFIX}"
                         WORKING_DIRECTORY ${ARG_WORKING_DIRECTORY}
                         PROPERTIES ${properties})
    return()
  endif()
  math(EXPR last "${ARG_SHARDS} - 1")
  foreach(index RANGE ${last})
    set(name "${ARG_PREFIX}${target}")
    if(ARG_SHARDS GREATER 1)
      string(APPEND name "/${index}of${ARG_SHARDS}")
    endif()
    add_test(NAME ${name} COMMAND ${target} --gtest_brief=1
             WORKING_DIRECTORY ${ARG_WORKING_DIRECTORY})
    set(environment GTEST_TOTAL_SHARDS=${ARG_SHARDS}
                    GTEST_SHARD_INDEX=${index} ${ARG_ENVIRONMENT})
    set_tests_properties(${name} PROPERTIES
      ENVIRONMENT "${environment}" TIMEOUT ${ARG_TIMEOUT})
    if(ARG_LABELS)
      set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}")
    endif()
  endforeach()
endfunction()
