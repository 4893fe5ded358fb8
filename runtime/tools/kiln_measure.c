/*===- kiln_measure.c - Time a model library on seeded random inputs -------===*
 *
 *   kiln_measure MODEL.so [--warmup N] [--runs N] [--min-ms MS]
 *                [--seed S] [--threads T] [--samples K]
 *                [--cold flush|evict|BYTES]
 *   kiln_measure --device
 *
 * The autotuner's measurer: `kiln tune` runs it in a child process (behind
 * a runner prefix for other devices, qemu for cross targets), so a
 * candidate that crashes or hangs ends only this process. Inputs are
 * seeded uniform values, so every candidate of a task sees the same ones.
 * Prints, one fact per line:
 *   device <model> | <cpus> cpus | <features>
 *   cold flush|evict        (with --cold: how the caches were emptied)
 *   median_ns <t>           runs <n>
 *   output <i> <count> <sum> <sum of |x|>
 *   sample <i> <x0> <x1> ...  (K values at an even stride, %a)
 * so the tuner can check a candidate's outputs against the default
 * schedule's without copying tensors back from a remote device.
 *
 * With --cold, every run starts from the cache state a layer sees inside a
 * model. `--cold flush` (or 0) writes the model's memory (weights, arena,
 * inputs and outputs) back to DRAM with cache-flush instructions where user
 * code may use them (x86-64, AArch64), as inside a model whose weights and
 * scratch outgrow the caches between two uses; `--cold evict` writes over
 * twice the per-core cache (the fallback of flush elsewhere), as inside a
 * model small enough to stay in the shared cache; `--cold BYTES` writes over
 * BYTES. Then the inputs are read back in: inside a model they were just
 * written by the layer before. Back to back, a one-op library keeps
 * everything in cache, which favours schedules with big weight streams
 * (Winograd's transformed filters) and hides the cost of writing an output
 * whose lines are not in cache (64 output rows advanced 128 bytes at a
 * time: 3x slower from memory).
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE /* dl_iterate_phdr */
#include "kiln_model_abi.h"
#include "kiln_rt.h"

#include <link.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int die(const char *what, const char *detail) {
  fprintf(stderr, "kiln_measure: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  return 1;
}

