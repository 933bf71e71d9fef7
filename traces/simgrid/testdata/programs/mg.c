/* mg: a 2-D geometric multigrid V-cycle on a px x py process grid (capsim's
 * own test program, recorded with SimGrid's smpirun -trace-ti).
 *
 * Each rank owns an N x N block of -lap(u) = 1 with u = 0 on the boundary
 * of the global square. A V-cycle smooths with weighted Jacobi (two sweeps
 * before and after the coarse correction), computes the residual, restricts
 * it by full weighting to a grid of half the points per side, and
 * prolongates the coarse correction bilinearly; every one of these steps
 * needs a one-cell halo, exchanged with the four neighbours by
 * MPI_Irecv/MPI_Isend/MPI_Waitall at every level. On the coarsest level
 * (one point per rank) the ranks' values are combined by an MPI_Allreduce
 * and solved redundantly. After each cycle an MPI_Allreduce sums the
 * residual norm. The computation is real; its cost is charged to the
 * simulated host with smpi_execute_flops so that the recorded trace does
 * not depend on the recording machine's speed. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64      /* points per side of a rank's finest block */
#define LEVELS 7  /* 64, 32, 16, 8, 4, 2, 1 points per side */
#define CYCLES 3
#define SWEEPS 2

static int px, py, cx, cy, nbr[4];
static double *u[LEVELS], *f[LEVELS], *r[LEVELS];

#define AT(a, n, i, j) ((a)[(i) * ((n) + 2) + (j)])

/* halo exchanges the one-cell frame of the n x n block a; on the global
 * boundary the frame mirrors the block with the opposite sign (u = 0 on the
 * cell faces). */
static void halo(double *a, int n) {
  double *sb = malloc(8 * n * sizeof *sb), *rb = sb + 4 * n;
  for (int i = 0; i < n; i++) {
    sb[0 * n + i] = AT(a, n, i + 1, 1);
    sb[1 * n + i] = AT(a, n, i + 1, n);
    sb[2 * n + i] = AT(a, n, 1, i + 1);
    sb[3 * n + i] = AT(a, n, n, i + 1);
  }
  MPI_Request req[8];
  int nreq = 0;
  for (int d = 0; d < 4; d++)
    if (nbr[d] != MPI_PROC_NULL) MPI_Irecv(rb + d * n, n, MPI_DOUBLE, nbr[d], d ^ 1, MPI_COMM_WORLD, &req[nreq++]);
  for (int d = 0; d < 4; d++)
    if (nbr[d] != MPI_PROC_NULL) MPI_Isend(sb + d * n, n, MPI_DOUBLE, nbr[d], d, MPI_COMM_WORLD, &req[nreq++]);
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (int i = 0; i < n; i++) {
    AT(a, n, i + 1, 0) = nbr[0] != MPI_PROC_NULL ? rb[0 * n + i] : -sb[0 * n + i];
    AT(a, n, i + 1, n + 1) = nbr[1] != MPI_PROC_NULL ? rb[1 * n + i] : -sb[1 * n + i];
    AT(a, n, 0, i + 1) = nbr[2] != MPI_PROC_NULL ? rb[2 * n + i] : -sb[2 * n + i];
    AT(a, n, n + 1, i + 1) = nbr[3] != MPI_PROC_NULL ? rb[3 * n + i] : -sb[3 * n + i];
  }
  free(sb);
}

/* smooth runs weighted Jacobi sweeps on level l (mesh width h). */
static void smooth(int l, int n, double h) {
  double *t = malloc((n + 2) * (n + 2) * sizeof *t);
  for (int s = 0; s < SWEEPS; s++) {
    halo(u[l], n);
    memcpy(t, u[l], (n + 2) * (n + 2) * sizeof *t);
    for (int i = 1; i <= n; i++)
      for (int j = 1; j <= n; j++) {
        double jac = 0.25 * (AT(t, n, i - 1, j) + AT(t, n, i + 1, j) + AT(t, n, i, j - 1) + AT(t, n, i, j + 1) +
                             h * h * AT(f[l], n, i, j));
        AT(u[l], n, i, j) = AT(t, n, i, j) + 0.8 * (jac - AT(t, n, i, j));
      }
    smpi_execute_flops(9.0 * n * n);
  }
  free(t);
}

/* residual sets r = f + lap(u) on level l and returns its squared norm. */
static double residual(int l, int n, double h) {
  halo(u[l], n);
  double sum = 0;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++) {
      double v = AT(f[l], n, i, j) + (AT(u[l], n, i - 1, j) + AT(u[l], n, i + 1, j) + AT(u[l], n, i, j - 1) +
                                      AT(u[l], n, i, j + 1) - 4 * AT(u[l], n, i, j)) / (h * h);
      AT(r[l], n, i, j) = v;
      sum += v * v;
    }
  smpi_execute_flops(10.0 * n * n);
  return sum;
}

