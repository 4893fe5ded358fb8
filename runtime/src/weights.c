/*===- weights.c - Weights kept beside the library (--weights external) ---===*
 *
 * The library's code reads every weight through *desc->weights_base. Loading
 * maps the weights file read-only (the page cache shares it between
 * processes), checks its size and checksum, and stores the address there.
 * dlopen returns the same library, hence the same slot, for every load of one
 * path in a process, so mappings are shared per slot and counted.
 *===----------------------------------------------------------------------===*/
#define _POSIX_C_SOURCE 200809L
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct mapping {
  const void **slot;
  void *addr;
  size_t bytes;
  int refs;
  struct mapping *next;
} mapping;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static mapping *mappings;

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < n; ++i) {
    hash ^= p[i];
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

/* Maps `file` (already opened) and checks it against the descriptor. */
static kiln_status map_checked(const kiln_model_desc *d, const char *file,
                               void **out) {
  int fd = open(file, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "cannot open weights file '%s': %s", file,
                        strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "weights file '%s' is not a regular file", file);
  }
  if ((uint64_t)st.st_size != d->weights_bytes) {
    close(fd);
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "weights file '%s' has %lld bytes, the library "
                        "expects %llu",
                        file, (long long)st.st_size,
                        (unsigned long long)d->weights_bytes);
  }
  void *addr =
      mmap(NULL, (size_t)d->weights_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (addr == MAP_FAILED)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED, "cannot map '%s': %s", file,
                        strerror(errno));
  uint64_t sum = fnv1a((const unsigned char *)addr, (size_t)d->weights_bytes);
  if (sum != d->weights_checksum) {
    munmap(addr, (size_t)d->weights_bytes);
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "weights file '%s' does not belong to this library "
                        "(checksum %016llx, expected %016llx)",
                        file, (unsigned long long)sum,
                        (unsigned long long)d->weights_checksum);
  }
  *out = addr;
  return KILN_STATUS_OK;
}

kiln_status kiln_rt_map_weights(kiln_model *model, const char *lib_path) {
  const kiln_model_desc *d = model->desc;
  if (!d->weights_file)
    return KILN_STATUS_OK;
  const char *name = d->weights_file;
  if (!d->weights_base || !*name || strchr(name, '/') ||
      strcmp(name, "..") == 0 || d->weights_bytes == 0)
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "%s: malformed descriptor: bad external weights",
                        lib_path ? lib_path : "kiln_model_from_desc");
  if (!lib_path) {
    if (*d->weights_base)
      return KILN_STATUS_OK; /* the application mapped them itself */
    return kiln_rt_fail(KILN_STATUS_LOAD_FAILED,
                        "model '%s' keeps its weights in '%s': load it with "
                        "kiln_model_load",
                        d->name ? d->name : "", name);
  }
  /* The file lies beside the library. */
  const char *slash = strrchr(lib_path, '/');
  size_t dir = slash ? (size_t)(slash - lib_path) + 1 : 0;
  char *file = malloc(dir + strlen(name) + 1);
  if (!file)
    return kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY, "kiln_model_load: %s",
                        lib_path);
  memcpy(file, lib_path, dir);
  strcpy(file + dir, name);

  kiln_status st = KILN_STATUS_OK;
  pthread_mutex_lock(&lock);
  mapping *m = mappings;
  while (m && m->slot != d->weights_base)
    m = m->next;
  if (m) {
    ++m->refs;
  } else {
    void *addr = NULL;
    st = map_checked(d, file, &addr);
    if (st == KILN_STATUS_OK) {
      m = calloc(1, sizeof(*m));
      if (!m) {
        munmap(addr, (size_t)d->weights_bytes);
        st = kiln_rt_fail(KILN_STATUS_OUT_OF_MEMORY, "kiln_model_load: %s",
                          lib_path);
      } else {
        *m = (mapping){d->weights_base, addr, (size_t)d->weights_bytes, 1,
                       mappings};
        mappings = m;
        *d->weights_base = addr;
      }
    }
  }
  pthread_mutex_unlock(&lock);
  free(file);
  if (st == KILN_STATUS_OK)
    model->maps_weights = 1;
  return st;
}

void kiln_rt_unmap_weights(kiln_model *model) {
  if (!model->maps_weights)
    return;
  const void **slot = model->desc->weights_base;
  pthread_mutex_lock(&lock);
  for (mapping **link = &mappings; *link; link = &(*link)->next) {
    mapping *m = *link;
    if (m->slot != slot)
      continue;
    if (--m->refs == 0) {
      *slot = NULL;
      munmap(m->addr, m->bytes);
      *link = m->next;
      free(m);
    }
    break;
  }
  pthread_mutex_unlock(&lock);
  model->maps_weights = 0;
}
