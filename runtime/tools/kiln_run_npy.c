/*===- kiln_run_npy.c - Run a model library on .npy files ------------------===*
 *
 *   kiln_run_npy MODEL.so IN0.npy [IN1.npy ...] -o OUT0.npy [-o OUT1.npy ...]
 *
 * A minimal runner on top of kiln_rt for machines where the full `kiln run`
 * (C++, protobuf) is not available: cross-compiled targets run under
 * emulation, embedded boards. Inputs are matched to the model's inputs by
 * position, outputs are written in the model's output order; missing -o
 * files are not written. Only little-endian, C-order .npy files (format
 * versions 1-3) are read, which is what numpy writes on every common host.
 *===----------------------------------------------------------------------===*/
#include "kiln_rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK 16

typedef struct npy_array {
  int32_t dtype;
  int32_t rank;
  int64_t dims[MAX_RANK];
  void *data;
  uint64_t bytes;
} npy_array;

static const struct {
  const char *descr;
  int32_t dtype;
} kDescrs[] = {
    {"<f4", KILN_DTYPE_FLOAT32}, {"<f8", KILN_DTYPE_FLOAT64},
    {"<f2", KILN_DTYPE_FLOAT16}, {"<i8", KILN_DTYPE_INT64},
    {"<i4", KILN_DTYPE_INT32},   {"<i2", KILN_DTYPE_INT16},
    {"|i1", KILN_DTYPE_INT8},    {"<u8", KILN_DTYPE_UINT64},
    {"<u4", KILN_DTYPE_UINT32},  {"<u2", KILN_DTYPE_UINT16},
    {"|u1", KILN_DTYPE_UINT8},   {"|b1", KILN_DTYPE_BOOL},
};

static int die(const char *fmt, const char *a, const char *b) {
  fprintf(stderr, "kiln_run_npy: ");
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  return 1;
}

/* Value of `'key': ` in the header dict, or NULL. */
static const char *header_field(const char *header, const char *key) {
  char pattern[32];
  snprintf(pattern, sizeof pattern, "'%s':", key);
  const char *p = strstr(header, pattern);
  if (!p)
    return NULL;
  p += strlen(pattern);
  while (*p == ' ')
    ++p;
  return p;
}

static int parse_header(const char *header, npy_array *a, const char *path) {
  const char *descr = header_field(header, "descr");
  const char *order = header_field(header, "fortran_order");
  const char *shape = header_field(header, "shape");
  if (!descr || !order || !shape || *descr != '\'' || *shape != '(')
    return die("%s: malformed .npy header%s", path, "");
  a->dtype = KILN_DTYPE_UNDEFINED;
  for (size_t i = 0; i < sizeof kDescrs / sizeof kDescrs[0]; ++i) {
    size_t n = strlen(kDescrs[i].descr);
    if (!strncmp(descr + 1, kDescrs[i].descr, n) && descr[1 + n] == '\'')
      a->dtype = kDescrs[i].dtype;
  }
  if (a->dtype == KILN_DTYPE_UNDEFINED)
    return die("%s: unsupported dtype in header %s", path, header);
  if (strncmp(order, "False", 5))
    return die("%s: Fortran-order arrays are not supported%s", path, "");
  a->rank = 0;
  const char *p = shape + 1;
  for (;;) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      break;
    char *end;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0 || a->rank == MAX_RANK)
      return die("%s: bad shape in header %s", path, header);
    a->dims[a->rank++] = d;
    p = end;
  }
  return 0;
}

static int read_npy(const char *path, npy_array *a) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return die("cannot open %s%s", path, "");
  unsigned char magic[10];
  int rc = 1;
  char *header = NULL;
  if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "\x93NUMPY", 6)) {
    die("%s: not a .npy file%s", path, "");
    goto done;
  }
  size_t header_len;
  if (magic[6] == 1) {
    if (fread(magic + 8, 1, 2, f) != 2)
      goto done;
    header_len = magic[8] | (size_t)magic[9] << 8;
  } else {
    unsigned char len[4];
    if (fread(len, 1, 4, f) != 4)
      goto done;
    header_len = len[0] | (size_t)len[1] << 8 | (size_t)len[2] << 16 |
                 (size_t)len[3] << 24;
  }
  header = calloc(header_len + 1, 1);
  if (!header || fread(header, 1, header_len, f) != header_len) {
    die("%s: truncated header%s", path, "");
    goto done;
  }
  if (parse_header(header, a, path))
    goto done;
  uint64_t count = 1;
  for (int32_t i = 0; i < a->rank; ++i)
    count *= (uint64_t)a->dims[i];
  a->bytes = count * kiln_dtype_size(a->dtype);
  a->data = malloc(a->bytes ? a->bytes : 1);
  if (!a->data || fread(a->data, 1, a->bytes, f) != a->bytes) {
    die("%s: truncated data%s", path, "");
    goto done;
  }
  rc = 0;
done:
  free(header);
  fclose(f);
  return rc;
}

