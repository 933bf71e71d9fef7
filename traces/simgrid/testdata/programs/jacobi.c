/* jacobi: a 2-D Jacobi stencil on a px x py process grid (capsim's own test
 * program, recorded with SimGrid's smpirun -trace-ti).
 *
 * Each rank owns an N x N block of a Laplace problem, exchanges one-cell
 * halos with its four neighbours (MPI_Irecv/MPI_Isend/MPI_Waitall) and
 * sweeps its block; every CHECK iterations an MPI_Allreduce sums the
 * residual. The computation is real; its cost is charged to the simulated
 * host with smpi_execute_flops (5 flops per updated point) so that the
 * recorded trace does not depend on the recording machine's speed. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 96
#define ITERS 40
#define CHECK 10

static double u[N + 2][N + 2], v[N + 2][N + 2];

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  int px = dims[0], py = dims[1];
  int x = rank % px, y = rank / px;
  int west = x > 0 ? rank - 1 : MPI_PROC_NULL, east = x < px - 1 ? rank + 1 : MPI_PROC_NULL;
  int south = y > 0 ? rank - px : MPI_PROC_NULL, north = y < py - 1 ? rank + px : MPI_PROC_NULL;
  int nbr[4] = {west, east, south, north};

  memset(u, 0, sizeof u);
  if (y == py - 1)
    for (int i = 0; i <= N + 1; i++) u[N + 1][i] = 1.0; /* hot top boundary */

  double sendbuf[4][N], recvbuf[4][N];
  double res = 0;
  for (int it = 0; it < ITERS; it++) {
    for (int i = 0; i < N; i++) {
      sendbuf[0][i] = u[i + 1][1];
      sendbuf[1][i] = u[i + 1][N];
      sendbuf[2][i] = u[1][i + 1];
      sendbuf[3][i] = u[N][i + 1];
    }
    MPI_Request req[8];
    int nreq = 0;
    for (int d = 0; d < 4; d++)
      if (nbr[d] != MPI_PROC_NULL)
        MPI_Irecv(recvbuf[d], N, MPI_DOUBLE, nbr[d], 0, MPI_COMM_WORLD, &req[nreq++]);
    for (int d = 0; d < 4; d++)
      if (nbr[d] != MPI_PROC_NULL)
        MPI_Isend(sendbuf[d], N, MPI_DOUBLE, nbr[d], 0, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < N; i++) {
      if (west != MPI_PROC_NULL) u[i + 1][0] = recvbuf[0][i];
      if (east != MPI_PROC_NULL) u[i + 1][N + 1] = recvbuf[1][i];
      if (south != MPI_PROC_NULL) u[0][i + 1] = recvbuf[2][i];
      if (north != MPI_PROC_NULL) u[N + 1][i + 1] = recvbuf[3][i];
    }
    double local = 0;
    for (int i = 1; i <= N; i++)
      for (int j = 1; j <= N; j++) {
        v[i][j] = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
        local += (v[i][j] - u[i][j]) * (v[i][j] - u[i][j]);
      }
    memcpy(u, v, sizeof u);
    smpi_execute_flops(7.0 * N * N);
    if ((it + 1) % CHECK == 0)
      MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("jacobi: %d ranks (%dx%d), residual %g\n", size, px, py, sqrt(res));
  MPI_Finalize();
  return 0;
}
