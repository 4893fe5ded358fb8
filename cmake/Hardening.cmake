# Sanitized builds for CI hardening (test/hardening/run_hardening.sh). Each is
# meant for its own build directory; only the targets it needs are built
# there, never the whole compiler.
#   KILN_SANITIZE: ASan + UBSan on everything compiled (runtime, importer,
#                  unit tests, kiln_run_npy).
#   KILN_FUZZ:     the same plus libFuzzer coverage, and test/fuzz's targets.
# Included before any target is defined so that the runtime, configured
# before MLIR, is instrumented too. LLVM, MLIR, protobuf and libonnx stay the
# uninstrumented system libraries.
option(KILN_SANITIZE "Instrument with AddressSanitizer and UBSan" OFF)
option(KILN_FUZZ "Build the libFuzzer targets in test/fuzz (implies ASan+UBSan)" OFF)

if(NOT (KILN_SANITIZE OR KILN_FUZZ))
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "KILN_SANITIZE/KILN_FUZZ need clang (clang-22, clang++-22)")
endif()

# UB aborts instead of printing and going on, so a test or the fuzzer sees it.
# Line tables alone keep reports symbolized at a fraction of -g's cost; -O1
# (after the build type's -O3) compiles much faster and is what ASan suggests.
# -UNDEBUG turns on the assertions in LLVM/MLIR headers (cast<>, ArrayRef
# bounds) for kiln's own code: the system libraries keep theirs off, and
# LLVM_ENABLE_ABI_BREAKING_CHECKS is fixed by the package, so both mix.
set(KILN_SANITIZER_FLAGS
  -fsanitize=address,undefined -fno-sanitize-recover=undefined
  -fno-omit-frame-pointer -gline-tables-only -O1 -UNDEBUG)
if(KILN_FUZZ)
  # Coverage for libFuzzer everywhere; only the fuzz targets link its main.
  list(APPEND KILN_SANITIZER_FLAGS -fsanitize=fuzzer-no-link)
endif()
add_compile_options(${KILN_SANITIZER_FLAGS})
add_link_options(-fsanitize=address,undefined)
message(STATUS "kiln: sanitized build (${KILN_SANITIZER_FLAGS})")
