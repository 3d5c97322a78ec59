// Internal: what balsa::solve measures: A's cheap features (Auto's input,
// include/balsa/solve.hpp) and an answer's backward errors (its acceptance).
#pragma once

#include <cmath>
#include <span>

#include "balsa/solve.hpp"

namespace balsa::solve_detail {

// One pass over A (rows in parallel) plus the symmetry test.
template <class T>
SolveFeatures features(const Csr<T>& A);

struct BackwardErrors {
  double normwise = INFINITY;       // ||r||_inf / (||A||_inf ||x||_inf + ||b||_inf)
  double componentwise = INFINITY;  // max_i |r_i| / (|A| |x| + |b|)_i (Oettli-Prager; 0/0 = 0)
  double relative_residual = INFINITY;  // ||r||_2 / ||b||_2
};

// r = b - A x in double; norm_inf is ||A||_inf (SolveFeatures::norm_inf).
// A NaN or Inf anywhere gives infinite errors.
template <class T>
BackwardErrors backward_errors(const Csr<T>& A, double norm_inf, std::span<const T> b, std::span<const T> x);

// Whether `e` meets `tolerance` by the acceptance asked.
bool accepted(const BackwardErrors& e, double tolerance, Acceptance how);

}  // namespace balsa::solve_detail
