/* sort: sample sort by all-to-all-v (capsim's own test program, recorded
 * with SimGrid's smpirun -trace-ti).
 *
 * Each rank draws K pseudo-random keys, sorts them locally and picks p-1
 * regular samples; an MPI_Allgather gives every rank all samples, from
 * which each picks the same p-1 splitters. Each rank cuts its sorted keys
 * into p buckets at the splitters, an MPI_Alltoall exchanges the bucket
 * sizes and an MPI_Alltoallv the keys themselves; each rank then merges
 * what it received. A check sends each rank's largest key to the next rank
 * (MPI_Irecv, MPI_Send, MPI_Wait) and sums the key counts (MPI_Allreduce). The key sets
 * differ per rank and per round, so buckets and messages are uneven. The
 * sorting is real; its cost is charged to the simulated host with
 * smpi_execute_flops so that the recorded trace does not depend on the
 * recording machine's speed. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define K 6000   /* keys per rank and round */
#define ROUNDS 3

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* charge_sort charges a comparison sort of n keys. */
static void charge_sort(int n) {
  if (n > 1) smpi_execute_flops(4.0 * n * log2((double)n));
}

int main(int argc, char **argv) {
  int rank, p;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  unsigned long long state = 0x9E3779B97F4A7C15ull * (rank + 1);
  double *keys = malloc(K * sizeof *keys), *out = malloc(p * K * sizeof *out);
  double *samples = malloc((p - 1) * sizeof *samples), *all = malloc(p * (p - 1) * sizeof *all);
  int *scount = malloc(p * sizeof(int)), *rcount = malloc(p * sizeof(int));
  int *sdispl = malloc(p * sizeof(int)), *rdispl = malloc(p * sizeof(int));
  for (int round = 0; round < ROUNDS; round++) {
    /* Skewed keys: rank r's keys lean towards r/p, more so in later rounds. */
    for (int i = 0; i < K; i++) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      double x = (double)(state >> 11) / 9007199254740992.0;
      keys[i] = fmod(x * x * (1 + round) + (double)rank / p, 1.0);
    }
    qsort(keys, K, sizeof *keys, cmp);
    charge_sort(K);
    for (int i = 0; i < p - 1; i++) samples[i] = keys[(long)(i + 1) * K / p];
    MPI_Allgather(samples, p - 1, MPI_DOUBLE, all, p - 1, MPI_DOUBLE, MPI_COMM_WORLD);
    qsort(all, p * (p - 1), sizeof *all, cmp);
    charge_sort(p * (p - 1));
    for (int b = 0, i = 0; b < p; b++) { /* bucket b gets keys below splitter b */
      int start = i;
      double split = b < p - 1 ? all[(b + 1) * (p - 1)] : INFINITY;
      while (i < K && keys[i] < split) i++;
      sdispl[b] = start, scount[b] = i - start;
    }
    smpi_execute_flops(2.0 * K);
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int b = 0; b < p; b++) rdispl[b] = total, total += rcount[b];
    MPI_Alltoallv(keys, scount, sdispl, MPI_DOUBLE, out, rcount, rdispl, MPI_DOUBLE, MPI_COMM_WORLD);
    qsort(out, total, sizeof *out, cmp); /* a p-way merge, done as a sort */
    charge_sort(total);
    double mine = total ? out[total - 1] : -1, prev = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank > 0) MPI_Irecv(&prev, 1, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, &req);
    if (rank + 1 < p) MPI_Send(&mine, 1, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int ok = total == 0 || prev <= out[0], sum = 0, bad = 0, notok = !ok;
    MPI_Allreduce(&total, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&notok, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("sort: round %d, %d keys, %d ranks out of order\n", round + 1, sum, bad);
  }
  MPI_Finalize();
  return 0;
}
