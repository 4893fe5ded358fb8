/*===- thread_pool.c - kiln_rt_parallel_for -------------------------------===*
 *
 * One process-wide pool. A job is split into a few contiguous chunks per
 * thread that the caller and the workers claim under one mutex (more chunks
 * than threads, so a thread the OS preempts delays the job by one small chunk,
 * not by a whole share); chunk counts are small, so the lock is not a
 * bottleneck and keeps the logic obviously correct. Each thread first takes
 * the chunks of its own share (thread t of T: the t-th T-th of the range),
 * then helps with what is left of the others': consecutive loops over the
 * same tensor (a convolution's channels, then the next op's) then find the
 * data a thread wrote in its own core's cache. Claimed in any order, chunks
 * moved between cores from one op to the next (MobileNetV2's 14x14 depthwise
 * convolutions took longer on two threads than on one). A model runs
 * hundreds of short parallel loops per inference, so idle workers and the
 * waiting caller spin briefly on the job counters before sleeping on a
 * condition variable: a futex wake-up per loop would cost more than many of
 * the loops.
 * Workers are created on first use and joined when the library is unloaded.
 *===----------------------------------------------------------------------===*/
#define _GNU_SOURCE
#include "internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

typedef void (*body_fn)(int64_t, int64_t, void *);

static struct {
  pthread_mutex_t mu;
  pthread_cond_t work_cv; /* a new job or shutdown */
  pthread_cond_t done_cv; /* the last chunk of a job finished */
  pthread_mutex_t submit; /* held by the one thread running a job */
  pthread_t *workers;
  int num_workers;
  int requested; /* from kiln_rt_set_num_threads; 0 = default */
  int shutdown;
  /* Current job, guarded by mu. */
  uint64_t generation;
  body_fn body;
  void *data;
  int64_t n, chunks, done_chunks;
  int helpers_allowed; /* threads 1..helpers_allowed join; 0 is the caller */
  /* The unclaimed chunks of thread t's share: [share[2t], share[2t + 1]). */
  int64_t *share;
  int share_capacity;
} pool = {
    .mu = PTHREAD_MUTEX_INITIALIZER,
    .work_cv = PTHREAD_COND_INITIALIZER,
    .done_cv = PTHREAD_COND_INITIALIZER,
    .submit = PTHREAD_MUTEX_INITIALIZER,
};

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

static int job_posted(uint64_t seen) {
  return __atomic_load_n(&pool.generation, __ATOMIC_ACQUIRE) != seen ||
         __atomic_load_n(&pool.shutdown, __ATOMIC_ACQUIRE);
}

static int job_finished(uint64_t chunks) {
  return __atomic_load_n(&pool.done_chunks, __ATOMIC_ACQUIRE) ==
         (int64_t)chunks;
}

/* Spins without the lock until `ready(arg)` or the poll budget runs out;
 * called and returns with mu held. */
static void spin_until(int (*ready)(uint64_t), uint64_t arg) {
  pthread_mutex_unlock(&pool.mu);
  for (int i = 0; i < kSpinPolls && !ready(arg); ++i)
    cpu_relax();
  pthread_mutex_lock(&pool.mu);
}

/* Set while a thread executes a body, so that nested calls run serially. */
static _Thread_local int in_parallel_region;

static int default_threads(void) {
  const char *env = getenv("KILN_NUM_THREADS");
  if (env) {
    char *end;
    long v = strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0)
      return v > 1024 ? 1024 : (int)v;
  }
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
    return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

void kiln_rt_set_num_threads(int n) {
  pthread_mutex_lock(&pool.mu);
  pool.requested = n > 0 ? (n > 1024 ? 1024 : n) : 0;
  pthread_mutex_unlock(&pool.mu);
}

int kiln_rt_get_num_threads(void) {
  pthread_mutex_lock(&pool.mu);
  int n = pool.requested;
  pthread_mutex_unlock(&pool.mu);
  return n > 0 ? n : default_threads();
}

/* Claims a chunk for thread `self`: the next of its own share, else the last
 * unclaimed one of the share with most left (taken from the end, so that its
 * owner keeps the part nearest what it ran before). -1: none left. Called
 * with mu held. */
static int64_t claim_chunk(int self) {
  int64_t *share = pool.share;
  if (share[2 * self] < share[2 * self + 1])
    return share[2 * self]++;
  int victim = -1;
  int64_t most = 0;
  for (int t = 0; t <= pool.helpers_allowed; ++t)
    if (share[2 * t + 1] - share[2 * t] > most) {
      most = share[2 * t + 1] - share[2 * t];
      victim = t;
    }
  return victim < 0 ? -1 : --share[2 * victim + 1];
}

/* Runs chunks of the current job until none are left. Called with mu held;
 * returns with mu held. */
