/*===- bundle.c - One file holding a model's libraries for several targets -===*
 *
 * `kiln compile --target x86_64:znver4,x86_64,aarch64 -o m.kiln` writes
 *
 *   KILN-BUNDLE 1
 *   entries 3
 *   entry <offset> <size> <target> <arch> <cpu> <features|-> [<device|->]
 *   ...
 *   end
 *   <the libraries, at their offsets>
 *
 * kiln_model_load picks the entry for this machine: its architecture, every
 * CPU feature it lists present, and of those the one listing the most
 * features (the most specific build). An entry with a device (a GPU
 * library: "cuda:sm_90") is eligible only where a CUDA driver and a device
 * of at least that compute capability are present, and then preferred to
 * every CPU library (the newest such chip first). The chosen library is copied
 *into an anonymous memory file and opened from there.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "KILN-BUNDLE 1\n"
#define MAX_ENTRIES 64
#define MAX_MANIFEST (1 << 20)

struct kiln_bundle {
  char *path;
  const unsigned char *data;
  size_t size;
  int64_t count;
  kiln_bundle_entry entries[MAX_ENTRIES];
  char *strings; /* the manifest copy the entries point into */
};

#if defined(__x86_64__)
static const char *host_arch = "x86_64";
#elif defined(__aarch64__)
static const char *host_arch = "aarch64";
#elif defined(__riscv) && __riscv_xlen == 64
static const char *host_arch = "riscv64";
#else
static const char *host_arch = "unknown";
#endif

int kiln_is_bundle(const char *path) {
  if (!path)
    return 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return 0;
  char head[sizeof(MAGIC) - 1];
  ssize_t n = read(fd, head, sizeof(head));
  close(fd);
  return n == (ssize_t)sizeof(head) && memcmp(head, MAGIC, sizeof(head)) == 0;
}

static kiln_status malformed(const char *path, const char *what) {
  return kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "%s: malformed bundle: %s", path,
                      what);
}

/* Splits the manifest (NUL-terminated copy) into entries. */
static kiln_status parse_manifest(kiln_bundle *b) {
  char *text = b->strings, *save = NULL;
  char *line = strtok_r(text, "\n", &save); /* the magic line */
  line = strtok_r(NULL, "\n", &save);
  long long count = -1;
  char tail;
  if (!line || sscanf(line, "entries %lld%c", &count, &tail) != 1 ||
      count < 1 || count > MAX_ENTRIES)
    return malformed(b->path, "bad entry count");
  b->count = count;
  for (int64_t i = 0; i < b->count; ++i) {
    line = strtok_r(NULL, "\n", &save);
    if (!line || strncmp(line, "entry ", 6) != 0)
      return malformed(b->path, "missing entry line");
    char *fields[9], *fsave = NULL;
    int n = 0;
    for (char *f = strtok_r(line, " ", &fsave); f && n < 9;
         f = strtok_r(NULL, " ", &fsave))
      fields[n++] = f;
    if (n != 7 && n != 8)
      return malformed(b->path, "entry line needs 6 or 7 fields");
    char *e1, *e2;
    errno = 0;
    unsigned long long off = strtoull(fields[1], &e1, 10);
    unsigned long long size = strtoull(fields[2], &e2, 10);
    if (errno || *e1 || *e2 || size == 0 || off > b->size ||
        size > b->size - off)
      return malformed(b->path, "entry outside the file");
    kiln_bundle_entry *e = &b->entries[i];
    e->offset = off;
    e->size = size;
    e->target = fields[3];
    e->arch = fields[4];
    e->cpu = fields[5];
    e->cpu_features = strcmp(fields[6], "-") == 0 ? "" : fields[6];
    e->device = n < 8 || strcmp(fields[7], "-") == 0 ? "" : fields[7];
  }
  line = strtok_r(NULL, "\n", &save);
  if (!line || strcmp(line, "end") != 0)
    return malformed(b->path, "no end line");
  size_t end = (size_t)(line - text) + 4; /* past "end\n" */
  for (int64_t i = 0; i < b->count; ++i)
    if (b->entries[i].offset < end)
      return malformed(b->path, "entry overlaps the manifest");
  return KILN_STATUS_OK;
}

kiln_status kiln_bundle_open(const char *path, kiln_bundle **out) {
  if (!path || !out)
    return kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT,
                        "kiln_bundle_open: NULL argument");
  *out = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    if (fd >= 0)
      close(fd);
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "cannot read '%s': %s", path,
                        strerror(errno));
  }
  size_t size = (size_t)st.st_size;
  void *data = size >= sizeof(MAGIC) - 1
                   ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0)
                   : NULL;
  close(fd);
  if (data == MAP_FAILED)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "cannot map '%s': %s", path,
                        strerror(errno));
  /* The magic is checked on the mapping: the file is opened once. */
  if (!data || memcmp(data, MAGIC, sizeof(MAGIC) - 1) != 0) {
    if (data)
      munmap(data, size);
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "'%s' is not a kiln bundle",
                        path);
  }
  kiln_bundle *b = calloc(1, sizeof(*b));
  size_t manifest = size < MAX_MANIFEST ? size : MAX_MANIFEST;
  if (b) {
    b->path = strdup(path);
    b->strings = malloc(manifest + 1);
  }
  if (!b || !b->path || !b->strings) {
    munmap(data, size);
    kiln_bundle_close(b);
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY, "kiln_bundle_open");
  }
  b->data = data;
  b->size = size;
  memcpy(b->strings, data, manifest);
  b->strings[manifest] = '\0';
  kiln_status status = parse_manifest(b);
  if (status != KILN_STATUS_OK) {
    kiln_bundle_close(b);
    return status;
  }
  *out = b;
  return KILN_STATUS_OK;
}

