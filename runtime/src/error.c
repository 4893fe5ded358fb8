/*===- error.c - Status codes, thread-local error messages, dtypes --------===*/
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

/* Thread-local so that concurrent runs on separate contexts never see each
 * other's messages; this is the runtime's only mutable global besides the
 * thread pool. */
static _Thread_local char last_error[512];

kiln_status kiln_rt_fail(kiln_status status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  vsnprintf(last_error, sizeof(last_error), fmt, args);
  va_end(args);
  return status;
}

const char *kiln_last_error(void) { return last_error; }

const char *kiln_status_string(kiln_status status) {
  switch (status) {
  case KILN_STATUS_OK:
    return "OK";
  case KILN_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case KILN_STATUS_LOAD_FAILED:
    return "LOAD_FAILED";
  case KILN_STATUS_ABI_MISMATCH:
    return "ABI_MISMATCH";
  case KILN_STATUS_SHAPE_MISMATCH:
    return "SHAPE_MISMATCH";
  case KILN_STATUS_DTYPE_MISMATCH:
    return "DTYPE_MISMATCH";
  case KILN_STATUS_OUT_OF_MEMORY:
    return "OUT_OF_MEMORY";
  case KILN_STATUS_RUN_FAILED:
    return "RUN_FAILED";
  case KILN_STATUS_UNSUPPORTED_CPU:
    return "UNSUPPORTED_CPU";
  case KILN_STATUS_NO_DEVICE:
    return "NO_DEVICE";
  case KILN_STATUS_DEVICE_ERROR:
    return "DEVICE_ERROR";
  }
  return "UNKNOWN_STATUS";
}

size_t kiln_dtype_size(int32_t dtype) {
  return (size_t)kiln_dtype_bytes(dtype);
}

const char *kiln_dtype_name(int32_t dtype) {
  switch (dtype) {
  case KILN_DTYPE_FLOAT32:
    return "float32";
  case KILN_DTYPE_UINT8:
    return "uint8";
  case KILN_DTYPE_INT8:
    return "int8";
  case KILN_DTYPE_UINT16:
    return "uint16";
  case KILN_DTYPE_INT16:
    return "int16";
  case KILN_DTYPE_INT32:
    return "int32";
  case KILN_DTYPE_INT64:
    return "int64";
  case KILN_DTYPE_BOOL:
    return "bool";
  case KILN_DTYPE_FLOAT16:
    return "float16";
  case KILN_DTYPE_FLOAT64:
    return "float64";
  case KILN_DTYPE_UINT32:
    return "uint32";
  case KILN_DTYPE_UINT64:
    return "uint64";
  case KILN_DTYPE_BFLOAT16:
    return "bfloat16";
  default:
    return "unknown";
  }
}

const char *kiln_rt_version(void) { return KILN_RT_VERSION; }
