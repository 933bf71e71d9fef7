//go:build cgo

// shim.cpp: see shim.h. CLP reports failures (a file it cannot open, bad
// data) by throwing CoinError; an exception that crosses into Go aborts the
// process (SIGABRT), so each entry point catches everything.

#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

#include <coin/ClpEventHandler.hpp>
#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>
#include <coin/CoinError.hpp>

#include "shim.h"

namespace {

// StopHandler ends a simplex solve at the next iteration once *stop is set.
// CLP clones event handlers (into presolved copies of the model too), so
// every clone shares the flag.
class StopHandler : public ClpEventHandler {
public:
  explicit StopHandler(std::atomic<int> *stop) : stop_(stop) {}
  StopHandler(const StopHandler &o) : ClpEventHandler(o), stop_(o.stop_) {}
  StopHandler &operator=(const StopHandler &o) {
    ClpEventHandler::operator=(o);
    stop_ = o.stop_;
    return *this;
  }
  ClpEventHandler *clone() const override { return new StopHandler(*this); }
  int event(Event e) override {
    if (stop_->load(std::memory_order_relaxed) == 0)
      return -1;
    switch (e) {
    case endOfIteration:
    case endOfFactorization:
    case startOfIterationInDual:
      return 0; // stopped by the event handler (status 5)
    default:
      return -1;
    }
  }

private:
  std::atomic<int> *stop_;
};

void put(char *err, const char *msg) {
  if (err != nullptr) {
    std::snprintf(err, CAPSIM_CLP_ERRLEN, "%s", msg);
  }
}

template <typename F> int guard(char *err, F f) {
  try {
    f();
    return 0;
  } catch (CoinError &e) {
    char buf[CAPSIM_CLP_ERRLEN];
    std::snprintf(buf, sizeof buf, "%s (in %s::%s)", e.message().c_str(), e.className().c_str(),
                  e.methodName().c_str());
    put(err, buf);
  } catch (std::bad_alloc &) {
    put(err, "out of memory");
  } catch (std::exception &e) {
    put(err, e.what());
  } catch (...) {
    put(err, "unknown C++ exception");
  }
  return -1;
}

} // namespace

struct capsim_clp {
  std::atomic<int> stop{0};
  ClpSimplex model;
};

// create returns a new model, a copy of src's where src is not null,
// with its own stop flag, or null with the error in err.
static capsim_clp *create(char *err, capsim_clp *src) {
  capsim_clp *m = nullptr;
  if (guard(err, [&] {
        m = new capsim_clp;
        if (src != nullptr) {
          m->model = src->model;
          // The assignment does not keep src's log level (the copy logs
          // at CLP's default level 1).
          m->model.setLogLevel(src->model.logLevel());
        }
        // The model's stop flag is its own (a copy's assignment cloned
        // src's handler, which reads src's flag).
        StopHandler h(&m->stop);
        m->model.passInEventHandler(&h);
      }) != 0) {
    delete m;
    return nullptr;
  }
  return m;
}

extern "C" {

capsim_clp *capsim_clp_new(char *err) { return create(err, nullptr); }

capsim_clp *capsim_clp_copy(capsim_clp *src, char *err) { return create(err, src); }

void capsim_clp_delete(capsim_clp *m) {
  try {
    delete m;
  } catch (...) {
  }
}

int capsim_clp_load(capsim_clp *m, int nc, int nr, const int *start, const int *index,
                    const double *value, const double *collb, const double *colub,
                    const double *obj, const double *rowlb, const double *rowub, char *err) {
  return guard(err, [&] {
    m->model.loadProblem(nc, nr, start, index, value, collb, colub, obj, rowlb, rowub);
    m->model.setOptimizationDirection(1);
  });
}

int capsim_clp_set_log_level(capsim_clp *m, int level, char *err) {
  return guard(err, [&] { m->model.setLogLevel(level); });
}

int capsim_clp_set_max_seconds(capsim_clp *m, double s, char *err) {
  return guard(err, [&] { m->model.setMaximumSeconds(s); });
}

int capsim_clp_set_scaling(capsim_clp *m, int mode, char *err) {
  return guard(err, [&] { m->model.scaling(mode); });
}

int capsim_clp_chg_row_bounds(capsim_clp *m, const double *lo, const double *up, char *err) {
  return guard(err, [&] {
    m->model.chgRowLower(lo);
    m->model.chgRowUpper(up);
  });
}

int capsim_clp_chg_col_upper(capsim_clp *m, const double *up, char *err) {
  return guard(err, [&] { m->model.chgColumnUpper(up); });
}

int capsim_clp_initial_solve(capsim_clp *m, int method, int presolve, char *err) {
  return guard(err, [&] {
    ClpSolve o;
    o.setSolveType(static_cast<ClpSolve::SolveType>(method), -1);
    o.setPresolveType(static_cast<ClpSolve::PresolveType>(presolve), -1);
    // Option 2 = 1: no SIGINT handler. CLP's handler would replace Go's
    // (Ctrl-C ignored, or a crash when it fires on a thread CLP did not
    // expect); capsim stops solves with capsim_clp_stop instead.
    o.setSpecialOption(2, 1, -1);
    m->model.initialSolve(o);
  });
}

int capsim_clp_get_status(capsim_clp *m, unsigned char *out, char *err) {
  return guard(err, [&] {
    int n = m->model.numberColumns() + m->model.numberRows();
    const unsigned char *st = m->model.statusArray();
    if (st == nullptr) {
      throw CoinError("no basis", "capsim_clp_get_status", "ClpSimplex");
    }
    std::memcpy(out, st, n);
  });
}

int capsim_clp_set_status(capsim_clp *m, const unsigned char *in, char *err) {
  return guard(err, [&] { m->model.copyinStatus(in); });
}

int capsim_clp_dual(capsim_clp *m, char *err) {
  return guard(err, [&] { m->model.dual(0); });
}

int capsim_clp_primal(capsim_clp *m, char *err) {
  return guard(err, [&] { m->model.primal(0); });
}

void capsim_clp_stop(capsim_clp *m) { m->stop.store(1); }

void capsim_clp_clear_stop(capsim_clp *m) { m->stop.store(0); }

int capsim_clp_status(capsim_clp *m) { return m->model.status(); }

int capsim_clp_secondary_status(capsim_clp *m) { return m->model.secondaryStatus(); }

double capsim_clp_objective(capsim_clp *m) { return m->model.objectiveValue(); }

int capsim_clp_iterations(capsim_clp *m) { return m->model.numberIterations(); }

const double *capsim_clp_col_solution(capsim_clp *m) { return m->model.primalColumnSolution(); }

const double *capsim_clp_row_activity(capsim_clp *m) { return m->model.primalRowSolution(); }

int capsim_clp_write_mps(capsim_clp *m, const char *path, char *err) {
  int rc = 0;
  // formatType 1, "extra accuracy": free MPS with every number to about
  // 16 significant digits (format 0 fits numbers in fixed MPS's 12
  // columns: 7 significant digits under 1e-4 or above 1e9).
  if (guard(err, [&] { rc = m->model.writeMps(path, 1, 1, 1.0); }) != 0) {
    return -1;
  }
  if (rc != 0) {
    char buf[CAPSIM_CLP_ERRLEN];
    std::snprintf(buf, sizeof buf, "CLP could not write it (code %d)", rc);
    put(err, buf);
    return -1;
  }
  return 0;
}

} // extern "C"
