/*===- thread_pool.c - kiln_rt_parallel_for -------------------------------===*
 *
 * One process-wide pool. A job is split into a few contiguous chunks per
 * thread (more chunks than threads, so a thread the OS preempts delays the
 * job by one small chunk, not by a whole share). Each thread first takes the
 * chunks of its own share (thread t of T: the t-th T-th of the range), then
 * helps with what is left of the others': consecutive loops over the same
 * tensor (a convolution's channels, then the next op's) then find the data a
 * thread wrote in its own core's cache. Claimed in any order, chunks moved
 * between cores from one op to the next (MobileNetV2's 14x14 depthwise
 * convolutions took longer on two threads than on one).
 *
 * A model runs hundreds of short parallel loops per inference, so a job costs
 * no lock: a share is one atomic word (next and end chunk) that its owner
 * advances and others shorten from the end with a compare-and-swap, the
 * caller counts finished chunks on an atomic counter, and idle workers and
 * the waiting caller spin briefly on those words before sleeping on a
 * condition variable. The mutex is taken only to sleep, to wake a sleeper
 * and to create workers: with chunks claimed under it, two threads
 * contending for it slept in the kernel, and a loop of 0.8 us on one thread
 * took 5 us on two.
 * Workers are created on first use and joined when the library is unloaded.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

typedef void (*body_fn)(int64_t, int64_t, void *);

enum { kMaxThreads = 1024 };

/* Thread t's unclaimed chunks [next, end) as next | end << 32, alone on its
 * cache line: the owner's claims do not bounce the others' lines. */
struct share {
  uint64_t word;
  char pad[64 - sizeof(uint64_t)];
};

static struct {
  pthread_mutex_t mu;     /* sleeping and waking, worker creation */
  pthread_cond_t work_cv; /* a new job or shutdown */
  pthread_cond_t done_cv; /* the last chunk of a job finished */
  pthread_mutex_t submit; /* held by the one thread running a job */
  pthread_t *workers;
  int num_workers;   /* written under mu, read atomically */
  int requested;     /* atomic; from kiln_rt_set_num_threads, 0 = default */
  int shutdown;      /* atomic */
  int sleepers;      /* atomic: workers asleep, or about to be, on work_cv */
  int caller_asleep; /* atomic: the caller waits on done_cv */
  /* The current job: written before its shares and generation, read by a
   * thread once it has claimed one of its chunks. */
  body_fn body;
  void *data;
  int64_t n, chunks;
  int helpers_allowed; /* atomic: threads 1..helpers_allowed join, 0 calls */
  int64_t done_chunks; /* atomic */
  uint64_t generation; /* atomic; published last */
} pool = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .work_cv = PTHREAD_COND_INITIALIZER,
    .done_cv = PTHREAD_COND_INITIALIZER,
    .submit = PTHREAD_MUTEX_INITIALIZER,
};

static struct share shares[kMaxThreads] __attribute__((aligned(64)));

/* Chunks per participating thread. */
enum { kChunksPerThread = 4 };
/* Polls of a job counter before sleeping (tens of microseconds). */
enum { kSpinPolls = 1 << 14 };

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static inline uint64_t pack(uint64_t next, uint64_t end) {
  return next | end << 32;
}
static inline int64_t next_of(uint64_t w) { return (int64_t)(w & 0xffffffffu); }
static inline int64_t end_of(uint64_t w) { return (int64_t)(w >> 32); }

static int job_posted(uint64_t seen) {
  return __atomic_load_n(&pool.generation, __ATOMIC_SEQ_CST) != seen ||
         __atomic_load_n(&pool.shutdown, __ATOMIC_SEQ_CST);
}

static int job_finished(uint64_t chunks) {
  return __atomic_load_n(&pool.done_chunks, __ATOMIC_SEQ_CST) ==
         (int64_t)chunks;
}

static int spin_until(int (*ready)(uint64_t), uint64_t arg) {
  for (int i = 0; i < kSpinPolls; ++i) {
    if (ready(arg))
      return 1;
    cpu_relax();
  }
  return ready(arg);
}

/* Set while a thread executes a body, so that nested calls run serially. */
static _Thread_local int in_parallel_region;

static int default_threads(void) {
  const char *env = getenv("KILN_NUM_THREADS");
  if (env) {
    char *end;
    long v = strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0)
      return v > kMaxThreads ? kMaxThreads : (int)v;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set) > kMaxThreads ? kMaxThreads : CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (n > kMaxThreads ? kMaxThreads : (int)n) : 1;
}

void kiln_rt_set_num_threads(int n) {
  __atomic_store_n(&pool.requested,
                   n > 0 ? (n > kMaxThreads ? kMaxThreads : n) : 0,
                   __ATOMIC_RELAXED);
}

