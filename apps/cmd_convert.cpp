// balsa convert IN OUT: storage changes (symmetric -> general, a triangle,
// transpose, permutation, field, array format).
#include <fmt/core.h>

#include <fstream>
#include <functional>
#include <memory>
#include <iostream>

#include "common.hpp"

namespace balsa::app {

namespace {

struct ConvertOptions {
  std::string input, output;
  bool take_triangle = false;  // --triangle given
  Triangle triangle = Triangle::Lower;
  bool strict = false;
  bool transpose = false;
  bool keep_stored = false;  // do not expand symmetric input
  std::string permute;       // "", "random", "reverse"
  std::uint64_t seed = 1;
  MtxWriteOptions write;
  MtxFormat format = MtxFormat::Coordinate;
  bool progress = false;
};

// The new index of every old one for --permute (perm[new] = old): reverse
// needs no array; random takes one of n (memory-checked: valid work of the
// declared size).
std::function<index_t(index_t)> new_index(const ConvertOptions& o, const LoadedTriplets<double>& t) {
  const index_t n = t.census.rows;
  if (o.permute == "reverse") return [n](index_t i) { return n - 1 - i; };
  MemoryPlan plan{matrix_subject(o.input, t.census), {}};
  plan.add("--permute random's permutation and its inverse", vectors_bytes(2, n, sizeof(index_t)));
  require_memory(plan);
  auto inverse = std::make_shared<std::vector<index_t>>(inverse_permutation(random_permutation(n, o.seed)));
  return [inverse](index_t i) { return (*inverse)[std::size_t(i)]; };
}

// The storage changes on the triplets (transpose, permutation, triangle): a
// 1-entry file of any declared size converts at once; only --permute random
// (an array of n) and --format array (the dense values) are sized by n.
void change_triplets(const ConvertOptions& o, LoadedTriplets<double>& t) {
  Coo<double>& A = t.coo;
  if (o.transpose) {
    std::swap(A.rows, A.cols);
    std::swap(A.row_idx, A.col_idx);
  }
  if (!o.permute.empty()) {
    if (A.rows != A.cols)
      throw DimensionError(fmt::format("{}: the matrix is {} x {}, --permute needs a square one", o.input, A.rows,
                                       A.cols));
    const std::function<index_t(index_t)> to_new = new_index(o, t);
    for (std::size_t k = 0; k < A.values.size(); ++k) {
      A.row_idx[k] = to_new(A.row_idx[k]);
      A.col_idx[k] = to_new(A.col_idx[k]);
    }
  }
  if (o.take_triangle) {
    const bool lower = o.triangle == Triangle::Lower;
    std::size_t kept = 0;
    for (std::size_t k = 0; k < A.values.size(); ++k) {
      const index_t i = A.row_idx[k], j = A.col_idx[k];
      if ((lower ? j > i : j < i) || (o.strict && i == j)) continue;
      A.row_idx[kept] = i, A.col_idx[kept] = j, A.values[kept] = A.values[k];
      ++kept;
    }
    A.row_idx.resize(kept), A.col_idx.resize(kept), A.values.resize(kept);
  }
}

void run_convert(const ConvertOptions& o) {
  refuse_overwriting({o.input}, {o.output});
  MtxReadOptions r;
  // Symmetric output is written from the whole matrix (the writer checks the
  // mirror and keeps one triangle), so --keep-stored only applies to general output.
  r.expand_symmetry = !o.keep_stored || o.write.symmetry != MtxSymmetry::General;
  ProgressLine progress(o.progress, o.output == "-");
  progress.phase("reading");
  LoadedTriplets<double> t = load_triplets<double>(o.input, r);
  progress.phase("converting and writing");
  change_triplets(o, t);
  const Coo<double> A = sorted_coo(t.coo);
  if (o.format == MtxFormat::Array) {
    MemoryPlan plan{matrix_subject(o.input, t.census), {}};
    plan.add("its dense values", vectors_bytes(A.rows, A.cols, sizeof(double)));
    require_memory(plan);
    save_matrix(o.output, to_dense(to_csr(A)), o.write);
  } else {
    save_matrix(o.output, A, o.write);
  }
  progress.stop();
  if (o.output != "-")
    fmt::print(stderr, "balsa convert: wrote {} x {}, {} nonzeros to {}\n", A.rows, A.cols, A.nnz(), o.output);
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Rewrite a Matrix Market file: expand symmetric storage, take a triangle, transpose, permute");
  cmd->add_option("input", o->input, "Input Matrix Market file ('-' for standard input)")->required();
  cmd->add_option("output", o->output, "Output file ('-' for standard output; a name ending in .gz: gzip)")->required();
  CLI::Option* tri = add_enum_option(cmd, "--triangle", o->triangle, "Keep only this triangle", {}, false);
  cmd->add_flag("--strict", o->strict, "With --triangle: drop the diagonal too");
  cmd->add_flag("--transpose", o->transpose, "Transpose (before taking a triangle)");
  cmd->add_flag("--keep-stored", o->keep_stored, "With general output: keep only the stored triangle of a symmetric file");
  cmd->add_option("--permute", o->permute, "Symmetric permutation: random (from --seed) or reverse")
      ->check(CLI::IsMember({"random", "reverse"}));
  cmd->add_option("--seed", o->seed, "Seed of --permute random")->capture_default_str();
  add_enum_option(cmd, "--storage", o->write.symmetry, "Output storage",
                  {MtxSymmetry::General, MtxSymmetry::Symmetric, MtxSymmetry::SkewSymmetric});
  add_enum_option(cmd, "--field", o->write.field, "Output field", {MtxField::Real, MtxField::Integer, MtxField::Pattern});
  add_enum_option(cmd, "--format", o->format, "Output format");
  add_progress_option(cmd, o->progress);
  cmd->callback([o, tri] {
    o->take_triangle = tri->count() > 0;
    run_convert(*o);
  });
}

}  // namespace balsa::app