static uint64_t next_random(uint64_t *state) {
  /* xorshift64*: fast, and the same sequence on every host. */
  uint64_t x = *state;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *state = x;
  return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [-1, 1). */
static double uniform(uint64_t *state) {
  return (double)(next_random(state) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static uint16_t to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = (x >> 13) & 0x3ffu;
  if (exp <= 0)
    return (uint16_t)sign; /* tiny values flush to zero */
  return (uint16_t)(sign | ((uint32_t)exp << 10) | mant);
}

static void fill(void *data, int32_t dtype, int64_t count, uint64_t *state) {
  for (int64_t i = 0; i < count; ++i) {
    double u = uniform(state);
    /* Small non-negative integers: valid as indices into most axes. */
    int64_t small = (int64_t)((u + 1.0) * 2.0);
    switch (dtype) {
    case KILN_DTYPE_FLOAT32:
      ((float *)data)[i] = (float)u;
      break;
    case KILN_DTYPE_FLOAT64:
      ((double *)data)[i] = u;
      break;
    case KILN_DTYPE_FLOAT16:
      ((uint16_t *)data)[i] = to_half((float)u);
      break;
    case KILN_DTYPE_INT64:
      ((int64_t *)data)[i] = small;
      break;
    case KILN_DTYPE_INT32:
      ((int32_t *)data)[i] = (int32_t)small;
      break;
    case KILN_DTYPE_BOOL:
      ((uint8_t *)data)[i] = small & 1;
      break;
    default:
      memset((char *)data + i * kiln_dtype_size(dtype), (int)small,
             kiln_dtype_size(dtype));
    }
  }
}

static double value_at(const void *data, int32_t dtype, int64_t i) {
  switch (dtype) {
  case KILN_DTYPE_FLOAT32:
    return ((const float *)data)[i];
  case KILN_DTYPE_FLOAT64:
    return ((const double *)data)[i];
  case KILN_DTYPE_INT64:
    return (double)((const int64_t *)data)[i];
  case KILN_DTYPE_INT32:
    return ((const int32_t *)data)[i];
  case KILN_DTYPE_UINT8:
  case KILN_DTYPE_BOOL:
    return ((const uint8_t *)data)[i];
  case KILN_DTYPE_INT8:
    return ((const int8_t *)data)[i];
  default:
    return 0.0;
  }
}

static int64_t elements(int32_t rank, const int64_t *dims) {
  int64_t n = 1;
  for (int32_t d = 0; d < rank; ++d)
    n *= dims[d];
  return n;
}

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The core's private cache (L2), in bytes; 4 MiB when the system does not
 * say. */
static size_t private_cache_bytes(void) {
  long bytes = 0;
#ifdef _SC_LEVEL2_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  if (bytes <= 0) {
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index2/size", "r");
    char unit = 0;
    if (f) {
      if (fscanf(f, "%ld%c", &bytes, &unit) >= 1)
        bytes *= unit == 'K' ? 1024 : unit == 'M' ? 1024 * 1024 : 1;
      fclose(f);
    }
  }
  return bytes > 0 ? (size_t)bytes : (size_t)4 << 20;
}

/* Writes [p, p + n) back to memory and drops it from every cache level;
 * returns 0 where user code cannot. */
static int flush_range(const void *p, size_t n) {
#if defined(__x86_64__) || defined(__i386__)
  const char *c = (const char *)((uintptr_t)p & ~(uintptr_t)63);
  for (const char *e = (const char *)p + n; c < e; c += 64)
    _mm_clflush(c);
  _mm_mfence();
  return 1;
#elif defined(__aarch64__)
  uint64_t ctr;
  __asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
  uintptr_t line = (uintptr_t)4 << ((ctr >> 16) & 15);
  uintptr_t c = (uintptr_t)p & ~(line - 1);
  for (uintptr_t e = (uintptr_t)p + n; c < e; c += line)
    __asm__ volatile("dc civac, %0" : : "r"(c) : "memory");
  __asm__ volatile("dsb ish" : : : "memory");
  return 1;
#else
  (void)p;
  (void)n;
  return 0;
#endif
}

/* The loaded libraries' data segments (the model's weights among them). */
static int flush_segment(struct dl_phdr_info *info, size_t size, void *ok) {
  (void)size;
  if (!info->dlpi_name || !info->dlpi_name[0])
    return 0; /* this program */
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type == PT_LOAD && !(ph->p_flags & PF_X) && ph->p_memsz)
      *(int *)ok &= flush_range((const void *)(info->dlpi_addr + ph->p_vaddr),
                                ph->p_memsz);
  }
  return 0;
}

static size_t tensor_bytes(const kiln_tensor *t) {
  return (size_t)elements(t->rank, t->dims) * kiln_dtype_size(t->dtype);
}

/* Flushes the model's memory to DRAM; 0 where that is not possible. */
static int flush_model(const kiln_model *model, const kiln_context *ctx,
                       const kiln_tensor *ins, int64_t ni,
                       const kiln_tensor *outs, int64_t no) {
  int ok = 1;
  dl_iterate_phdr(flush_segment, &ok);
  const kiln_model_desc *d = kiln_model_descriptor(model);
  if (d->weights_base && *d->weights_base)
    ok &= flush_range(*d->weights_base, d->weights_bytes);
  if (kiln_context_arena(ctx))
    ok &= flush_range(kiln_context_arena(ctx), kiln_context_arena_bytes(ctx));
  for (int64_t t = 0; t < ni; ++t)
    ok &= flush_range(ins[t].data, tensor_bytes(&ins[t]));
  for (int64_t t = 0; t < no; ++t)
    if (outs[t].data)
      ok &= flush_range(outs[t].data, tensor_bytes(&outs[t]));
  return ok;
}

/* Evicts the model's weights and scratch (to DRAM when `flush`, else from
 * the core's caches), then brings the inputs back in. */
