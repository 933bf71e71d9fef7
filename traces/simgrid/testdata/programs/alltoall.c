/* alltoall: all-to-all exchanges of several sizes between uneven compute
 * phases (capsim's own test program, recorded with SimGrid's smpirun
 * -trace-ti).
 *
 * Each of ROUNDS rounds exchanges blocks of 1, 16, 256, 4096 and 32768
 * doubles per rank pair with MPI_Alltoall, each exchange after a compute
 * phase whose length depends on the rank, so that ranks enter the
 * exchanges apart, as after an uneven local step of a spectral or
 * transpose-based code. Each rank checks that it received every other
 * rank's block. The work is charged with smpi_execute_flops so that the
 * recorded trace does not depend on the recording machine's speed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 2
#define MAXB 32768

int main(int argc, char **argv) {
  int rank, p;
  static const int sizes[] = {1, 16, 256, 4096, MAXB};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  double *in = malloc((size_t)p * MAXB * sizeof *in), *out = malloc((size_t)p * MAXB * sizeof *out);
  int bad = 0;
  for (int round = 0; round < ROUNDS; round++) {
    for (int s = 0; s < (int)(sizeof sizes / sizeof *sizes); s++) {
      int n = sizes[s];
      for (int q = 0; q < p; q++)
        for (int i = 0; i < n; i++) in[(size_t)q * n + i] = rank * 1000.0 + q + i * 1e-6;
      /* an uneven local step: 2 to 17 us at 1 Gflop/s, by rank and round */
      smpi_execute_flops(1000.0 * (2 + (rank * 7 + round * 5 + s * 3) % 16));
      MPI_Alltoall(in, n, MPI_DOUBLE, out, n, MPI_DOUBLE, MPI_COMM_WORLD);
      for (int q = 0; q < p; q++)
        if (out[(size_t)q * n] != q * 1000.0 + rank) bad++;
    }
  }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("alltoall: %d bad blocks\n", total);
  free(in);
  free(out);
  MPI_Finalize();
  return 0;
}
