/* A program built against an installed kiln_rt: loads a model library that
 * computes y = a - b ([2, 3] floats), runs it and checks the result. */
#include <kiln_rt.h>

#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s model.so\n", argv[0]);
    return 2;
  }
  kiln_model *model = NULL;
  kiln_context *ctx = NULL;
  if (kiln_model_load(argv[1], &model) != KILN_STATUS_OK ||
      kiln_context_create(model, &ctx) != KILN_STATUS_OK) {
    fprintf(stderr, "error: %s\n", kiln_last_error());
    return 1;
  }
  float a[6], b[6], y[6];
  for (int i = 0; i < 6; ++i) {
    a[i] = (float)i;
    b[i] = 10.0f;
  }
  int64_t dims[2] = {2, 3};
  kiln_tensor in[2] = {{KILN_DTYPE_FLOAT32, 2, dims, a, sizeof a},
                       {KILN_DTYPE_FLOAT32, 2, dims, b, sizeof b}};
  kiln_tensor out = {KILN_DTYPE_FLOAT32, 2, dims, y, sizeof y};
  if (kiln_run(ctx, in, 2, &out, 1) != KILN_STATUS_OK) {
    fprintf(stderr, "error: %s\n", kiln_last_error());
    return 1;
  }
  for (int i = 0; i < 6; ++i)
    if (y[i] != a[i] - b[i]) {
      fprintf(stderr, "y[%d] = %g, expected %g\n", i, y[i], a[i] - b[i]);
      return 1;
    }
  kiln_context_destroy(ctx);
  kiln_model_unload(model);
  printf("ok\n");
  return 0;
}
