// balsa reorder A.mtx: the reorderings of SaP's sparse pipeline (Li, Serban
// & Negrut, "SaP::GPU", sec. 2.2.1 and 3.3; include/balsa/reorder.hpp):
// optionally diagonal boosting (--db: the maximum-product matching and its
// scaling, B = D_r Q A D_c), then Cuthill-McKee (--cm) or reverse
// Cuthill-McKee (--rcm) on the pattern of B + B^T. Prints the half-bandwidth
// before and after, the starts and components of the CM search and the
// times; -o writes the reordered matrix P B P^T.
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "common.hpp"

namespace balsa::app {

namespace {

struct ReorderOptions {
  std::string matrix;
  bool db = false, cm = false, rcm = false;
  JsonOutput json;
  int max_starts = CuthillMcKeeOptions{}.max_starts;
  std::string output;
  bool progress = false;
  ProgressLine* line = nullptr;  // the run's progress line, stopped before the report
};

nlohmann::json db_json(const DiagonalBoosting& db) {
  nlohmann::json j = {{"structural_rank", db.structural_rank}, {"log_product", db.log_product}};
  j.update(fields_json(db.stats));
  return j;
}

// The report: A's size, the bandwidths, DB's and CM's results (B: DB's
// matrix, or null); `occupied` of the n indices hold an entry in their row
// or column.
void report_reorder(const ReorderOptions& o, std::FILE* report, index_t n, std::int64_t nnz, index_t k_input,
                    const std::optional<DiagonalBoosting>& db, const Csr<double>* B, const std::optional<Ordering>& cm,
                    index_t occupied) {
  if (o.line) o.line->stop();
  const index_t k_final = cm ? cm->bandwidth_after : B ? half_bandwidth(*B) : k_input;
  if (o.json) {
    nlohmann::json j = {{"matrix", o.matrix}, {"n", n}, {"nnz", nnz},
                        {"bandwidth_before", k_input}, {"bandwidth_after", k_final}};
    if (occupied < n) j["occupied"] = occupied;
    if (db) j["db"] = db_json(*db);
    if (cm)
      j["cm"] = {{"reverse", o.rcm},
                 {"bandwidth_before", cm->bandwidth_before},
                 {"bandwidth_after", cm->bandwidth_after},
                 {"starts", cm->starts},
                 {"components", cm->components},
                 {"max_starts", o.max_starts},
                 {"ordering_seconds", cm->seconds}};
    print_json(j, o.json.path);
    return;
  }
  fmt::print(report, "balsa reorder: {} ({} x {}, {} entries)\n", o.matrix, n, n, nnz);
  if (occupied < n)
    fmt::print(report, "  {} of {} indices hold no entry in their row or column: CM ran on the {} others; the empty "
               "ones come last\n", n - occupied, n, occupied);
  fmt::print(report, "  half-bandwidth of A + A^T: {}\n", k_input);
  if (db)
    fmt::print(report, "  DB: structural rank {}, log product {:.6g}, {} initial matches, {} augmentations, {:.4f} s;"
               " half-bandwidth {}\n", db->structural_rank, db->log_product, db->stats.initial_matches,
               db->stats.augmentations, db->stats.t_total, half_bandwidth(*B));
  if (cm)
    fmt::print(report, "  {}: half-bandwidth {} -> {}, {} start nodes tried in {} connected components, {:.4f} s\n",
               o.rcm ? "RCM" : "CM", cm->bandwidth_before, cm->bandwidth_after, cm->starts, cm->components,
               cm->seconds);
  fmt::print(report, "  half-bandwidth {} -> {}\n", k_input, k_final);
  if (!o.output.empty() && o.output != "-")
    fmt::print(report, "balsa reorder: wrote {} x {}, {} nonzeros to {}\n", n, n, nnz, o.output);
}

// The indices of a square A that hold an entry in their row or column, sorted.
std::vector<index_t> occupied_indices(const Coo<double>& A) {
  std::vector<index_t> ids(A.row_idx);
  ids.insert(ids.end(), A.col_idx.begin(), A.col_idx.end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

// CM without --db when some indices hold no entry (an empty row and column):
// it runs on the sub-matrix S of the occupied ones (renumbered in order),
// whose arrays are sized by the entries. The empty indices are components
// of one node each; they come last in the ordering, so P A P^T's bandwidth
// is that of S reordered; the bandwidth before is A's (from the census).
// -o writes P A P^T from triplets.
Ordering reorder_occupied(const ReorderOptions& o, LoadedTriplets<double>& t, const std::vector<index_t>& ids) {
  const auto id = [&ids](index_t i) { return index_t(std::lower_bound(ids.begin(), ids.end(), i) - ids.begin()); };
  Coo<double> S{index_t(ids.size()), index_t(ids.size()), {}, {}, t.coo.values};
  for (std::size_t k = 0; k < t.coo.values.size(); ++k) {
    S.row_idx.push_back(id(t.coo.row_idx[k]));
    S.col_idx.push_back(id(t.coo.col_idx[k]));
  }
  Ordering cm = cuthill_mckee(to_csr(S), {.reverse = o.rcm, .max_starts = o.max_starts});
  const index_t empty = t.census.rows - index_t(ids.size());
  cm.bandwidth_before = std::max(t.census.lower_bandwidth, t.census.upper_bandwidth);
  cm.components += empty;
  cm.starts += empty;
  if (!o.output.empty()) {
    std::vector<index_t> place(ids.size());  // S's index -> its place in the ordering
    for (std::size_t p = 0; p < cm.perm.size(); ++p) place[std::size_t(cm.perm[p])] = index_t(p);
    Coo<double>& A = t.coo;
    for (std::size_t k = 0; k < A.values.size(); ++k) {
      A.row_idx[k] = place[std::size_t(id(A.row_idx[k]))];
      A.col_idx[k] = place[std::size_t(id(A.col_idx[k]))];
    }
    save_matrix(o.output, A);
  }
  cm.perm.clear();  // (S's, not A's)
  return cm;
}

// The memory of the whole matrix's path beside A's CSR: DB's matching,
// scaling and B, CM's pattern of A + A^T, P B P^T for -o (at least 3 copies
// of A and 12 vectors of n).
void plan_reorder(const EntryCensus& c, MemoryPlan& plan) {
  plan.add("DB, CM and the reordered copy (at least 3 copies of A and 12 vectors of n)",
           3 * csr_bytes(c.rows, c.positions, sizeof(double)) + vectors_bytes(12, c.rows, sizeof(double)));
}

void run_reorder(const ReorderOptions& o) {
  refuse_overwriting({o.matrix}, {o.output});
  std::FILE* report = report_stream(o.json, o.output);
  LoadedTriplets<double> t = load_triplets<double>(o.matrix);
  const EntryCensus c = t.census;
  if (c.rows != c.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, a reordering needs a square one", o.matrix, c.rows,
                                     c.cols));
  // Without --db, CM needs only the occupied indices (--db's matching runs on the whole matrix).
  if (const std::vector<index_t> ids = occupied_indices(t.coo); !o.db && index_t(ids.size()) < c.rows) {
    const Ordering cm = reorder_occupied(o, t, ids);
    return report_reorder(o, report, c.rows, c.positions, cm.bandwidth_before, std::nullopt, nullptr, cm,
                          index_t(ids.size()));
  }
  const LoadedMatrix<double> m = to_loaded_matrix(o.matrix, std::move(t), plan_reorder);
  const Csr<double>& A = m.A;
  // Without --cm or --rcm: CM, unless --db alone asks for the matching only.
  const bool run_cm = o.cm || o.rcm || !o.db;
  const index_t k_input = half_bandwidth(A);  // max |i - j| of A's entries: that of A + A^T
  std::optional<DiagonalBoosting> db;
  Csr<double> B;
  if (o.db) {
    db = diagonal_boosting(A);
    B = apply_boosting(A, *db);
  }
  const Csr<double>& source = o.db ? B : A;
  std::optional<Ordering> cm;
  if (run_cm) cm = cuthill_mckee(source, {.reverse = o.rcm, .max_starts = o.max_starts});
  if (!o.output.empty()) save_matrix(o.output, cm ? permute_symmetric(source, cm->perm) : source);
  report_reorder(o, report, A.rows, A.nnz(), k_input, db, o.db ? &B : nullptr, cm, A.rows);
}

}  // namespace

void add_reorder_command(CLI::App& app) {
  auto o = std::make_shared<ReorderOptions>();
  CLI::App* cmd = app.add_subcommand(
      "reorder", "Reorder a square matrix as SaP does: diagonal boosting (--db), then Cuthill-McKee (--cm, --rcm)");
  cmd->add_option("matrix", o->matrix, "Matrix Market file ('-' for standard input)")->required();
  cmd->add_flag("--db", o->db, "Diagonal boosting first: maximum-product matching and scaling (alone: no CM)");
  CLI::Option* cm = cmd->add_flag("--cm", o->cm, "Cuthill-McKee (the default unless --db is given alone)");
  CLI::Option* rcm = cmd->add_flag("--rcm", o->rcm, "Reverse Cuthill-McKee (same bandwidth, smaller profile)");
  cm->excludes(rcm);
  rcm->excludes(cm);
  cmd->add_option("--max-starts", o->max_starts, "Start nodes tried per component, at most")
      ->check(at_least(1))
      ->capture_default_str();
  add_json_option(cmd, o->json, "Print JSON instead of text");
  cmd->add_option("-o,--output", o->output, "Write the reordered matrix here ('-' for standard output)")
      ->option_text(" FILE");
  add_progress_option(cmd, o->progress);
  cmd->callback([o] {
    ProgressLine progress(o->progress, o->json.to_stdout() || o->output == "-");
    progress.phase("reading and reordering");
    o->line = &progress;
    run_reorder(*o);
    o->line = nullptr;
  });
}

}  // namespace balsa::app
