// balsa convert IN OUT: storage changes (symmetric -> general, a triangle,
// transpose, permutation, field, array format).
#include <fmt/core.h>

#include <fstream>
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
};

void run_convert(const ConvertOptions& o) {
  refuse_overwriting({o.input}, {o.output});
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
  if (o.take_triangle) A = extract_triangle(A, o.triangle, o.strict ? Diag::Exclude : Diag::Include);
  if (o.format == MtxFormat::Array) {
    save_matrix(o.output, to_dense(A), o.write);
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
  cmd->callback([o, tri] {
    o->take_triangle = tri->count() > 0;
    run_convert(*o);
  });
}

}  // namespace balsa::app
