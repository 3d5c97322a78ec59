// balsa convert IN OUT: storage changes (symmetric -> general, a triangle,
// transpose, permutation, field, array format).
#include <fmt/core.h>

#include <fstream>
#include <iostream>

#include "balsa/generators.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct ConvertOptions {
  std::string input, output;
  std::string triangle;
  bool strict = false;
  bool transpose = false;
  bool keep_stored = false;  // do not expand symmetric input
  std::string permute;       // "", "random", "reverse"
  std::uint64_t seed = 1;
  MtxWriteOptions write;
  std::string format = "coordinate";
};

const std::map<std::string, MtxField> field_names{
    {"real", MtxField::Real}, {"integer", MtxField::Integer}, {"pattern", MtxField::Pattern}};

void run_convert(const ConvertOptions& o) {
  MtxReadOptions r;
  // Symmetric output is written from the whole matrix (the writer checks the
  // mirror and keeps one triangle), so --keep-stored only applies to general output.
  r.expand_symmetry = !o.keep_stored || o.write.symmetry != MtxSymmetry::General;
  LoadedMatrix<double> m = load_matrix<double>(o.input, r);
  Csr<double> A = std::move(m.A);
  if (o.transpose) A = balsa::transpose(A);
  if (!o.permute.empty()) {
    std::vector<index_t> perm(std::size_t(A.rows));
    if (o.permute == "random")
      perm = random_permutation(A.rows, o.seed);
    else
      for (index_t i = 0; i < A.rows; ++i) perm[i] = A.rows - 1 - i;
    A = permute_symmetric(A, perm);
  }
  if (!o.triangle.empty())
    A = extract_triangle(A, triangle_names().at(o.triangle), o.strict ? Diag::Exclude : Diag::Include);
  if (o.format == "array") {
    const DenseMatrix<double> D = to_dense(A);
    if (o.output == "-")
      write_matrix_market(std::cout, D, o.write);
    else
      write_matrix_market(std::filesystem::path(o.output), D, o.write);
  } else {
    save_matrix(o.output, A, o.write);
  }
  if (o.output != "-") fmt::print(stderr, "balsa convert: wrote {} x {}, {} nonzeros to {}\n", A.rows, A.cols, A.nnz(), o.output);
}

}  // namespace

void add_convert_command(CLI::App& app) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = app.add_subcommand(
      "convert", "Rewrite a Matrix Market file: expand symmetric storage, take a triangle, transpose, permute");
  cmd->add_option("input", o->input, "Input Matrix Market file ('-' for standard input)")->required();
  cmd->add_option("output", o->output, "Output file ('-' for standard output)")->required();
  cmd->add_option("--triangle", o->triangle, "Keep only this triangle")->check(CLI::IsMember({"lower", "upper"}));
  cmd->add_flag("--strict", o->strict, "With --triangle: drop the diagonal too");
  cmd->add_flag("--transpose", o->transpose, "Transpose (before taking a triangle)");
  cmd->add_flag("--keep-stored", o->keep_stored, "With general output: keep only the stored triangle of a symmetric file");
  cmd->add_option("--permute", o->permute, "Symmetric permutation: random (from --seed) or reverse")
      ->check(CLI::IsMember({"random", "reverse"}));
  cmd->add_option("--seed", o->seed, "Seed of --permute random")->capture_default_str();
  cmd->add_option("--storage", o->write.symmetry, "Output storage: general, symmetric or skew-symmetric")
      ->transform(CLI::CheckedTransformer(storage_names()));
  cmd->add_option("--field", o->write.field, "Output field: real, integer or pattern")
      ->transform(CLI::CheckedTransformer(field_names));
  cmd->add_option("--format", o->format, "Output format: coordinate or array")
      ->check(CLI::IsMember({"coordinate", "array"}))
      ->capture_default_str();
  cmd->callback([o] { run_convert(*o); });
}

}  // namespace balsa::app
