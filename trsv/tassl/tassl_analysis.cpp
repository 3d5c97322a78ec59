// TASSL's analysis with its metrics and stage times (include/balsa/trsv_model.hpp,
// tassl::analyse): what `balsa trsv --explain` prints.
#include <chrono>
#include <string>

#include "balsa/cuda.hpp"
#include "balsa/trsv_model.hpp"
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"
#include "trsv/tassl/tassl_metrics.hpp"
#include "trsv/tassl/tassl_stats.hpp"
#include "core/clock.hpp"
#include "core/exceptions.hpp"

namespace balsa::tassl {

template <class T>
Analysis analyse(const Csr<T>& A, Triangle tri, index_t n_max) try {
  if (A.rows != A.cols)
    throw DimensionError("TASSL analysis: the matrix is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) +
                         ", not square");
  if (n_max < 0 || n_max > kMaxSubgraphVertices)
    throw DimensionError("TASSL analysis: n_max must be 0 (automatic) or 1.." + std::to_string(kMaxSubgraphVertices) +
                         ", got " + std::to_string(n_max));
  Analysis a;
  a.n_max = n_max > 0              ? n_max
            : cuda::available()   ? trsv_gpu::tassl_default_n_max(sizeof(T))
                                  : default_n_max(kDefaultSharedBytes, sizeof(T));
  auto t = Clock::now();
  const LevelSets levels = level_sets(A, tri);
  a.levels_seconds = seconds_since(t);
  t = Clock::now();
  const Partition P = partition(A, tri, a.n_max);
  a.partition_seconds = seconds_since(t);
  t = Clock::now();
  const Schedule S = schedule(A, tri, P);
  a.schedule_seconds = seconds_since(t);
  t = Clock::now();
  const Layout layout = lay_out(P, S);
  a.layout_seconds = seconds_since(t);
  a.components_seconds = P.stats.components_seconds;
  a.graph_seconds = P.stats.graph_seconds;
  a.split_seconds = P.stats.split_seconds;
  a.metrics = metrics(A, tri, levels, P, S, &layout);
  a.stats = summarize(P, S, layout);
  return a;
} catch (...) {
  rethrow_as_balsa_error("analyse");
}

#define BALSA_INSTANTIATE(T) template Analysis analyse<T>(const Csr<T>&, Triangle, index_t);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::tassl