static volatile uint64_t cold_sink;
static void make_cold(int flush, uint64_t *scratch, size_t bytes,
                      const kiln_model *model, const kiln_context *ctx,
                      const kiln_tensor *ins, int64_t ni,
                      const kiln_tensor *outs, int64_t no) {
  if (flush)
    flush_model(model, ctx, ins, ni, outs, no);
  for (size_t i = 0; i < bytes / 8; i += 8)
    scratch[i] += i;
  uint64_t sum = scratch ? scratch[0] : 0;
  for (int64_t t = 0; t < ni; ++t) {
    size_t n = tensor_bytes(&ins[t]);
    for (size_t i = 0; i < n; i += 64)
      sum += ((const unsigned char *)ins[t].data)[i];
  }
  cold_sink += sum;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* What the measurements were taken on: the tuning database keys records by
 * it, so times from different machines are never compared. */
static void print_device(void) {
  char model[256] = "unknown";
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (f) {
    char line[512];
    while (fgets(line, sizeof line, f)) {
      char *colon = strchr(line, ':');
      if (!colon ||
          (strncmp(line, "model name", 10) && strncmp(line, "CPU part", 8)))
        continue;
      char *v = colon + 1;
      while (*v == ' ' || *v == '\t')
        ++v;
      v[strcspn(v, "\n")] = 0;
      snprintf(model, sizeof model, "%s", v);
      if (!strncmp(line, "model name", 10))
        break;
    }
    fclose(f);
  }
  static const char *features[] = {
      "sse4.2",     "avx",      "avx2", "fma",     "avx512f", "avx512bw",
      "avx512vnni", "amx-tile", "neon", "dotprod", "sve",     "v"};
  printf("device %s | %ld cpus |", model, sysconf(_SC_NPROCESSORS_ONLN));
  const char *sep = " ";
  for (size_t i = 0; i < sizeof features / sizeof *features; ++i)
    if (kiln_rt_cpu_supports(features[i]) == 1) {
      printf("%s%s", sep, features[i]);
      sep = ",";
    }
  printf("\n");
}

int main(int argc, char **argv) {
  const char *path = NULL;
  long warmup = 3, runs = 10, samples = 256, threads = 0;
  double min_ms = 50;
  uint64_t seed = 1;
  /* -1: warm; 0: flush (or evict where flushing is not possible); -2:
   * evict (twice the core's cache); N: write over N scratch bytes */
  long cold = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if (a[0] != '-') {
      path = a;
      continue;
    }
    if (!strcmp(a, "--device")) {
      print_device();
      return 0;
    }
    if (i + 1 >= argc)
      return die("missing value after", a);
    const char *v = argv[++i];
    if (!strcmp(a, "--warmup"))
      warmup = atol(v);
    else if (!strcmp(a, "--runs"))
      runs = atol(v);
    else if (!strcmp(a, "--min-ms"))
      min_ms = atof(v);
    else if (!strcmp(a, "--seed"))
      seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--threads"))
      threads = atol(v);
    else if (!strcmp(a, "--samples"))
      samples = atol(v);
    else if (!strcmp(a, "--cold")) {
      char *end = NULL;
      if (!strcmp(v, "flush"))
        cold = 0;
      else if (!strcmp(v, "evict"))
        cold = -2;
      else if ((cold = strtol(v, &end, 10)) < 0 || end == v || *end)
        return die("--cold takes flush, evict or a byte count, not", v);
    } else
      return die("unknown option", a);
  }
  if (!path)
    return die("usage: kiln_measure MODEL.so [--warmup N] [--runs N] "
               "[--min-ms MS] [--seed S] [--threads T] [--samples K] "
               "[--cold flush|evict|BYTES]",
               NULL);
  if (runs < 1)
    runs = 1;
  kiln_rt_set_num_threads((int)threads);
  kiln_model *model;
  if (kiln_model_load(path, &model) != KILN_STATUS_OK)
    return die("cannot load the model", kiln_last_error());
  int64_t ni = kiln_model_num_inputs(model), no = kiln_model_num_outputs(model);
  kiln_tensor *ins = calloc((size_t)ni + 1, sizeof *ins);
  kiln_tensor *outs = calloc((size_t)no + 1, sizeof *outs);
  int64_t *out_dims = calloc((size_t)no * 16 + 1, sizeof *out_dims);
  if (!ins || !outs || !out_dims)
    return die("out of memory", NULL);
  uint64_t state = seed * 0x9E3779B97F4A7C15ULL + 1;
  for (int64_t i = 0; i < ni; ++i) {
    const kiln_tensor_info *info = kiln_model_input(model, i);
    for (int32_t d = 0; d < info->rank; ++d)
      if (info->dims[d] < 0)
        return die("dynamic input dims cannot be measured", info->name);
    int64_t n = elements(info->rank, info->dims);
    ins[i] =
        (kiln_tensor){info->dtype, info->rank, info->dims,
                      calloc((size_t)n + 1, kiln_dtype_size(info->dtype)), 0};
    if (!ins[i].data)
      return die("out of memory", NULL);
    fill(ins[i].data, info->dtype, n, &state);
  }
  for (int64_t o = 0; o < no; ++o) {
    const kiln_tensor_info *info = kiln_model_output(model, o);
    if (info->rank > 16)
      return die("output rank above 16", info->name);
    int64_t *dims = out_dims + o * 16;
    if (kiln_infer_output_dims(model, ins, ni, o, dims) != KILN_STATUS_OK)
      return die("cannot infer output dims", kiln_last_error());
    for (int32_t k = 0; k < info->rank; ++k)
      if (dims[k] < 0) /* sized at run time: the run allocates it */
        dims[k] = 0;
    int64_t n = elements(info->rank, dims);
    outs[o] =
        (kiln_tensor){info->dtype, info->rank, dims,
                      calloc((size_t)n + 1, kiln_dtype_size(info->dtype)), 0};
    if (!outs[o].data)
      return die("out of memory", NULL);
  }
  kiln_context *ctx;
  if (kiln_context_create(model, &ctx) != KILN_STATUS_OK)
    return die("cannot create a context", kiln_last_error());
  /* --cold 0: flush to DRAM where possible, else evict the private caches. */
  int flush = cold == 0 && flush_model(model, ctx, ins, ni, outs, no);
  size_t cold_bytes = cold == -1 || flush ? 0
                      : cold > 0          ? (size_t)cold
                                          : 2 * private_cache_bytes();
  uint64_t *scratch = cold_bytes ? calloc(cold_bytes / 8 + 8, 8) : NULL;
  if (cold_bytes && !scratch)
    return die("out of memory", NULL);
  int cold_runs = flush || scratch;
  print_device();
  if (cold_runs)
    printf("cold %s\n", flush ? "flush" : "evict");
  fflush(stdout);
  for (long i = 0; i < warmup; ++i) {
    if (cold_runs)
      make_cold(flush, scratch, cold_bytes, model, ctx, ins, ni, outs, no);
    if (kiln_run(ctx, ins, ni, outs, no) != KILN_STATUS_OK)
      return die("run failed", kiln_last_error());
  }
  /* At least `runs` runs and `min_ms` of them, so that the median of a
   * microsecond-scale op is not one timer tick; fewer when each run pays an
   * eviction. */
  long capacity = runs, count = 0, most = cold_runs ? 200 : 10000;
  double *times = malloc(sizeof(double) * (size_t)capacity);
  double total = 0;
  while (times && (count < runs || (total < min_ms * 1e6 && count < most))) {
    if (count == capacity) {
      capacity *= 2;
      times = realloc(times, sizeof(double) * (size_t)capacity);
      if (!times)
        break;
    }
    if (cold_runs)
      make_cold(flush, scratch, cold_bytes, model, ctx, ins, ni, outs, no);
    double start = now_ns();
    if (kiln_run(ctx, ins, ni, outs, no) != KILN_STATUS_OK)
      return die("run failed", kiln_last_error());
    times[count] = now_ns() - start;
    total += times[count++];
  }
  if (!times)
    return die("out of memory", NULL);
  qsort(times, (size_t)count, sizeof(double), compare_doubles);
  printf("median_ns %.0f runs %ld\n", times[count / 2], count);
  for (int64_t o = 0; o < no; ++o) {
    int64_t n = elements(outs[o].rank, outs[o].dims);
    double sum = 0, abs_sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      double v = value_at(outs[o].data, outs[o].dtype, i);
      sum += v;
      abs_sum += fabs(v);
    }
    printf("output %lld %lld %a %a\n", (long long)o, (long long)n, sum,
           abs_sum);
    printf("sample %lld", (long long)o);
    int64_t k = samples < n ? samples : n;
    for (int64_t s = 0; s < k; ++s)
      printf(" %a", value_at(outs[o].data, outs[o].dtype, s * n / k));
    printf("\n");
  }
  kiln_context_destroy(ctx);
  kiln_model_unload(model);
  return 0;
}
