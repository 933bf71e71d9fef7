/* fft: a 2-D FFT of an N x N complex field by rows, transpose, rows,
 * transpose back (capsim's own test program, recorded with SimGrid's
 * smpirun -trace-ti).
 *
 * Each rank owns N/P rows. A transpose is one MPI_Alltoall of N/P x N/P
 * blocks; every second step uses MPI_Alltoallv with the same counts, as
 * codes with uneven slabs do. Row FFTs are real radix-2 transforms, charged
 * at 5 n log2 n flops each with smpi_execute_flops. Norms are combined with
 * MPI_Allgather and the checksum collected with MPI_Gather. */
#include <mpi.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 128
#define STEPS 4

static void fft(double complex *a, int n) {
  for (int i = 1, j = 0; i < n; i++) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) { double complex t = a[i]; a[i] = a[j]; a[j] = t; }
  }
  for (int len = 2; len <= n; len <<= 1) {
    double complex w = cexp(-2 * M_PI * I / len);
    for (int i = 0; i < n; i += len) {
      double complex wk = 1;
      for (int k = 0; k < len / 2; k++) {
        double complex u = a[i + k], v = a[i + k + len / 2] * wk;
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
        wk *= w;
      }
    }
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rows = N / size, blk = rows * rows; /* complex numbers per block */
  double complex *a = malloc(rows * N * sizeof *a), *b = malloc(rows * N * sizeof *b);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < N; j++) a[i * N + j] = sin(0.1 * (rank * rows + i)) + I * cos(0.05 * j);
  int *counts = malloc(size * sizeof *counts), *displs = malloc(size * sizeof *displs);
  for (int p = 0; p < size; p++) counts[p] = 2 * blk, displs[p] = 2 * blk * p;
  double lg = log2(N);
  for (int s = 0; s < STEPS; s++) {
    for (int i = 0; i < rows; i++) fft(a + i * N, N);
    smpi_execute_flops(5.0 * N * lg * rows);
    /* pack: block p holds my rows' columns p*rows..p*rows+rows-1 */
    for (int p = 0; p < size; p++)
      for (int i = 0; i < rows; i++)
        for (int j = 0; j < rows; j++) b[p * blk + i * rows + j] = a[i * N + p * rows + j];
    if (s % 2 == 0)
      MPI_Alltoall(b, 2 * blk, MPI_DOUBLE, a, 2 * blk, MPI_DOUBLE, MPI_COMM_WORLD);
    else
      MPI_Alltoallv(b, counts, displs, MPI_DOUBLE, a, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    /* unpack the transposed blocks */
    for (int p = 0; p < size; p++)
      for (int i = 0; i < rows; i++)
        for (int j = 0; j < rows; j++) b[j * N + p * rows + i] = a[p * blk + i * rows + j];
    double complex *t = a; a = b; b = t;
    smpi_execute_flops(2.0 * rows * N);
  }
  double norm = 0;
  for (int i = 0; i < rows * N; i++) norm += cabs(a[i]) * cabs(a[i]);
  double *norms = malloc(size * sizeof *norms);
  MPI_Allgather(&norm, 1, MPI_DOUBLE, norms, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  double sum = 0;
  for (int p = 0; p < size; p++) sum += norms[p];
  double *all = rank == 0 ? malloc(size * sizeof *all) : NULL;
  MPI_Gather(&sum, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("fft: %d ranks, %dx%d, %d steps, energy %g\n", size, N, N, STEPS, sqrt(all[0]));
  MPI_Finalize();
  return 0;
}
