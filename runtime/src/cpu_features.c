/*===- cpu_features.c - Does this machine have a library's CPU features? --===*
 *
 * A model library records the CPU features its code uses (names as LLVM
 * spells them, e.g. "avx2,fma,avx512f"). Loading it on a machine without one
 * of them would die with SIGILL on the first such instruction; instead the
 * load fails with KILN_STATUS_UNSUPPORTED_CPU naming what is missing. The
 * checks read CPUID (and XCR0 for the OS-enabled register state) on x86-64
 * and the auxiliary vector on AArch64.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE /* syscall() */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <pthread.h>
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

enum { ECX1, EBX7, ECX7, EDX7, EAX7_1, NUM_WORDS };

typedef struct x86_feature {
  const char *name;
  int word, bit;
  /* Register state the OS must save: XCR0 mask (0: none beyond SSE). */
  unsigned xcr0;
} x86_feature;

#define YMM 0x6u
#define ZMM 0xe6u
#define TMM 0x60000u

static const x86_feature kX86Features[] = {
    {"sse3", ECX1, 0, 0},
    {"ssse3", ECX1, 9, 0},
    {"fma", ECX1, 12, YMM},
    {"sse4.1", ECX1, 19, 0},
    {"sse4.2", ECX1, 20, 0},
    {"popcnt", ECX1, 23, 0},
    {"avx", ECX1, 28, YMM},
    {"f16c", ECX1, 29, YMM},
    {"bmi", EBX7, 3, 0},
    {"avx2", EBX7, 5, YMM},
    {"bmi2", EBX7, 8, 0},
    {"avx512f", EBX7, 16, ZMM},
    {"avx512dq", EBX7, 17, ZMM},
    {"avx512ifma", EBX7, 21, ZMM},
    {"avx512cd", EBX7, 28, ZMM},
    {"avx512bw", EBX7, 30, ZMM},
    {"avx512vl", EBX7, 31, ZMM},
    {"avx512vbmi", ECX7, 1, ZMM},
    {"avx512vbmi2", ECX7, 6, ZMM},
    {"gfni", ECX7, 8, 0},
    {"vaes", ECX7, 9, YMM},
    {"vpclmulqdq", ECX7, 10, YMM},
    {"avx512vnni", ECX7, 11, ZMM},
    {"avx512bitalg", ECX7, 12, ZMM},
    {"avx512vpopcntdq", ECX7, 14, ZMM},
    {"avx512vp2intersect", EDX7, 8, ZMM},
    {"amx-bf16", EDX7, 22, TMM},
    {"avx512fp16", EDX7, 23, ZMM},
    {"amx-tile", EDX7, 24, TMM},
    {"amx-int8", EDX7, 25, TMM},
    {"avxvnni", EAX7_1, 4, YMM},
    {"avx512bf16", EAX7_1, 5, ZMM},
};

/* CPUID words and XCR0, read once per process (CPUID traps to the
 * hypervisor in a virtual machine, and every load checks a dozen names). */
static unsigned cpuid_words[NUM_WORDS];
static unsigned long long cpuid_xcr0;
static pthread_once_t cpuid_once = PTHREAD_ONCE_INIT;

static void read_cpuid(void) {
  unsigned *words = cpuid_words;
  unsigned long long *xcr0 = &cpuid_xcr0;
  unsigned a, b, c, d, max;
  max = __get_cpuid_max(0, NULL);
  if (max >= 1 && __get_cpuid(1, &a, &b, &c, &d)) {
    words[ECX1] = c;
    if (c & (1u << 27)) { /* OSXSAVE: XGETBV is available */
      unsigned lo, hi;
      __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
      *xcr0 = ((unsigned long long)hi << 32) | lo;
    }
  }
  if (max >= 7) {
    __cpuid_count(7, 0, a, b, c, d);
    words[EBX7] = b;
    words[ECX7] = c;
    words[EDX7] = d;
    if (a >= 1) {
      __cpuid_count(7, 1, a, b, c, d);
      words[EAX7_1] = a;
    }
  }
}

