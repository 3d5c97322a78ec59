// PC type "balsa": balsa::Preconditioner (include/balsa/precondition.hpp) on
// a rank's local SeqAIJ block, as PETSc's own ILU/ICC are (directly, or as
// -sub_pc_type balsa under bjacobi and asm). Options (with the PC's prefix):
//   -pc_balsa_method auto|jacobi|ilu0|ic0|sap-d|sap-c|direct
//   -pc_balsa_trsv   balsa's triangular-solver algorithm names (auto, level-set, tassl, ...)
//   -pc_balsa_device auto|cpu|cuda
//   -pc_balsa_threads N      (OpenMP threads of each call; default 1: ranks share the cores)
//   -pc_balsa_direct_max_rows N  (auto: direct at or below N rows)
// A new matrix with the same nonzero pattern (PETSc's SAME_NONZERO_PATTERN,
// or the same row pointers and columns) goes through update_values: the
// analysis is reused. A new pattern, or new options, builds a new one.
// With a GPU, each rank works on device (local rank on the host) % (devices).
#include <petsc/private/pcimpl.h>

#include <memory>
#include <span>
#include <string>

#include "balsa/cuda.hpp"
#include "balsa/precondition.hpp"
#include "balsa_petsc.h"
#include "common.hpp"

namespace balsa_petsc {
namespace {

struct PcBalsa {
  balsa::PreconditionOptions options{.threads = 1};
  std::unique_ptr<balsa::Preconditioner<double>> M;
  balsa::Csr<double> pattern;  // of M's matrix (no values)
  int builds = 0;
  int gpu = -1;  // the device this rank uses (-1: none)
};

PcBalsa& context(PC pc) { return *static_cast<PcBalsa*>(pc->data); }

// The rank's device: its rank among the ranks of its host (MPI's shared-memory
// split of PETSC_COMM_WORLD) modulo the devices.
PetscErrorCode select_device(PcBalsa& c) {
  PetscFunctionBegin;
  if (c.options.device == balsa::Device::Cpu || balsa::cuda::device_count() == 0) PetscFunctionReturn(0);
  MPI_Comm host;
  PetscMPIInt local = 0;
  PetscCallMPI(MPI_Comm_split_type(PETSC_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host));
  PetscCallMPI(MPI_Comm_rank(host, &local));
  PetscCallMPI(MPI_Comm_free(&host));
  c.gpu = local % balsa::cuda::device_count();
  balsa::cuda::use_device(c.gpu);
  PetscFunctionReturn(0);
}

PetscErrorCode build(PC pc, PcBalsa& c, Mat local) {
  PetscFunctionBegin;
  balsa::Csr<double> A;
  PetscCall(to_csr(local, A));
  PetscCall(select_device(c));
  c.M.reset();
  c.M = std::make_unique<balsa::Preconditioner<double>>(A, c.options);
  std::vector<double>().swap(A.values);
  c.pattern = std::move(A);
  ++c.builds;
  (void)pc;
  PetscFunctionReturn(0);
}

PetscErrorCode update(PcBalsa& c, Mat local) {
  const PetscScalar* values = nullptr;
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(local, &values));
  const PetscErrorCode status = guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    if (c.gpu >= 0) balsa::cuda::use_device(c.gpu);
    c.M->update_values(std::span<const double>(values, std::size_t(c.pattern.nnz())));
    return 0;
  });
  PetscCall(MatSeqAIJRestoreArrayRead(local, &values));
  PetscCall(status);
  PetscFunctionReturn(0);
}

PetscErrorCode PCSetUp_Balsa(PC pc) {
  PcBalsa& c = context(pc);
  Mat local = nullptr;
  PetscFunctionBegin;
  PetscCall(local_block(pc->pmat, "the balsa preconditioner", &local));
  PetscInt m = 0, n = 0;
  PetscCall(MatGetSize(local, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "balsa: the balsa preconditioner needs a square block, got %d x %d",
             int(m), int(n));
  PetscCall(guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    PetscFunctionBegin;
    PetscBool same = PETSC_FALSE;
    if (c.M && pc->setupcalled) {
      same = pc->flag == SAME_NONZERO_PATTERN ? PETSC_TRUE : PETSC_FALSE;
      if (!same) PetscCall(same_pattern(local, c.pattern, &same));
    }
    if (same)
      PetscCall(update(c, local));
    else
      PetscCall(build(pc, c, local));
    PetscFunctionReturn(0);
  }));
  PetscFunctionReturn(0);
}

PetscErrorCode PCApply_Balsa(PC pc, Vec x, Vec y) {
  PcBalsa& c = context(pc);
  const PetscScalar* r = nullptr;
  PetscScalar* z = nullptr;
  PetscInt n = 0;
  PetscFunctionBegin;
  if (!c.M) PetscCall(PCSetUp_Balsa(pc));  // new options after the set-up (PCSetFromOptions dropped it)
  PetscCall(VecGetLocalSize(x, &n));
  PetscCall(VecGetArrayRead(x, &r));
  PetscCall(VecGetArrayWrite(y, &z));
  const PetscErrorCode status = guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    c.M->apply(std::span<const double>(r, std::size_t(n)), std::span<double>(z, std::size_t(n)));
    return 0;
  });
  PetscCall(VecRestoreArrayWrite(y, &z));
  PetscCall(VecRestoreArrayRead(x, &r));
  PetscCall(status);
  PetscCall(PetscLogFlops(2.0 * double(c.pattern.nnz())));
  PetscFunctionReturn(0);
}

PetscErrorCode PCReset_Balsa(PC pc) {
  PcBalsa& c = context(pc);
  PetscFunctionBegin;
  c.M.reset();
  c.pattern = {};
  PetscFunctionReturn(0);
}