/* restrict_to sets f on level l+1 to the full-weighting restriction of r. */
static void restrict_to(int l, int n) {
  int m = n / 2;
  halo(r[l], n);
  for (int i = 1; i <= m; i++)
    for (int j = 1; j <= m; j++) {
      int a = 2 * i - 1, b = 2 * j - 1; /* the fine cell pair (a..a+1, b..b+1) */
      double s = 0;
      for (int di = -1; di <= 2; di++)
        for (int dj = -1; dj <= 2; dj++) {
          double w = ((di == 0 || di == 1) ? 3 : 1) * ((dj == 0 || dj == 1) ? 3 : 1);
          s += w * AT(r[l], n, a + di, b + dj);
        }
      AT(f[l + 1], m, i, j) = s / 64;
    }
  memset(u[l + 1], 0, (m + 2) * (m + 2) * sizeof *u[l + 1]);
  smpi_execute_flops(32.0 * m * m);
}

/* prolong adds the bilinear interpolation of level l+1's u to level l's. */
static void prolong(int l, int n) {
  int m = n / 2;
  halo(u[l + 1], m);
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= n; j++) {
      int ci = (i + 1) / 2, cj = (j + 1) / 2;
      int ni = (i % 2) ? ci - 1 : ci + 1, nj = (j % 2) ? cj - 1 : cj + 1;
      AT(u[l], n, i, j) += (9 * AT(u[l + 1], m, ci, cj) + 3 * AT(u[l + 1], m, ni, cj) +
                            3 * AT(u[l + 1], m, ci, nj) + AT(u[l + 1], m, ni, nj)) / 16;
    }
  smpi_execute_flops(8.0 * n * n);
}

/* coarse solves the coarsest level (one point per rank) redundantly: the
 * ranks' right-hand sides are summed into one px x py grid on every rank,
 * which runs Jacobi sweeps on it and keeps its own point. */
static void coarse(int l, double h) {
  int p = px * py, me = cy * px + cx;
  double *g = calloc(p, sizeof *g), *all = calloc(p, sizeof *all), *v = calloc(p, sizeof *v);
  g[me] = AT(f[l], 1, 1, 1);
  MPI_Allreduce(g, all, p, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int s = 0; s < 50; s++) {
    for (int k = 0; k < p; k++) {
      int x = k % px, y = k / px;
      double nb = (x > 0 ? v[k - 1] : -v[k]) + (x < px - 1 ? v[k + 1] : -v[k]) +
                  (y > 0 ? v[k - px] : -v[k]) + (y < py - 1 ? v[k + px] : -v[k]);
      g[k] = 0.25 * (nb + h * h * all[k]);
    }
    memcpy(v, g, p * sizeof *v);
  }
  smpi_execute_flops(50.0 * 8 * p);
  AT(u[l], 1, 1, 1) = v[me];
  free(g), free(all), free(v);
}

static void vcycle(int l, int n, double h) {
  if (n == 1) {
    coarse(l, h);
    return;
  }
  smooth(l, n, h);
  residual(l, n, h);
  restrict_to(l, n);
  vcycle(l + 1, n / 2, 2 * h);
  prolong(l, n);
  smooth(l, n, h);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  px = dims[0], py = dims[1];
  cx = rank % px, cy = rank / px;
  nbr[0] = cx > 0 ? rank - 1 : MPI_PROC_NULL;
  nbr[1] = cx < px - 1 ? rank + 1 : MPI_PROC_NULL;
  nbr[2] = cy > 0 ? rank - px : MPI_PROC_NULL;
  nbr[3] = cy < py - 1 ? rank + px : MPI_PROC_NULL;
  for (int l = 0, n = N; l < LEVELS; l++, n /= 2) {
    u[l] = calloc((n + 2) * (n + 2), sizeof(double));
    f[l] = calloc((n + 2) * (n + 2), sizeof(double));
    r[l] = calloc((n + 2) * (n + 2), sizeof(double));
  }
  for (int i = 1; i <= N; i++)
    for (int j = 1; j <= N; j++) AT(f[0], N, i, j) = 1.0;
  double h = 1.0 / (N * (px > py ? px : py) + 1), norm = 0;
  for (int c = 0; c < CYCLES; c++) {
    vcycle(0, N, h);
    double local = residual(0, N, h);
    MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("mg: cycle %d residual %g\n", c + 1, sqrt(norm));
  }
  MPI_Finalize();
  return 0;
}
