/* master: a master-worker task farm with wildcard receives (capsim's own
 * test program, recorded with SimGrid's smpirun -trace-ti).
 *
 * Rank 0 scatters the task count, hands one task to each worker, then
 * receives results with MPI_ANY_SOURCE and answers whichever worker
 * finished with the next task until none are left; a task of size 0 stops a
 * worker. Tasks vary in cost (a deterministic pseudo-random sequence of
 * Collatz lengths), charged with smpi_execute_flops; the per-worker tallies
 * are collected with MPI_Reduce. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TASKS 120
#define RESULT 64 /* doubles sent back per task */

static long collatz(long n) {
  long k = 0;
  for (; n != 1; k++) n = n % 2 ? 3 * n + 1 : n / 2;
  return k;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int ntasks = 0, *all = NULL;
  if (rank == 0) {
    all = malloc(size * sizeof *all);
    for (int p = 0; p < size; p++) all[p] = TASKS;
  }
  MPI_Scatter(all, 1, MPI_INT, &ntasks, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double result[RESULT];
  long done = 0;
  if (rank == 0) {
    long next = 1;
    int active = 0;
    for (int w = 1; w < size; w++) {
      long task = next <= ntasks ? 1000 + next++ : 0;
      MPI_Send(&task, 1, MPI_LONG, w, 1, MPI_COMM_WORLD);
      if (task) active++;
    }
    while (active > 0) {
      MPI_Status st;
      MPI_Recv(result, RESULT, MPI_DOUBLE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st);
      long task = next <= ntasks ? 1000 + next++ : 0;
      MPI_Send(&task, 1, MPI_LONG, st.MPI_SOURCE, 1, MPI_COMM_WORLD);
      if (!task) active--;
      smpi_execute_flops(2.0e4);
    }
  } else {
    for (;;) {
      long task;
      MPI_Recv(&task, 1, MPI_LONG, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (!task) break;
      long steps = collatz(task * 7919 % 100003 + 1);
      for (int i = 0; i < RESULT; i++) result[i] = task + i;
      smpi_execute_flops(5.0e3 * steps);
      MPI_Send(result, RESULT, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
      done++;
    }
  }
  long total = 0;
  MPI_Reduce(&done, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("master: %d ranks, %ld tasks done\n", size, total);
  MPI_Finalize();
  return 0;
}