PetscErrorCode PCDestroy_Balsa(PC pc) {
  PetscFunctionBegin;
  delete static_cast<PcBalsa*>(pc->data);
  pc->data = nullptr;
  PetscFunctionReturn(0);
}

// One balsa enum option: its current name as the default, the new value
// through balsa::from_string (an unknown name is balsa's UnknownName,
// listing the names, as a PETSc error).
template <class E>
PetscErrorCode enum_option(PetscOptionItems* PetscOptionsObject, const char* name, const char* help, E& value) {
  char text[64];
  PetscBool set = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscOptionsString(name, help, "PCBALSA", balsa::to_string(value), text, sizeof text, &set));
  if (set) PetscCall(guarded(PETSC_COMM_SELF, [&]() -> PetscErrorCode {
    value = balsa::from_string<E>(text);
    return 0;
  }));
  PetscFunctionReturn(0);
}

PetscErrorCode PCSetFromOptions_Balsa(PC pc, PetscOptionItems* PetscOptionsObject) {
  PcBalsa& c = context(pc);
  balsa::PreconditionOptions o = c.options;
  PetscInt threads = o.threads, direct_rows = o.direct_max_rows;
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "balsa preconditioner options");
  PetscCall(enum_option(PetscOptionsObject, "-pc_balsa_method", "auto|jacobi|ilu0|ic0|sap-d|sap-c|direct", o.method));
  PetscCall(enum_option(PetscOptionsObject, "-pc_balsa_trsv", "balsa's triangular-solver algorithm", o.trsv));
  PetscCall(enum_option(PetscOptionsObject, "-pc_balsa_device", "auto|cpu|cuda", o.device));
  PetscCall(PetscOptionsInt("-pc_balsa_threads", "OpenMP threads of each call (0: the process's)", "PCBALSA", threads,
                            &threads, nullptr));
  PetscCall(PetscOptionsInt("-pc_balsa_direct_max_rows", "auto: direct at or below this many rows", "PCBALSA",
                            direct_rows, &direct_rows, nullptr));
  PetscOptionsHeadEnd();
  PetscCheck(threads >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "balsa: -pc_balsa_threads must be >= 0, got %d",
             int(threads));
  PetscCheck(direct_rows >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "balsa: -pc_balsa_direct_max_rows must be >= 0, got %d", int(direct_rows));
  o.threads = int(threads);
  o.direct_max_rows = balsa::index_t(direct_rows);
  const bool changed = o.method != c.options.method || o.trsv != c.options.trsv || o.device != c.options.device ||
                       o.threads != c.options.threads || o.direct_max_rows != c.options.direct_max_rows;
  c.options = o;
  if (changed) c.M.reset();  // built again at the next set-up
  PetscFunctionReturn(0);
}

PetscErrorCode PCView_Balsa(PC pc, PetscViewer viewer) {
  PcBalsa& c = context(pc);
  PetscBool ascii = PETSC_FALSE;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(0);
  if (!c.M) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "  balsa: method %s (not set up yet), device %s, threads %d\n",
                                     balsa::to_string(c.options.method), balsa::to_string(c.options.device),
                                     c.options.threads));
    PetscFunctionReturn(0);
  }
  const balsa::PreconditionStats& s = c.M->stats();
  char gpu[16] = "";
  if (c.gpu >= 0) PetscCall(PetscSNPrintf(gpu, sizeof gpu, " %d", c.gpu));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  balsa: method %s%s%s%s, device %s%s, threads %d\n",
                                   balsa::to_string(s.method), s.rule.empty() ? "" : " (auto: ", s.rule.c_str(),
                                   s.rule.empty() ? "" : ")", balsa::to_string(s.device),
                                   gpu, c.options.threads));
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "  balsa: n %d, nnz %lld, set-up %.3g s (analysis %.3g s; reused: %s), builds %d, "
                                   "value updates %d\n",
                                   int(s.n), (long long)s.nnz, s.setup_seconds, s.analysis_seconds,
                                   s.analysis_reused ? "yes" : "no", c.builds, s.updates));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  balsa: applications %lld, host apply time %.3g s\n",
                                   (long long)s.applications, s.apply_seconds));
  if (s.method == balsa::PreconditionMethod::Ilu0 || s.method == balsa::PreconditionMethod::Ic0)
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "  balsa: triangular solves %s (lower, %d levels) and %s (upper, %d levels); "
                                     "factor shift %g\n",
                                     balsa::to_string(s.lower.algorithm), int(s.lower.levels),
                                     balsa::to_string(s.upper.algorithm), int(s.upper.levels), s.factor.shift));
  if (s.method == balsa::PreconditionMethod::Direct)
    PetscCall(PetscViewerASCIIPrintf(viewer, "  balsa: direct %s, factor entries %lld\n",
                                     balsa::to_string(s.direct.method), (long long)s.direct.factor_entries));
  PetscFunctionReturn(0);
}

}  // namespace

PetscErrorCode PCCreate_Balsa(PC pc) {
  PetscFunctionBegin;
  PetscCall(guarded(PetscObjectComm((PetscObject)pc), [&]() -> PetscErrorCode {
    pc->data = new PcBalsa;
    return 0;
  }));
  pc->ops->setup = PCSetUp_Balsa;
  pc->ops->apply = PCApply_Balsa;
  pc->ops->reset = PCReset_Balsa;
  pc->ops->destroy = PCDestroy_Balsa;
  pc->ops->setfromoptions = PCSetFromOptions_Balsa;
  pc->ops->view = PCView_Balsa;
  PetscFunctionReturn(0);
}

}  // namespace balsa_petsc
