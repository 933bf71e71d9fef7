/* shim.h: capsim's C interface to CLP. Every function catches every C++
   exception (CoinError and the rest) and reports it as a nonzero return
   and a message in err, so that none unwinds into Go (which would abort
   the process). */
#ifndef CAPSIM_CLP_SHIM_H
#define CAPSIM_CLP_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct capsim_clp capsim_clp;

/* Error messages are cut to this many bytes, NUL included. */
#define CAPSIM_CLP_ERRLEN 512

capsim_clp *capsim_clp_new(char *err);
/* A copy of src: its LP, bounds, options, solution and basis, so that
   the copy's next solve starts where src's would. */
capsim_clp *capsim_clp_copy(capsim_clp *src, char *err);
void capsim_clp_delete(capsim_clp *m);
int capsim_clp_load(capsim_clp *m, int nc, int nr, const int *start, const int *index,
                    const double *value, const double *collb, const double *colub,
                    const double *obj, const double *rowlb, const double *rowub, char *err);
int capsim_clp_set_log_level(capsim_clp *m, int level, char *err);
int capsim_clp_set_max_seconds(capsim_clp *m, double s, char *err);
int capsim_clp_set_scaling(capsim_clp *m, int mode, char *err);
int capsim_clp_chg_row_bounds(capsim_clp *m, const double *lo, const double *up, char *err);
int capsim_clp_chg_col_upper(capsim_clp *m, const double *up, char *err);
/* method: ClpSolve::SolveType; presolve: 0 on, 1 off. CLP's own SIGINT
   handler is switched off (ClpSolve special option 2). */
int capsim_clp_initial_solve(capsim_clp *m, int method, int presolve, char *err);
int capsim_clp_dual(capsim_clp *m, char *err);
int capsim_clp_primal(capsim_clp *m, char *err);
/* capsim_clp_get_status copies the basis (a status byte per column, then
   per row: numberColumns + numberRows bytes) into out;
   capsim_clp_set_status makes in the model's basis. */
int capsim_clp_get_status(capsim_clp *m, unsigned char *out, char *err);
int capsim_clp_set_status(capsim_clp *m, const unsigned char *in, char *err);
/* Asks a running solve to stop at its next iteration (thread-safe);
   capsim_clp_clear_stop rearms the model. */
void capsim_clp_stop(capsim_clp *m);
void capsim_clp_clear_stop(capsim_clp *m);
int capsim_clp_status(capsim_clp *m);
int capsim_clp_secondary_status(capsim_clp *m);
double capsim_clp_objective(capsim_clp *m);
int capsim_clp_iterations(capsim_clp *m);
const double *capsim_clp_col_solution(capsim_clp *m);
const double *capsim_clp_row_activity(capsim_clp *m);
int capsim_clp_write_mps(capsim_clp *m, const char *path, char *err);

#ifdef __cplusplus
}
#endif

#endif
