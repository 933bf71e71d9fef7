/* cg: conjugate gradient on the 5-point Laplacian of an M x M grid split
 * into row slabs (capsim's own test program, recorded with SimGrid's
 * smpirun -trace-ti).
 *
 * Each iteration exchanges one grid row with each neighbour slab
 * (MPI_Irecv/MPI_Isend and one MPI_Wait per request), multiplies, and takes
 * two dot products with MPI_Allreduce. The parameters come from rank 0 by
 * MPI_Bcast on a duplicated communicator; the final error is gathered with
 * MPI_Reduce. Work is charged with smpi_execute_flops. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define M 192

int main(int argc, char **argv) {
  int rank, size, csize;
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Comm_size(MPI_COMM_WORLD, &csize);

  int params[2] = {0, 0}; /* iterations, grid size */
  if (rank == 0) { params[0] = 30; params[1] = M; }
  MPI_Bcast(params, 2, MPI_INT, 0, comm);
  int iters = params[0], m = params[1];
  int rows = m / size; /* assumes size divides M */
  int up = rank > 0 ? rank - 1 : MPI_PROC_NULL, down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
  int n = rows * m;
  double *x = calloc(n, sizeof *x), *r = malloc(n * sizeof *r), *p = calloc((rows + 2) * m, sizeof *p),
         *q = malloc(n * sizeof *q);
  for (int i = 0; i < n; i++) r[i] = 1.0, p[m + i] = 1.0;
  double rr_local = 0, rr;
  for (int i = 0; i < n; i++) rr_local += r[i] * r[i];
  MPI_Allreduce(&rr_local, &rr, 1, MPI_DOUBLE, MPI_SUM, comm);
  smpi_execute_flops(2.0 * n);

  for (int it = 0; it < iters; it++) {
    MPI_Request rq[4];
    int k = 0;
    if (up != MPI_PROC_NULL) MPI_Irecv(p, m, MPI_DOUBLE, up, 1, comm, &rq[k++]);
    if (down != MPI_PROC_NULL) MPI_Irecv(p + (rows + 1) * m, m, MPI_DOUBLE, down, 2, comm, &rq[k++]);
    if (up != MPI_PROC_NULL) MPI_Isend(p + m, m, MPI_DOUBLE, up, 2, comm, &rq[k++]);
    if (down != MPI_PROC_NULL) MPI_Isend(p + rows * m, m, MPI_DOUBLE, down, 1, comm, &rq[k++]);
    for (int i = 0; i < k; i++) MPI_Wait(&rq[i], MPI_STATUS_IGNORE);
    if (up == MPI_PROC_NULL) for (int j = 0; j < m; j++) p[j] = 0;
    if (down == MPI_PROC_NULL) for (int j = 0; j < m; j++) p[(rows + 1) * m + j] = 0;
    double pq_local = 0, pq;
    for (int i = 0; i < rows; i++)
      for (int j = 0; j < m; j++) {
        double *c = p + (i + 1) * m + j;
        double w = j > 0 ? c[-1] : 0, e = j < m - 1 ? c[1] : 0;
        q[i * m + j] = 4 * c[0] - w - e - c[-m] - c[m];
        pq_local += c[0] * q[i * m + j];
      }
    smpi_execute_flops(11.0 * n);
    MPI_Allreduce(&pq_local, &pq, 1, MPI_DOUBLE, MPI_SUM, comm);
    double alpha = rr / pq, rr_new_local = 0, rr_new;
    for (int i = 0; i < n; i++) {
      x[i] += alpha * p[m + i];
      r[i] -= alpha * q[i];
      rr_new_local += r[i] * r[i];
    }
    smpi_execute_flops(6.0 * n);
    MPI_Allreduce(&rr_new_local, &rr_new, 1, MPI_DOUBLE, MPI_SUM, comm);
    double beta = rr_new / rr;
    rr = rr_new;
    for (int i = 0; i < n; i++) p[m + i] = r[i] + beta * p[m + i];
    smpi_execute_flops(2.0 * n);
  }
  double err_local = 0, err = 0;
  for (int i = 0; i < n; i++) err_local = fmax(err_local, fabs(r[i]));
  MPI_Reduce(&err_local, &err, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  if (rank == 0) printf("cg: %d ranks, %d iterations, |r|=%g max=%g\n", size, iters, sqrt(rr), err);
  MPI_Barrier(comm);
  MPI_Comm_free(&comm);
  free(x); free(r); free(p); free(q);
  MPI_Finalize();
  return 0;
}