int kiln_rt_cpu_supports(const char *feature) {
  if (!feature)
    return -1;
  /* SSE and SSE2 are part of x86-64 itself. */
  if (!strcmp(feature, "sse") || !strcmp(feature, "sse2"))
    return 1;
  for (size_t i = 0; i < sizeof(kX86Features) / sizeof(kX86Features[0]); ++i) {
    const x86_feature *f = &kX86Features[i];
    if (strcmp(feature, f->name))
      continue;
    pthread_once(&cpuid_once, read_cpuid);
    if (!(cpuid_words[f->word] & (1u << f->bit)))
      return 0;
    return (cpuid_xcr0 & f->xcr0) == f->xcr0;
  }
  return -1;
}

/* Linux gives a process the AMX tile state only on request
 * (arch_prctl ARCH_REQ_XCOMP_PERM for XFEATURE_XTILEDATA); without it the
 * first tile instruction raises SIGILL. Returns 0 when granted. */
static int request_tile_state(void) {
#if defined(__linux__) && defined(SYS_arch_prctl)
  return syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                 18 /* XFEATURE_XTILEDATA */) == 0
             ? 0
             : -1;
#else
  return -1;
#endif
}
#define KILN_HAS_TILE_REQUEST 1

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>

typedef struct arm_feature {
  const char *name;
  int hwcap2; /* 0: AT_HWCAP, 1: AT_HWCAP2 */
  int bit;
} arm_feature;

static const arm_feature kArmFeatures[] = {
    {"neon", 0, 1},      {"fp-armv8", 0, 0}, {"crc", 0, 7},      {"lse", 0, 8},
    {"fullfp16", 0, 10}, {"rdm", 0, 12},     {"dotprod", 0, 20}, {"sve", 0, 22},
    {"sve2", 1, 1},      {"i8mm", 1, 13},    {"bf16", 1, 14},
};

int kiln_rt_cpu_supports(const char *feature) {
  if (!feature)
    return -1;
  for (size_t i = 0; i < sizeof(kArmFeatures) / sizeof(kArmFeatures[0]); ++i)
    if (!strcmp(feature, kArmFeatures[i].name)) {
      unsigned long caps =
          getauxval(kArmFeatures[i].hwcap2 ? AT_HWCAP2 : AT_HWCAP);
      return (caps >> kArmFeatures[i].bit) & 1;
    }
  return -1;
}

#else
int kiln_rt_cpu_supports(const char *feature) {
  (void)feature;
  return -1;
}
#endif

kiln_status kiln_rt_check_cpu_features(const kiln_model_desc *d,
                                       const char *origin) {
  const char *list = d->cpu_features;
  if (!list || !*list)
    return KILN_STATUS_OK;
  char missing[512] = "", unknown[512] = "";
  while (*list) {
    const char *end = strchr(list, ',');
    size_t len = end ? (size_t)(end - list) : strlen(list);
    char name[64];
    if (len > 0 && len < sizeof(name)) {
      memcpy(name, list, len);
      name[len] = '\0';
      int has = kiln_rt_cpu_supports(name);
      char *into = has < 0 ? unknown : has == 0 ? missing : NULL;
      if (into) {
        size_t used = strlen(into);
        snprintf(into + used, 512 - used, "%s%s", used ? ", " : "", name);
      }
    }
    list += len + (end ? 1 : 0);
  }
  const char *cpu = d->cpu ? d->cpu : "?";
  if (*missing)
    return kiln_rt_fail(KILN_STATUS_UNSUPPORTED_CPU,
                        "%s: compiled for CPU '%s'; this machine lacks its "
                        "features %s (recompile with a --cpu this machine "
                        "has, e.g. the target's default)",
                        origin, cpu, missing);
  if (*unknown)
    return kiln_rt_fail(KILN_STATUS_UNSUPPORTED_CPU,
                        "%s: compiled for CPU '%s' with features this runtime "
                        "cannot check: %s",
                        origin, cpu, unknown);
#ifdef KILN_HAS_TILE_REQUEST
  /* The compiler lists amx-tile only for code that uses tiles. */
  const char *amx = strstr(d->cpu_features, "amx-tile");
  if (amx && (amx[8] == '\0' || amx[8] == ',') && request_tile_state() != 0)
    return kiln_rt_fail(KILN_STATUS_UNSUPPORTED_CPU,
                        "%s: uses AMX tiles, which this operating system does "
                        "not grant (Linux 5.16 or newer does; recompile "
                        "with --features -amx-tile)",
                        origin);
#endif
  return KILN_STATUS_OK;
}
