# KilnTensorIO: .npy and ONNX TensorProto files <-> HostTensor, for the CLI.
# Plain C++ and protobuf only (no LLVM/MLIR), so tests and tools can link it
# alone. Included from compiler/driver/CMakeLists.txt; paths are relative to
# this file so that any includer works.
if(NOT TARGET protobuf::libprotobuf)
  find_package(Protobuf REQUIRED)
endif()
if(NOT TARGET onnx_proto)
  find_package(ONNX REQUIRED CONFIG)
endif()

# LLVM's add_llvm_* insists that every .cpp in a directory belongs to its one
# target; record this file as owned so that check passes. Include this file
# before add_llvm_executable in compiler/driver.
get_filename_component(_kiln_tensorio_src "${CMAKE_CURRENT_LIST_DIR}/TensorIO.cpp"
  REALPATH)
set_property(DIRECTORY APPEND PROPERTY LLVM_SOURCE_FILES ${_kiln_tensorio_src})

get_filename_component(KILN_TENSORIO_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.."
  ABSOLUTE)
add_library(KilnTensorIO STATIC ${_kiln_tensorio_src})
target_include_directories(KilnTensorIO PUBLIC
  ${KILN_TENSORIO_ROOT}
  ${KILN_TENSORIO_ROOT}/runtime/include)
# onnx_proto brings ONNX_NAMESPACE=onnx and ONNX_ML=1 with it.
target_link_libraries(KilnTensorIO PUBLIC onnx_proto)
target_compile_features(KilnTensorIO PUBLIC cxx_std_17)
set_target_properties(KilnTensorIO PROPERTIES POSITION_INDEPENDENT_CODE ON)