static void run_chunks(uint64_t generation, int self) {
  while (pool.generation == generation) {
    int64_t c = claim_chunk(self);
    if (c < 0)
      break;
    body_fn body = pool.body;
    void *data = pool.data;
    /* Balanced split without overflow: the first n % chunks get one more. */
    int64_t base = pool.n / pool.chunks, extra = pool.n % pool.chunks;
    int64_t begin = c * base + (c < extra ? c : extra);
    int64_t end = begin + base + (c < extra ? 1 : 0);
    pthread_mutex_unlock(&pool.mu);
    in_parallel_region = 1;
    body(begin, end, data);
    in_parallel_region = 0;
    pthread_mutex_lock(&pool.mu);
    int64_t done = pool.done_chunks + 1;
    __atomic_store_n(&pool.done_chunks, done, __ATOMIC_RELEASE);
    if (done == pool.chunks)
      pthread_cond_signal(&pool.done_cv);
  }
}

/* A new worker's identity and the last job posted before it existed: the
 * job whose call creates it is posted right after, and the worker must not
 * mistake it for one already seen (it locks mu only once the caller has
 * posted it). */
struct worker_start {
  int self; /* worker i (from 1) is thread i of every job it helps with */
  uint64_t seen;
};

static void *worker_main(void *arg) {
  struct worker_start start = *(struct worker_start *)arg;
  free(arg);
  int self = start.self;
  pthread_mutex_lock(&pool.mu);
  uint64_t seen = start.seen;
  for (;;) {
    if (pool.generation == seen && !pool.shutdown)
      spin_until(job_posted, seen);
    while (pool.generation == seen && !pool.shutdown)
      pthread_cond_wait(&pool.work_cv, &pool.mu);
    if (pool.shutdown)
      break;
    seen = pool.generation;
    /* Workers beyond the current thread count sit this job out. */
    if (self > pool.helpers_allowed)
      continue;
    run_chunks(seen, self);
  }
  pthread_mutex_unlock(&pool.mu);
  return NULL;
}

/* A forked child has none of the parent's workers; start from scratch
 * (run_chunks lets a caller finish a job alone, but joining at exit would
 * touch threads that do not exist). */
static void reset_in_child(void) {
  pthread_mutex_init(&pool.mu, NULL);
  pthread_mutex_init(&pool.submit, NULL);
  pthread_cond_init(&pool.work_cv, NULL);
  pthread_cond_init(&pool.done_cv, NULL);
  free(pool.workers);
  pool.workers = NULL;
  pool.num_workers = 0;
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
    start->seen = pool.generation;
    if (pthread_create(&pool.workers[pool.num_workers], NULL, worker_main,
                       start) != 0) {
      free(start);
      return;
    }
    ++pool.num_workers;
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
  pthread_mutex_lock(&pool.mu);
  ensure_workers(threads - 1);
  if (pool.share_capacity < threads) {
    int64_t *grown = realloc(pool.share, (size_t)threads * 2 * sizeof(int64_t));
    if (grown) {
      pool.share = grown;
      pool.share_capacity = threads;
    }
  }
  int helpers = pool.num_workers < threads - 1 ? pool.num_workers : threads - 1;
  if (helpers > pool.share_capacity - 1)
    helpers = pool.share_capacity > 0 ? pool.share_capacity - 1 : 0;
  if (helpers == 0) {
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.submit);
    body(0, n, data);
    return;
  }
  pool.body = body;
  pool.data = data;
  pool.n = n;
  int64_t max_chunks = (int64_t)(helpers + 1) * kChunksPerThread;
  pool.chunks = n < max_chunks ? n : max_chunks;
  pool.done_chunks = 0;
  pool.helpers_allowed = helpers;
  /* Thread t's share: the t-th of helpers + 1 equal parts. */
  for (int t = 0; t <= helpers; ++t) {
    pool.share[2 * t] = pool.chunks * t / (helpers + 1);
    pool.share[2 * t + 1] = pool.chunks * (t + 1) / (helpers + 1);
  }
  /* Published last: spinning workers read it without the lock. */
  uint64_t generation = pool.generation + 1;
  __atomic_store_n(&pool.generation, generation, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.work_cv);
  run_chunks(generation, 0);
  if (pool.done_chunks < pool.chunks)
    spin_until(job_finished, (uint64_t)pool.chunks);
  while (pool.done_chunks < pool.chunks)
    pthread_cond_wait(&pool.done_cv, &pool.mu);
  pthread_mutex_unlock(&pool.mu);
  pthread_mutex_unlock(&pool.submit);
}

/* Workers run code from this library, so they must be gone before it is
 * unmapped (dlclose of a process that loaded it via ctypes, for instance). */
__attribute__((destructor)) static void shutdown_pool(void) {
  pthread_mutex_lock(&pool.mu);
  __atomic_store_n(&pool.shutdown, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&pool.work_cv);
  int count = pool.num_workers;
  pthread_mutex_unlock(&pool.mu);
  for (int i = 0; i < count; ++i)
    pthread_join(pool.workers[i], NULL);
  free(pool.workers);
  pool.workers = NULL;
  pool.num_workers = 0;
  free(pool.share);
  pool.share = NULL;
  pool.share_capacity = 0;
}
