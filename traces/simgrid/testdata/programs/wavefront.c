/* wavefront: a pipelined 2-D diagonal wavefront sweep in the manner of
 * Sweep3D (capsim's own test program, recorded with SimGrid's smpirun
 * -trace-ti).
 *
 * The ranks form a px x py grid over the x-y plane of an NX x NY x NZ
 * block per rank. A sweep starts at one corner of the grid: for each of
 * NZ/KB blocks of z-planes a rank receives the incoming face fluxes from
 * its upstream x and y neighbours (blocking MPI_Recv), computes the block
 * and sends its outgoing faces downstream (blocking MPI_Send), so the
 * work moves through the grid as a diagonal wavefront and the z blocks
 * pipeline behind it. Each iteration sweeps from all four corners and
 * ends with an MPI_Allreduce of the flux change. The computation is real;
 * its cost is charged to the simulated host with smpi_execute_flops so
 * that the recorded trace does not depend on the recording machine's
 * speed. */
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 16
#define NY 16
#define NZ 32
#define KB 4 /* z-planes per pipelined block */
#define ITERS 2

static double phi[NZ][NY][NX];

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  int px = dims[0], py = dims[1], cx = rank % px, cy = rank / px;
  double xin[KB][NY], yin[KB][NX], xout[KB][NY], yout[KB][NX];
  double change = 0;
  for (int it = 0; it < ITERS; it++) {
    double local = 0;
    for (int corner = 0; corner < 4; corner++) {
      int sx = corner & 1 ? -1 : 1, sy = corner & 2 ? -1 : 1; /* sweep direction */
      int upx = cx - sx, upy = cy - sy, dnx = cx + sx, dny = cy + sy;
      int xup = upx >= 0 && upx < px ? cy * px + upx : MPI_PROC_NULL;
      int yup = upy >= 0 && upy < py ? upy * px + cx : MPI_PROC_NULL;
      int xdn = dnx >= 0 && dnx < px ? cy * px + dnx : MPI_PROC_NULL;
      int ydn = dny >= 0 && dny < py ? dny * px + cx : MPI_PROC_NULL;
      for (int kb = 0; kb < NZ / KB; kb++) {
        if (xup != MPI_PROC_NULL) MPI_Recv(xin, KB * NY, MPI_DOUBLE, xup, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else memset(xin, 0, sizeof xin); /* vacuum boundary */
        if (yup != MPI_PROC_NULL) MPI_Recv(yin, KB * NX, MPI_DOUBLE, yup, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        else memset(yin, 0, sizeof yin);
        for (int k = 0; k < KB; k++) {
          int z = kb * KB + k;
          for (int jj = 0; jj < NY; jj++) {
            int j = sy > 0 ? jj : NY - 1 - jj;
            double fx = xin[k][j];
            for (int ii = 0; ii < NX; ii++) {
              int i = sx > 0 ? ii : NX - 1 - ii;
              double src = 1.0 + 0.1 * phi[z][j][i];
              double v = (src + 0.5 * fx + 0.5 * yin[k][i]) / 2.2;
              local += fabs(v - phi[z][j][i]);
              phi[z][j][i] = v;
              fx = v, yin[k][i] = v;
            }
            xout[k][j] = fx;
          }
          memcpy(yout[k], yin[k], sizeof yout[k]);
        }
        smpi_execute_flops(12.0 * KB * NX * NY);
        if (xdn != MPI_PROC_NULL) MPI_Send(xout, KB * NY, MPI_DOUBLE, xdn, 1, MPI_COMM_WORLD);
        if (ydn != MPI_PROC_NULL) MPI_Send(yout, KB * NX, MPI_DOUBLE, ydn, 2, MPI_COMM_WORLD);
      }
    }
    MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("wavefront: iteration %d change %g\n", it + 1, change);
  }
  MPI_Finalize();
  return 0;
}
