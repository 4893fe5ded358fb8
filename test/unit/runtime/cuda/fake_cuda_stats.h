/*===- fake_cuda_stats.h - What the stand-in CUDA driver saw --------------===*/
#ifndef KILN_TEST_FAKE_CUDA_STATS_H
#define KILN_TEST_FAKE_CUDA_STATS_H

/* Counters of fake_cuda_driver.c, read by cuda_launcher_checks.c through
 * the driver's fake_cuda_stats_get(). */
typedef struct fake_cuda_stats {
  int contexts_retained, contexts_released, streams_created;
  int modules_loaded, modules_unloaded, functions;
  int launches, empty_launches, mem_allocs, mem_frees, htod_copies;
  int async_copies, syncs;
  char first_image[64];
  char last_kernel[128];
  unsigned last_grid[3], last_block[3];
} fake_cuda_stats;

#endif /* KILN_TEST_FAKE_CUDA_STATS_H */
