// balsa reorder A.mtx: the reorderings of SaP's sparse pipeline (Li, Serban
// & Negrut, "SaP::GPU", sec. 2.2.1 and 3.3; include/balsa/reorder.hpp):
// optionally diagonal boosting (--db: the maximum-product matching and its
// scaling, B = D_r Q A D_c), then Cuthill-McKee (--cm) or reverse
// Cuthill-McKee (--rcm) on the pattern of B + B^T. Prints the half-bandwidth
// before and after, the starts and components of the CM search and the
// times; -o writes the reordered matrix P B P^T.
#include <fmt/core.h>

#include <optional>

#include "common.hpp"

namespace balsa::app {

namespace {

struct ReorderOptions {
  std::string matrix;
  bool db = false, cm = false, rcm = false, json = false;
  int max_starts = CuthillMcKeeOptions{}.max_starts;
  std::string output;
};

nlohmann::json db_json(const DiagonalBoosting& db) {
  nlohmann::json j = {{"structural_rank", db.structural_rank}, {"log_product", db.log_product}};
  j.update(fields_json(db.stats));
  return j;
}

void run_reorder(const ReorderOptions& o) {
  refuse_overwriting({o.matrix}, {o.output});
  std::FILE* report = report_stream(o.json, o.output);
  const LoadedMatrix<double> m = load_matrix<double>(o.matrix);
  const Csr<double>& A = m.A;
  if (A.rows != A.cols)
    throw DimensionError(fmt::format("{}: the matrix is {} x {}, a reordering needs a square one", o.matrix, A.rows,
                                     A.cols));
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
  const index_t k_final = cm ? cm->bandwidth_after : half_bandwidth(source);

  if (!o.output.empty()) save_matrix(o.output, cm ? permute_symmetric(source, cm->perm) : source);
  if (o.json) {
    nlohmann::json j = {{"matrix", o.matrix}, {"n", A.rows}, {"nnz", A.nnz()},
                        {"bandwidth_before", k_input}, {"bandwidth_after", k_final}};
    if (db) j["db"] = db_json(*db);
    if (cm)
      j["cm"] = {{"reverse", o.rcm},
                 {"bandwidth_before", cm->bandwidth_before},
                 {"bandwidth_after", cm->bandwidth_after},
                 {"starts", cm->starts},
                 {"components", cm->components},
                 {"max_starts", o.max_starts},
                 {"ordering_seconds", cm->seconds}};
    print_json(j);
    return;
  }
  fmt::print(report, "balsa reorder: {} ({} x {}, {} entries)\n", o.matrix, A.rows, A.cols, A.nnz());
  fmt::print(report, "  half-bandwidth of A + A^T: {}\n", k_input);
  if (db)
    fmt::print(report, "  DB: structural rank {}, log product {:.6g}, {} initial matches, {} augmentations, {:.4f} s;"
               " half-bandwidth {}\n", db->structural_rank, db->log_product, db->stats.initial_matches,
               db->stats.augmentations, db->stats.t_total, half_bandwidth(B));
  if (cm)
    fmt::print(report, "  {}: half-bandwidth {} -> {}, {} start nodes tried in {} connected components, {:.4f} s\n",
               o.rcm ? "RCM" : "CM", cm->bandwidth_before, cm->bandwidth_after, cm->starts, cm->components,
               cm->seconds);
  fmt::print(report, "  half-bandwidth {} -> {}\n", k_input, k_final);
  if (!o.output.empty() && o.output != "-")
    fmt::print(report, "balsa reorder: wrote {} x {}, {} nonzeros to {}\n", A.rows, A.cols, source.nnz(), o.output);
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
  cmd->add_flag("--json", o->json, "Print JSON instead of text");
  cmd->add_option("-o,--output", o->output, "Write the reordered matrix here ('-' for standard output)");
  cmd->callback([o] { run_reorder(*o); });
}

}  // namespace balsa::app