static int write_npy(const char *path, const npy_array *a) {
  const char *descr = a->dtype == KILN_DTYPE_BFLOAT16 ? "<u2" : NULL;
  for (size_t i = 0; i < sizeof kDescrs / sizeof kDescrs[0]; ++i)
    if (kDescrs[i].dtype == a->dtype)
      descr = kDescrs[i].descr;
  if (!descr)
    return die("%s: output dtype %s has no .npy form", path,
               kiln_dtype_name(a->dtype));
  char dict[512];
  int n = snprintf(dict, sizeof dict,
                   "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int32_t i = 0; i < a->rank; ++i)
    n += snprintf(dict + n, sizeof dict - n, "%lld,%s", (long long)a->dims[i],
                  i + 1 < a->rank ? " " : "");
  n += snprintf(dict + n, sizeof dict - n, "), }");
  /* Pad with spaces so the data starts 64-byte aligned, newline last. */
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  size_t header_len = padded - 10;
  prefix[8] = header_len & 0xff;
  prefix[9] = header_len >> 8;
  FILE *f = fopen(path, "wb");
  if (!f)
    return die("cannot write %s%s", path, "");
  fwrite(prefix, 1, 10, f);
  fwrite(dict, 1, (size_t)n, f);
  for (size_t i = total; i < padded; ++i)
    fputc(' ', f);
  fputc('\n', f);
  int ok = fwrite(a->data, 1, a->bytes, f) == a->bytes;
  ok &= fclose(f) == 0;
  return ok ? 0 : die("cannot write %s%s", path, "");
}

static int rt_fail(const char *what) {
  return die("%s: %s", what, kiln_last_error());
}

int main(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help")) {
    fprintf(stderr, "usage: kiln_run_npy MODEL.so IN.npy... [-o OUT.npy]...\n");
    return 2;
  }
  const char *in_paths[64], *out_paths[64];
  int num_in = 0, num_out = 0;
  for (int i = 2; i < argc; ++i) {
    if (!strcmp(argv[i], "-o")) {
      if (i + 1 >= argc || num_out == 64)
        return die("bad -o%s%s", "", "");
      out_paths[num_out++] = argv[++i];
    } else if (num_in < 64) {
      in_paths[num_in++] = argv[i];
    }
  }

  /* dlopen searches the library path for names without a slash. */
  char model_path[4096];
  snprintf(model_path, sizeof model_path, "%s%s",
           strchr(argv[1], '/') ? "" : "./", argv[1]);
  kiln_model *model;
  if (kiln_model_load(model_path, &model) != KILN_STATUS_OK)
    return rt_fail("load");
  int64_t model_outs = kiln_model_num_outputs(model);
  npy_array inputs[64], outputs[64];
  kiln_tensor in_tensors[64], out_tensors[64];
  for (int i = 0; i < num_in; ++i) {
    if (read_npy(in_paths[i], &inputs[i]))
      return 1;
    /* numpy has no bfloat16: such inputs arrive as their uint16 bits. */
    const kiln_tensor_info *info = kiln_model_input(model, i);
    if (info && info->dtype == KILN_DTYPE_BFLOAT16 &&
        inputs[i].dtype == KILN_DTYPE_UINT16)
      inputs[i].dtype = KILN_DTYPE_BFLOAT16;
    in_tensors[i] =
        (kiln_tensor){inputs[i].dtype, inputs[i].rank, inputs[i].dims,
                      inputs[i].data, inputs[i].bytes};
  }
  if (model_outs > 64)
    return die("too many outputs%s%s", "", "");
  for (int64_t k = 0; k < model_outs; ++k) {
    const kiln_tensor_info *info = kiln_model_output(model, k);
    npy_array *o = &outputs[k];
    o->dtype = info->dtype;
    o->rank = info->rank;
    if (kiln_infer_output_dims(model, in_tensors, num_in, k, o->dims) !=
        KILN_STATUS_OK)
      return rt_fail("inputs");
    /* An output sized at run time (-1 dims) is read after the run; the
     * run does not look at its dims or data. */
    uint64_t count = 1;
    for (int32_t i = 0; i < o->rank; ++i)
      count *= o->dims[i] < 0 ? 0 : (uint64_t)o->dims[i];
    o->bytes = count * kiln_dtype_size(o->dtype);
    o->data = calloc(o->bytes ? o->bytes : 1, 1);
    if (!o->data)
      return die("out of memory%s%s", "", "");
    out_tensors[k] =
        (kiln_tensor){o->dtype, o->rank, o->dims, o->data, o->bytes};
  }

  kiln_context *ctx;
  if (kiln_context_create(model, &ctx) != KILN_STATUS_OK)
    return rt_fail("context");
  if (kiln_run(ctx, in_tensors, num_in, out_tensors, model_outs) !=
      KILN_STATUS_OK)
    return rt_fail("run");
  for (int64_t k = 0; k < model_outs; ++k) {
    npy_array *o = &outputs[k];
    kiln_tensor t;
    if (kiln_context_output(ctx, k, &t) != KILN_STATUS_OK)
      return rt_fail("output");
    if (t.data == o->data)
      continue;
    free(o->data);
    o->data = malloc(t.byte_size ? t.byte_size : 1);
    if (!o->data)
      return die("out of memory%s%s", "", "");
    memcpy(o->data, t.data, t.byte_size);
    memcpy(o->dims, t.dims, (size_t)t.rank * sizeof(int64_t));
    o->bytes = t.byte_size;
  }
  for (int k = 0; k < num_out && k < model_outs; ++k)
    if (write_npy(out_paths[k], &outputs[k]))
      return 1;
  kiln_context_destroy(ctx);
  kiln_model_unload(model);
  /* Freed so that LeakSanitizer (test/hardening) sees only the runtime's. */
  for (int i = 0; i < num_in; ++i)
    free(inputs[i].data);
  for (int64_t k = 0; k < model_outs; ++k)
    free(outputs[k].data);
  return 0;
}
