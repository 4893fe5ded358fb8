// RUN: kiln-opt %s --pass-pipeline='builtin.module(func.func(kiln-cpu-fuse-row-chains))' -split-input-file | FileCheck %s

#rows = #kiln_kernel.cpu_schedule<strategy = "rows", vector_bits = 256, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 64, min_parallel_work = 65536, block_bytes = 0, accumulators = 0>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
#flat = affine_map<(d0) -> (d0)>

// Softmax over rows of 197: the maximum (a named reduction, with its fill),
// the sum, the reciprocal (over the rows collapsed to one dim) and the
// scaling become one forall over the 12 x 50 rows, each op on its row.
// CHECK-LABEL: func.func @softmax
//   CHECK-NOT: linalg
//       CHECK: scf.forall (%[[I:.*]]) in (600)
//       CHECK:   affine.delinearize_index %[[I]] into (12, 50)
//       CHECK:   linalg.fill {{.*}} memref<1x1xf32, strided<[50, 1], offset: ?>>
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}} : memref<1x1x197xf32, strided<[9850, 197, 1], offset: ?>>)
//       CHECK:     arith.maximumf
//       CHECK:   linalg.fill
//       CHECK:   linalg.generic
//       CHECK:     math.exp
//       CHECK:   memref.subview %{{.*}}[%[[I]]] [1] [1] : memref<600xf32>
//       CHECK:   linalg.generic
//       CHECK:     arith.divf
//       CHECK:   linalg.generic {{.*}} outs(%{{.*}} : memref<1x1x197xf32, strided<[9850, 197, 1], offset: ?>>)
//       CHECK:     arith.mulf
//       CHECK: }
//   CHECK-NOT: linalg
func.func @softmax(%x: memref<12x50x197xf32>, %y: memref<12x50x197xf32>) attributes {kiln.default_schedule = #rows} {
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %r = memref.alloc() : memref<12x50xf32>
  %max = memref.alloc() : memref<12x50xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<12x50xf32>)
  linalg.reduce ins(%x : memref<12x50x197xf32>) outs(%max : memref<12x50xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %sum = memref.alloc() : memref<12x50xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<12x50xf32>)
  linalg.generic {indexing_maps = [#id, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %max : memref<12x50x197xf32>, memref<12x50xf32>) outs(%sum : memref<12x50xf32>) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  %sum1 = memref.collapse_shape %sum [[0, 1]] : memref<12x50xf32> into memref<600xf32>
  %r1 = memref.collapse_shape %r [[0, 1]] : memref<12x50xf32> into memref<600xf32>
  linalg.generic {indexing_maps = [#flat, #flat], iterator_types = ["parallel"]} ins(%sum1 : memref<600xf32>) outs(%r1 : memref<600xf32>) {
  ^bb0(%in: f32, %out: f32):
    %q = arith.divf %one, %in : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #row, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %max, %r : memref<12x50x197xf32>, memref<12x50xf32>, memref<12x50xf32>) outs(%y : memref<12x50x197xf32>) {
  ^bb0(%in: f32, %m: f32, %q: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %p = arith.mulf %e, %q : f32
    linalg.yield %p : f32
  }
  return
}

// -----

#rows = #kiln_kernel.cpu_schedule<strategy = "rows", vector_bits = 256, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 64, min_parallel_work = 65536, block_bytes = 0, accumulators = 0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

// A mean read back by a normalization with a scale along the row: too
// little work for threads, so an scf.for; the scale is read whole by every
// row. The op after the chain (it reads nothing the chain wrote) stays out.
// CHECK-LABEL: func.func @centered
//       CHECK: scf.for %[[I:.*]] = %c0 to %c8 step %c1
//       CHECK:   memref.subview %{{.*}}[%[[I]]] [1] [1] : memref<8xf32>
//       CHECK:   linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<1x16xf32, strided<[16, 1], offset: ?>>, memref<1xf32, strided<[1], offset: ?>>, memref<16xf32>)
//       CHECK: }
//       CHECK: linalg.generic {{.*}} outs(%{{.*}} : memref<8x16xf32>)
func.func @centered(%x: memref<8x16xf32>, %g: memref<16xf32>, %y: memref<8x16xf32>, %z: memref<8x16xf32>) attributes {kiln.default_schedule = #rows} {
  %zero = arith.constant 0.0 : f32
  %mean = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%mean : memref<8xf32>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x16xf32>) outs(%mean : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #row, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mean, %g : memref<8x16xf32>, memref<8xf32>, memref<16xf32>) outs(%y : memref<8x16xf32>) {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %p = arith.mulf %d, %s : f32
    linalg.yield %p : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<8x16xf32>) outs(%z : memref<8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

#rows = #kiln_kernel.cpu_schedule<strategy = "rows", vector_bits = 256, tile_m = 0, tile_n = 0, tile_k = 0, reg_m = 0, reg_n = 0, reg_k = 0, pack_row_bytes = 0, pack_a_row_bytes = 0, pack_min_reuse = 0, pack_a_min_reuse = 0, threads = 64, min_parallel_work = 65536, block_bytes = 0, accumulators = 0>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#t = affine_map<(d0, d1) -> (d1, d0)>

// The chain writes its sums into the first 8 x 8 floats of %buf and then
// reads %buf transposed: row i would read sums that later rows write, so
// the chain ends before that op, and a reduction that nothing reads is left
// alone.
// CHECK-LABEL: func.func @not_row_local
//   CHECK-NOT: scf.forall
//   CHECK-NOT: scf.for
func.func @not_row_local(%x: memref<8x8xf32>, %y: memref<8x8xf32>) attributes {kiln.default_schedule = #rows} {
  %zero = arith.constant 0.0 : f32
  %buf = memref.alloc() : memref<64xf32>
  %sum = memref.subview %buf[0] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1]>>
  %all = memref.expand_shape %buf [[0, 1]] output_shape [8, 8] : memref<64xf32> into memref<8x8xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<8xf32, strided<[1]>>)
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : memref<8x8xf32>) outs(%sum : memref<8xf32, strided<[1]>>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%all : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
