// The names of the Krylov methods on the command line (`balsa solve
// --method`, `balsa bench solve`): method + preconditioner.
#pragma once

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "balsa/error.hpp"
#include "balsa/krylov.hpp"

namespace balsa::bench {

struct MethodName {
  const char* name;
  KrylovMethod method;
  PreconditionerKind preconditioner;
};

inline const std::vector<MethodName>& method_names() {
  static const std::vector<MethodName> m = {
      {"pcg-ic0", KrylovMethod::Cg, PreconditionerKind::Ic0},
      {"pcg-ilu0", KrylovMethod::Cg, PreconditionerKind::Ilu0},
      {"pcg-jacobi", KrylovMethod::Cg, PreconditionerKind::Jacobi},
      {"cg", KrylovMethod::Cg, PreconditionerKind::None},
      {"bicgstab-ilu0", KrylovMethod::BiCgStab, PreconditionerKind::Ilu0},
      {"bicgstab2-ilu0", KrylovMethod::BiCgStabL, PreconditionerKind::Ilu0},
      {"bicgstab-jacobi", KrylovMethod::BiCgStab, PreconditionerKind::Jacobi},
      {"bicgstab2-jacobi", KrylovMethod::BiCgStabL, PreconditionerKind::Jacobi},
      {"bicgstab", KrylovMethod::BiCgStab, PreconditionerKind::None},
      {"bicgstab2", KrylovMethod::BiCgStabL, PreconditionerKind::None},
  };
  return m;
}

inline std::vector<std::string> method_name_list() {
  std::vector<std::string> v;
  for (const MethodName& m : method_names()) v.push_back(m.name);
  return v;
}

// Options for a method name (l = 2 for the bicgstab2 ones).
inline KrylovOptions method_options(const std::string& name) {
  for (const MethodName& m : method_names())
    if (name == m.name) {
      KrylovOptions o;
      o.method = m.method;
      o.preconditioner = m.preconditioner;
      o.l = 2;
      return o;
    }
  throw Error("unknown method '" + name + "'");
}

// The preconditioner's triangular solver by its to_string name (`--trsv`).
inline constexpr TrsvAlgorithm kTrsvAlgorithms[] = {
    TrsvAlgorithm::Auto,     TrsvAlgorithm::Reference, TrsvAlgorithm::LevelSet, TrsvAlgorithm::SyncFree,
    TrsvAlgorithm::SyncFreeCsc, TrsvAlgorithm::Cusparse, TrsvAlgorithm::Tassl, TrsvAlgorithm::SyncFreeBlocks};
inline std::vector<std::string> trsv_name_list() {
  std::vector<std::string> v;
  for (const TrsvAlgorithm a : kTrsvAlgorithms) v.push_back(to_string(a));
  return v;
}
inline TrsvAlgorithm trsv_algorithm(const std::string& name) {
  for (const TrsvAlgorithm a : kTrsvAlgorithms)
    if (name == to_string(a)) return a;
  throw Error("unknown triangular solver '" + name + "'");
}

// ||x - x_true||_inf / ||x_true||_inf (absolute when x_true = 0); NaN in x
// gives NaN, not 0.
template <class T>
double relative_error(std::span<const T> x, std::span<const T> x_true) {
  double e = 0, m = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = std::abs(double(x[i]) - double(x_true[i]));
    if (std::isnan(d) || d > e) e = d;  // a NaN, once in, stays
    m = std::max(m, std::abs(double(x_true[i])));
  }
  return m > 0 ? e / m : e;
}

}  // namespace balsa::bench
