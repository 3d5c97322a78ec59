// Internal: TrsvAlgorithm::Auto (see trsv/auto_choice.cpp for the rule):
// the rule on the level statistics, Spike's cost model, and the timed trial.
#pragma once

#include <functional>
#include <memory>

#include "balsa/graph.hpp"
#include "balsa/trsv.hpp"
#include "trsv/backend.hpp"
#include "trsv/spike/spike_plan.hpp"

namespace balsa::trsv_auto {

// Weakly connected components of the dependency graph (edges only; isolated
// vertices not counted), computed only when the rule asks for them.
// TASSL needs at least this many components (see auto_choice.cpp).
inline constexpr index_t kTasslMinComponents = 64;

// The components of the dependency graph that have an edge: their count
// and the largest's rows (or, when the count is below kTasslMinComponents,
// an upper bound below it and any largest: the choice is then the same).
struct Components {
  index_t count = 0;
  index_t largest = 0;
};

// `components` is called at most once; `n_max` is TASSL's sub-graph capacity;
// `threads` the OpenMP threads the CPU solves will run on.
TrsvAlgorithm choose(const TrsvStats& analysis, Device device, int threads, index_t n_max,
                     const std::function<Components()>& components);

// The CPU's level-set solve with one thread costs about twice serial
// substitution (the rows in level order: x is read out of order), so it can
// win with at least kLevelSetMinThreads threads only (auto_choice.cpp has
// the numbers).
inline constexpr int kLevelSetMinThreads = 3;

// The cost model of the level-based GPU algorithms on narrow levels: a level
// costs at least kLevelSeconds (TASSL's rounds on deep chains, the cheapest
// per level of any of them), every stored entry kEntrySeconds (its bytes at
// the GPU's bandwidth). Spike is preferred when its own model
// (analysis.spike.predicted_seconds, trsv/spike/spike_plan.hpp) predicts at
// most kSpikeMargin of that.
inline constexpr double kLevelSeconds = 1.1e-7;
inline constexpr double kEntrySeconds = 4.0e-12;
inline constexpr double kSpikeMargin = 0.8;
double predict_levels_seconds(const TrsvStats& analysis);
bool prefer_spike(const TrsvStats& analysis, Device device);

// Auto on the GPU, a triangle of at most kTrialMaxRows rows with values
// (TrsvOptions::auto_trial): the models' pick is timed against cuSPARSE
// SpSV, and below kTrialAllRows against every GPU algorithm but the
// sync-free ones (kTrialSolves solves each after one warm-up, the solver's
// stream waited for); another is kept when it is faster by kTrialMargin.
// Small triangles are where the models know least (a few levels of long
// rows, dense rows, times within microseconds of each other), and their
// analyses and solves cost milliseconds.
inline constexpr index_t kTrialMaxRows = 200000;
inline constexpr index_t kTrialAllRows = 50000;
inline constexpr int kTrialSolves = 5;
inline constexpr double kTrialMargin = 0.95;

// Auto: calls with at least kManyRhs right-hand sides go to cuSPARSE SpSM
// unless the algorithm solves them in one pass itself (TASSL, Spike): the
// others solve them column by column (100 columns of the 100^3 Laplacian's
// IC(0) factor: 43.4 ms by sync-free blocks, 4.83 ms by SpSM on an H200).
inline constexpr index_t kManyRhs = 4;

// Device::Auto: a host-vector solve of at most kHostSolveMaxWork rows +
// entries costs less by substitution on the host (about 1.5 ns a unit) than
// the GPU's round trip (upload, launch, download: about 20 us).
inline constexpr std::int64_t kHostSolveMaxWork = 12000;
bool host_solves_on_cpu(const TrsvStats& analysis);

// The algorithm the front end sets up for M (the matrix solved, triangle
// `tri`, level sets `levels`): options.algorithm, or for Auto the rule (and
// Spike's model against it); an explicit Spike that cannot take M falls back
// to the rule. `st` holds the front end's fields (rows, nnz, levels); the
// choice fills Spike's model fields (bandwidth, predicted_seconds, fallback)
// when Auto or Spike was asked for. options.device is resolved.
struct Choice {
  TrsvAlgorithm algorithm = TrsvAlgorithm::Auto;
  bool spike_feasible = false;   // Spike could take M (a trial candidate)
  trsv_spike::Partition spike;   // Spike's chains (Auto or Spike asked for)
};
template <class T>
Choice choose_algorithm(const Csr<T>& M, Triangle tri, const LevelSets& levels, const TrsvOptions& options,
                        TrsvStats& st);

// Whether Auto's trial runs: Auto asked for on the GPU (options.device
// resolved), auto_trial, values present, at most kTrialMaxRows rows and an
// off-diagonal entry.
bool runs_trial(const TrsvOptions& options, const TrsvStats& st, bool values_pending);

// The trial: `backend` (the choice, st.algorithm) timed against the other
// candidates, each made by `make`; the fastest (by kTrialMargin for the
// pick) is left in `backend` and st.algorithm; fills st.trial,
// trial_pick_seconds and trial_cusparse_seconds.
template <class T>
using MakeBackend = std::function<std::unique_ptr<trsv::Backend<T>>(TrsvAlgorithm)>;
template <class T>
void trial(std::unique_ptr<trsv::Backend<T>>& backend, TrsvStats& st, bool spike_feasible, const MakeBackend<T>& make);

}  // namespace balsa::trsv_auto