void kiln_bundle_close(kiln_bundle *b) {
  if (!b)
    return;
  if (b->data)
    munmap((void *)b->data, b->size);
  free(b->strings);
  free(b->path);
  free(b);
}

int64_t kiln_bundle_num_entries(const kiln_bundle *b) {
  return b ? b->count : 0;
}

const kiln_bundle_entry *kiln_bundle_entry_at(const kiln_bundle *b,
                                              int64_t index) {
  if (!b || index < 0 || index >= b->count)
    return NULL;
  return &b->entries[index];
}

static int count_features(const char *list) {
  if (!*list)
    return 0;
  int n = 1;
  for (; *list; ++list)
    n += *list == ',';
  return n;
}

int64_t kiln_bundle_select(const kiln_bundle *b) {
  if (!b) {
    kiln_rt_fail(KILN_STATUS_INVALID_ARGUMENT, "kiln_bundle_select: NULL");
    return -1;
  }
  int64_t best = -1;
  int best_score = -1;
  for (int64_t i = 0; i < b->count; ++i) {
    const kiln_bundle_entry *e = &b->entries[i];
    if (strcmp(e->arch, host_arch) != 0)
      continue;
    kiln_model_desc probe = {0};
    probe.cpu = e->cpu;
    probe.cpu_features = e->cpu_features;
    if (kiln_rt_check_cpu_features(&probe, b->path) != KILN_STATUS_OK)
      continue;
    int score = count_features(e->cpu_features);
    if (*e->device) {
      /* PTX for sm_XY runs on devices of compute capability XY and up; the
       * newest chip the device covers wins, and any beats a CPU build. */
      int chip = 0;
      if (sscanf(e->device, "cuda:sm_%d", &chip) != 1 || chip <= 0 ||
          chip > kiln_rt_cuda_compute_capability())
        continue;
      score += (1 << 20) + chip;
    }
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  if (best < 0) {
    char have[512] = "";
    for (int64_t i = 0; i < b->count; ++i) {
      size_t used = strlen(have);
      snprintf(have + used, sizeof(have) - used, "%s%s (%s, cpu %s)",
               i ? ", " : "", b->entries[i].target, b->entries[i].arch,
               b->entries[i].cpu);
    }
    kiln_rt_fail(KILN_STATUS_UNSUPPORTED_CPU,
                 "%s: no library in the bundle runs on this machine (%s); it "
                 "holds %s",
                 b->path, host_arch, have);
  }
  return best;
}

/* An anonymous file holding the entry's bytes; -1 (error set) on failure. */
static int entry_file(const kiln_bundle *b, const kiln_bundle_entry *e) {
  int fd = memfd_create("kiln-model", MFD_CLOEXEC);
  if (fd < 0) {
    /* No memfd: a temporary file, unlinked at once. */
    const char *dir = getenv("TMPDIR");
    char name[4096];
    snprintf(name, sizeof(name), "%s/kiln-model-XXXXXX", dir ? dir : "/tmp");
    fd = mkstemp(name);
    if (fd >= 0)
      unlink(name);
  }
  if (fd < 0) {
    kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "%s: cannot create a file: %s",
                 b->path, strerror(errno));
    return -1;
  }
  const unsigned char *p = b->data + e->offset;
  size_t left = (size_t)e->size;
  while (left > 0) {
    ssize_t n = write(fd, p, left);
    if (n <= 0) {
      if (n < 0 && errno == EINTR)
        continue;
      kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "%s: cannot copy the library: %s",
                   b->path, strerror(errno));
      close(fd);
      return -1;
    }
    p += n;
    left -= (size_t)n;
  }
  return fd;
}

kiln_status kiln_rt_load_bundle(const char *path, kiln_model **out) {
  kiln_bundle *b = NULL;
  kiln_status st = kiln_bundle_open(path, &b);
  if (st != KILN_STATUS_OK)
    return st;
  int64_t index = kiln_bundle_select(b);
  if (index < 0) {
    kiln_bundle_close(b);
    return KILN_STATUS_UNSUPPORTED_CPU;
  }
  const kiln_bundle_entry *e = &b->entries[index];
  int fd = entry_file(b, e);
  if (fd < 0) {
    kiln_bundle_close(b);
    return KILN_STATUS_LOAD_FAILED;
  }
  char dl_path[64], origin[4200];
  snprintf(dl_path, sizeof(dl_path), "/proc/self/fd/%d", fd);
  snprintf(origin, sizeof(origin), "%s[%s, cpu %s]", path, e->target, e->cpu);
  st = kiln_rt_load_library(dl_path, origin, out);
  close(fd); /* the mapping dlopen made stays */
  kiln_bundle_close(b);
  return st;
}
