//===- ThreadPoolTest.cpp - kiln_rt_parallel_for --------------------------===//
#include "kiln_rt.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace {

struct Coverage {
  std::unique_ptr<std::atomic<int>[]> hits;
  std::atomic<int> calls{0};
  std::mutex mu;
  std::set<std::thread::id> threads;
};

void countRange(int64_t begin, int64_t end, void *data) {
  auto *c = static_cast<Coverage *>(data);
  ++c->calls;
  for (int64_t i = begin; i < end; ++i)
    ++c->hits[i];
  std::lock_guard<std::mutex> lock(c->mu);
  c->threads.insert(std::this_thread::get_id());
}

// Restores the default thread count after each test.
class ParallelFor : public ::testing::Test {
protected:
  void TearDown() override { kiln_rt_set_num_threads(0); }
};

TEST_F(ParallelFor, VisitsEveryIndexExactlyOnce) {
  for (int threads : {1, 2, 3, 4, 8, 16}) {
    kiln_rt_set_num_threads(threads);
    EXPECT_EQ(kiln_rt_get_num_threads(), threads);
    for (int64_t n : {0, 1, 2, 3, 5, 7, 16, 100, 1001, 100000}) {
      Coverage c;
      c.hits.reset(new std::atomic<int>[n > 0 ? n : 1]());
      kiln_rt_parallel_for(n, countRange, &c);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(c.hits[i].load(), 1)
            << "index " << i << " n " << n << " threads " << threads;
      EXPECT_LE(static_cast<int>(c.threads.size()), threads);
      if (n == 0)
        EXPECT_EQ(c.calls.load(), 0);
    }
  }
}

TEST_F(ParallelFor, UsesWorkersAndRespectsLowerCounts) {
  kiln_rt_set_num_threads(4);
  // Slow bodies give workers time to join; at most 4 distinct threads.
  Coverage c;
  c.hits.reset(new std::atomic<int>[64]());
  kiln_rt_parallel_for(
      64,
      [](int64_t b, int64_t e, void *d) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        countRange(b, e, d);
      },
      &c);
  EXPECT_LE(c.threads.size(), 4u);
  // Four chunks per thread, so a preempted thread holds back little work.
  EXPECT_EQ(c.calls.load(), 16);
  // Shrinking the count keeps extra workers out of later jobs.
  kiln_rt_set_num_threads(2);
  Coverage c2;
  c2.hits.reset(new std::atomic<int>[64]());
  kiln_rt_parallel_for(64, countRange, &c2);
  EXPECT_LE(c2.threads.size(), 2u);
  EXPECT_LE(c2.calls.load(), 8);
}

struct Nested {
  std::atomic<int> inner{0};
  std::atomic<int> innerCalls{0};
};

void innerBody(int64_t begin, int64_t end, void *data) {
  auto *n = static_cast<Nested *>(data);
  ++n->innerCalls;
  n->inner += static_cast<int>(end - begin);
}

void outerBody(int64_t begin, int64_t end, void *data) {
  for (int64_t i = begin; i < end; ++i)
    kiln_rt_parallel_for(10, innerBody, data);
}

TEST_F(ParallelFor, NestedCallsRunSerially) {
  kiln_rt_set_num_threads(4);
  Nested n;
  kiln_rt_parallel_for(8, outerBody, &n);
  EXPECT_EQ(n.inner.load(), 80);
  EXPECT_EQ(n.innerCalls.load(), 8); // one serial call per outer index
}

TEST_F(ParallelFor, ConcurrentCallersAllComplete) {
  kiln_rt_set_num_threads(3);
  constexpr int kCallers = 6;
  constexpr int64_t kN = 5000;
  std::vector<std::unique_ptr<Coverage>> cov;
  for (int i = 0; i < kCallers; ++i) {
    cov.emplace_back(new Coverage);
    cov.back()->hits.reset(new std::atomic<int>[kN]());
  }
  std::vector<std::thread> callers;
  for (int i = 0; i < kCallers; ++i)
    callers.emplace_back([&, i] {
      for (int rep = 0; rep < 20; ++rep)
        kiln_rt_parallel_for(kN, countRange, cov[i].get());
    });
  for (std::thread &t : callers)
    t.join();
  for (int i = 0; i < kCallers; ++i)
    for (int64_t k = 0; k < kN; ++k)
      ASSERT_EQ(cov[i]->hits[k].load(), 20) << "caller " << i << " index " << k;
}

TEST_F(ParallelFor, ShortJobsBackToBack) {
  // Thousands of jobs of a few cheap chunks, sizes and thread counts
  // changing between them: a worker still leaving one job while the next is
  // posted must neither run a chunk twice nor miss one.
  unsigned seed = 12345;
  for (int job = 0; job < 20000; ++job) {
    if (job % 2000 == 0)
      kiln_rt_set_num_threads(2 + job / 2000 % 3);
    seed = seed * 1103515245u + 12345u;
    int64_t n = 1 + (seed >> 16) % 40;
    Coverage c;
    c.hits.reset(new std::atomic<int>[n]());
    kiln_rt_parallel_for(n, countRange, &c);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(c.hits[i].load(), 1) << "job " << job << " index " << i;
  }
}

// Which thread ran each index of a job of n single-index chunks.
struct Owners {
  std::mutex mu;
  std::vector<std::thread::id> owner;
  // Indices below this sleep 50 ms, the others 10 ms: long enough for a
  // worker to join on a loaded machine before the caller ends its share.
  int64_t slowBelow = 0;
};

void recordOwner(int64_t begin, int64_t end, void *data) {
  auto *o = static_cast<Owners *>(data);
  std::this_thread::sleep_for(
      std::chrono::milliseconds(begin < o->slowBelow ? 50 : 10));
  std::lock_guard<std::mutex> lock(o->mu);
  for (int64_t i = begin; i < end; ++i)
    o->owner[i] = std::this_thread::get_id();
}

TEST_F(ParallelFor, ThreadsKeepTheirShareAcrossJobs) {
  // Two threads, eight chunks: the caller takes the first four, the worker
  // the last four, in every job, so that consecutive loops over the same
  // data find it in the cache of the core that wrote it.
  kiln_rt_set_num_threads(2);
  std::vector<std::thread::id> first;
  for (int job = 0; job < 3; ++job) {
    Owners o;
    o.owner.resize(8);
    kiln_rt_parallel_for(8, recordOwner, &o);
    for (int64_t i = 0; i < 4; ++i)
      EXPECT_EQ(o.owner[i], std::this_thread::get_id()) << "chunk " << i;
    for (int64_t i = 4; i < 8; ++i)
      EXPECT_NE(o.owner[i], std::this_thread::get_id()) << "chunk " << i;
    if (job == 0)
      first = o.owner;
    else
      EXPECT_EQ(o.owner, first) << "job " << job;
  }
}

TEST_F(ParallelFor, IdleThreadsTakeWhatIsLeftOfOthersShares) {
  // The caller's chunks are slow: the worker finishes its own and takes the
  // caller's last ones, from the end of its share.
  kiln_rt_set_num_threads(2);
  Owners o;
  o.owner.resize(8);
  o.slowBelow = 4;
  kiln_rt_parallel_for(8, recordOwner, &o);
  EXPECT_EQ(o.owner[0], std::this_thread::get_id());
  EXPECT_NE(o.owner[3], std::this_thread::get_id());
}

TEST_F(ParallelFor, DefaultCountIsPositive) {
  kiln_rt_set_num_threads(0);
  EXPECT_GE(kiln_rt_get_num_threads(), 1);
  kiln_rt_parallel_for(10, nullptr, nullptr); // ignored
}

} // namespace