int kiln_rt_get_num_threads(void) {
  int n = __atomic_load_n(&pool.requested, __ATOMIC_RELAXED);
  return n > 0 ? n : default_threads();
}

/* Claims a chunk for thread `self`: the next of its own share, else the last
 * unclaimed one of the share with most left (taken from the end, so that its
 * owner keeps the part nearest what it ran before). -1: none left. */
static int64_t claim_chunk(int self) {
  int helpers = __atomic_load_n(&pool.helpers_allowed, __ATOMIC_ACQUIRE);
  if (self > helpers)
    return -1;
  uint64_t *own = &shares[self].word;
  uint64_t w = __atomic_load_n(own, __ATOMIC_ACQUIRE);
  while (next_of(w) < end_of(w))
    if (__atomic_compare_exchange_n(own, &w, pack(next_of(w) + 1, end_of(w)), 1,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return next_of(w);
  for (;;) {
    int victim = -1;
    int64_t most = 0;
    uint64_t vw = 0;
    for (int t = 0; t <= helpers; ++t) {
      uint64_t s = __atomic_load_n(&shares[t].word, __ATOMIC_ACQUIRE);
      if (end_of(s) - next_of(s) > most) {
        most = end_of(s) - next_of(s);
        victim = t;
        vw = s;
      }
    }
    if (victim < 0)
      return -1;
    if (__atomic_compare_exchange_n(&shares[victim].word, &vw,
                                    pack(next_of(vw), end_of(vw) - 1), 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return end_of(vw) - 1;
  }
}

/* Runs chunks of the current job until none are left. A chunk claimed from
 * a share word orders the job's fields before it (the caller writes them
 * first), and the next job is posted only once this one's chunks are done.
 * A thread counts its chunks as done once, when none are left to claim:
 * the counter's line then moves between cores once per thread and job, not
 * once per chunk (with the two cores far apart, a round trip of 0.4 us). */
static void run_chunks(int self) {
  int64_t ran = 0, chunks = 0;
  for (;;) {
    int64_t c = claim_chunk(self);
    if (c < 0)
      break;
    body_fn body = pool.body;
    void *data = pool.data;
    int64_t n = pool.n;
    chunks = pool.chunks;
    /* Balanced split without overflow: the first n % chunks get one more. */
    int64_t base = n / chunks, extra = n % chunks;
    int64_t begin = c * base + (c < extra ? c : extra);
    int64_t end = begin + base + (c < extra ? 1 : 0);
    in_parallel_region = 1;
    body(begin, end, data);
    in_parallel_region = 0;
    ++ran;
  }
  if (ran == 0)
    return;
  int64_t done = __atomic_add_fetch(&pool.done_chunks, ran, __ATOMIC_SEQ_CST);
  if (done == chunks &&
      __atomic_load_n(&pool.caller_asleep, __ATOMIC_SEQ_CST)) {
    pthread_mutex_lock(&pool.mu);
    pthread_cond_signal(&pool.done_cv);
    pthread_mutex_unlock(&pool.mu);
  }
}

/* Spins, then sleeps, until a job after `seen` is posted or the pool shuts
 * down. The sleeper count and the generation are a Dekker pair with the
 * caller's generation store and sleeper check: one of the two sees the
 * other, so no post is missed. */
static void wait_for_job(uint64_t seen) {
  if (spin_until(job_posted, seen))
    return;
  pthread_mutex_lock(&pool.mu);
  __atomic_add_fetch(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
  while (!job_posted(seen))
    pthread_cond_wait(&pool.work_cv, &pool.mu);
  __atomic_sub_fetch(&pool.sleepers, 1, __ATOMIC_SEQ_CST);
  pthread_mutex_unlock(&pool.mu);
}

/* A new worker's identity and the last job posted before it existed: the
 * job whose call creates it is posted right after, and the worker must not
 * mistake it for one already seen. */
struct worker_start {
  int self; /* worker i (from 1) is thread i of every job it helps with */
  uint64_t seen;
};

static void *worker_main(void *arg) {
  struct worker_start start = *(struct worker_start *)arg;
  free(arg);
  uint64_t seen = start.seen;
  for (;;) {
    wait_for_job(seen);
    if (__atomic_load_n(&pool.shutdown, __ATOMIC_SEQ_CST))
      break;
    seen = __atomic_load_n(&pool.generation, __ATOMIC_SEQ_CST);
    /* Workers beyond the current thread count sit this job out (claim_chunk
     * checks). */
    run_chunks(start.self);
  }
  return NULL;
}

/* A forked child has none of the parent's workers; start from scratch
 * (a caller finishes a job alone when no worker helps, but joining at exit
 * would touch threads that do not exist). */
static void reset_in_child(void) {
  pthread_mutex_init(&pool.mu, NULL);
  pthread_mutex_init(&pool.submit, NULL);
  pthread_cond_init(&pool.work_cv, NULL);
  pthread_cond_init(&pool.done_cv, NULL);
  free(pool.workers);
  pool.workers = NULL;
  pool.num_workers = 0;
  pool.sleepers = 0;
  pool.caller_asleep = 0;
}

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;
static void register_atfork(void) {
  pthread_atfork(NULL, NULL, reset_in_child);
}

/* Grows the pool to `want` workers; keeps what it has if creation fails.
 * Called with mu held. */
static void ensure_workers(int want) {
  if (pool.num_workers >= want)
    return;
  pthread_once(&atfork_once, register_atfork);
  pthread_t *grown = realloc(pool.workers, (size_t)want * sizeof(pthread_t));
  if (!grown)
    return;
  pool.workers = grown;
  while (pool.num_workers < want) {
    struct worker_start *start = malloc(sizeof *start);
    if (!start)
      return;
    start->self = pool.num_workers + 1;
    start->seen = __atomic_load_n(&pool.generation, __ATOMIC_SEQ_CST);
    if (pthread_create(&pool.workers[pool.num_workers], NULL, worker_main,
                       start) != 0) {
      free(start);
      return;
    }
    __atomic_store_n(&pool.num_workers, pool.num_workers + 1, __ATOMIC_RELEASE);
  }
}

void kiln_rt_parallel_for(int64_t n, body_fn body, void *data) {
  if (n <= 0 || !body)
    return;
  int threads = in_parallel_region ? 1 : kiln_rt_get_num_threads();
  /* One job at a time; a second concurrent caller does its own work. */
  if (threads <= 1 || n == 1 || pthread_mutex_trylock(&pool.submit) != 0) {
    body(0, n, data);
    return;
  }
  /* The mutex only while workers are still to be created. */
  int have = __atomic_load_n(&pool.num_workers, __ATOMIC_ACQUIRE);
  if (have < threads - 1) {
    pthread_mutex_lock(&pool.mu);
    ensure_workers(threads - 1);
    have = pool.num_workers;
    pthread_mutex_unlock(&pool.mu);
  }
  int helpers = have < threads - 1 ? have : threads - 1;
  if (helpers == 0) {
    pthread_mutex_unlock(&pool.submit);
    body(0, n, data);
    return;
  }
  /* The previous job's chunks are all done and claimed (its shares empty),
   * so no thread reads these fields until the shares below are published. */
  int64_t max_chunks = (int64_t)(helpers + 1) * kChunksPerThread;
  int64_t chunks = n < max_chunks ? n : max_chunks;
  __atomic_store_n(&pool.done_chunks, 0, __ATOMIC_SEQ_CST);
  pool.body = body;
  pool.data = data;
  pool.n = n;
  pool.chunks = chunks;
  __atomic_store_n(&pool.helpers_allowed, helpers, __ATOMIC_RELEASE);
  /* Thread t's share: the t-th of helpers + 1 equal parts. */
  for (int t = 0; t <= helpers; ++t)
    __atomic_store_n(&shares[t].word,
                     pack((uint64_t)(chunks * t / (helpers + 1)),
                          (uint64_t)(chunks * (t + 1) / (helpers + 1))),
                     __ATOMIC_RELEASE);
  __atomic_add_fetch(&pool.generation, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&pool.sleepers, __ATOMIC_SEQ_CST) > 0) {
    pthread_mutex_lock(&pool.mu);
    pthread_cond_broadcast(&pool.work_cv);
    pthread_mutex_unlock(&pool.mu);
  }
  run_chunks(0);
  if (!spin_until(job_finished, (uint64_t)chunks)) {
    pthread_mutex_lock(&pool.mu);
    __atomic_store_n(&pool.caller_asleep, 1, __ATOMIC_SEQ_CST);
    while (!job_finished((uint64_t)chunks))
      pthread_cond_wait(&pool.done_cv, &pool.mu);
    __atomic_store_n(&pool.caller_asleep, 0, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&pool.mu);
  }
  pthread_mutex_unlock(&pool.submit);
}

/* Workers run code from this library, so they must be gone before it is
 * unmapped (dlclose of a process that loaded it via ctypes, for instance). */
__attribute__((destructor)) static void shutdown_pool(void) {
  pthread_mutex_lock(&pool.mu);
  __atomic_store_n(&pool.shutdown, 1, __ATOMIC_SEQ_CST);
  pthread_cond_broadcast(&pool.work_cv);
  int count = pool.num_workers;
  pthread_mutex_unlock(&pool.mu);
  for (int i = 0; i < count; ++i)
    pthread_join(pool.workers[i], NULL);
  free(pool.workers);
  pool.workers = NULL;
  pool.num_workers = 0;
}
