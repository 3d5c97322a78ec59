// The named Krylov methods (include/balsa/krylov.hpp, KrylovPreset).
#include "balsa/krylov.hpp"
#include "core/exceptions.hpp"

namespace balsa {

KrylovOptions krylov_options(KrylovPreset preset) try {
  struct Row {
    KrylovPreset preset;
    KrylovMethod method;
    PreconditionerKind preconditioner;
    KrylovOrdering ordering = KrylovOrdering::Natural;
  };
  static constexpr Row rows[] = {
      {KrylovPreset::PcgIc0, KrylovMethod::Cg, PreconditionerKind::Ic0},
      {KrylovPreset::PcgIlu0, KrylovMethod::Cg, PreconditionerKind::Ilu0},
      {KrylovPreset::PcgJacobi, KrylovMethod::Cg, PreconditionerKind::Jacobi},
      {KrylovPreset::Cg, KrylovMethod::Cg, PreconditionerKind::None},
      {KrylovPreset::BiCgStabIlu0, KrylovMethod::BiCgStab, PreconditionerKind::Ilu0},
      {KrylovPreset::BiCgStab2Ilu0, KrylovMethod::BiCgStabL, PreconditionerKind::Ilu0},
      {KrylovPreset::BiCgStabJacobi, KrylovMethod::BiCgStab, PreconditionerKind::Jacobi},
      {KrylovPreset::BiCgStab2Jacobi, KrylovMethod::BiCgStabL, PreconditionerKind::Jacobi},
      {KrylovPreset::BiCgStab, KrylovMethod::BiCgStab, PreconditionerKind::None},
      {KrylovPreset::BiCgStab2, KrylovMethod::BiCgStabL, PreconditionerKind::None},
      {KrylovPreset::PcgIc0Mc, KrylovMethod::Cg, PreconditionerKind::Ic0, KrylovOrdering::Multicolour},
      {KrylovPreset::BiCgStabIlu0Mc, KrylovMethod::BiCgStab, PreconditionerKind::Ilu0, KrylovOrdering::Multicolour},
      {KrylovPreset::BiCgStab2Ilu0Mc, KrylovMethod::BiCgStabL, PreconditionerKind::Ilu0, KrylovOrdering::Multicolour},
      {KrylovPreset::PcgChebyshev, KrylovMethod::Cg, PreconditionerKind::Chebyshev},
      {KrylovPreset::Gmres, KrylovMethod::Gmres, PreconditionerKind::None},
      {KrylovPreset::GmresIlu0, KrylovMethod::Gmres, PreconditionerKind::Ilu0},
      {KrylovPreset::GmresJacobi, KrylovMethod::Gmres, PreconditionerKind::Jacobi},
      {KrylovPreset::Minres, KrylovMethod::Minres, PreconditionerKind::None},
      {KrylovPreset::MinresJacobi, KrylovMethod::Minres, PreconditionerKind::Jacobi},
  };
  for (const Row& r : rows)
    if (r.preset == preset) {
      KrylovOptions o;
      o.method = r.method;
      o.preconditioner = r.preconditioner;
      o.ordering = r.ordering;
      o.l = 2;
      return o;
    }
  throw Error("krylov_options: unknown preset " + std::to_string(int(preset)));
} catch (...) {
  rethrow_as_balsa_error("krylov_options");
}

}  // namespace balsa
