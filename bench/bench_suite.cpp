// balsa-bench trsv: the suites (generator cases and the real matrices of
// tests/data) and the algorithms the benchmark knows.
#include <fmt/core.h>

#include <algorithm>
#include <system_error>

#include "bench.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "bench_math.hpp"
#include "trsv_bench.hpp"

namespace balsa::bench {

const std::vector<AlgorithmSpec>& algorithm_specs() {
  static const std::vector<AlgorithmSpec> specs = [] {
    std::vector<AlgorithmSpec> v = {{to_string(TrsvAlgorithm::Reference), TrsvAlgorithm::Reference, Device::Cpu}};
    for (const TrsvAlgorithm a : {TrsvAlgorithm::LevelSet, TrsvAlgorithm::Spike})
      v.push_back({std::string(to_string(a)) + "-cpu", a, Device::Cpu});
    for (const TrsvAlgorithm a : {TrsvAlgorithm::LevelSet, TrsvAlgorithm::SyncFree, TrsvAlgorithm::SyncFreeCsc,
                                  TrsvAlgorithm::Tassl, TrsvAlgorithm::SyncFreeBlocks, TrsvAlgorithm::Spike,
                                  TrsvAlgorithm::Cusparse, TrsvAlgorithm::Auto})
      v.push_back({to_string(a), a, Device::Cuda});
    return v;
  }();
  return specs;
}

std::vector<std::string> trsv_bench_algorithms() {
  std::vector<std::string> names;
  for (const AlgorithmSpec& a : algorithm_specs()) names.push_back(a.name);
  return names;
}

namespace {

using Builder = std::function<Csr<double>(std::string&, index_t&)>;

BenchCase generated(std::string name, std::function<Csr<double>()> make) {
  return {std::move(name), "generator", [make](std::string&, index_t&) { return make(); }};
}

// Lower triangle of a symmetric generator matrix (the full one is freed at once).
Csr<double> lower_of(Csr<double> A) { return extract_triangle(A, Triangle::Lower); }

Csr<double> lap2d(index_t n) { return lower_of(laplacian_2d<double>(n, n)); }
Csr<double> lap3d(index_t n, Stencil3d s) { return lower_of(laplacian_3d<double>(n, n, n, s)); }

std::string percent(double density) {
  std::string s = fmt::format("{:g}", density * 100.0);
  return s + "%";
}

void add_generator_cases(std::vector<BenchCase>& cases, bool quick) {
  const index_t g2 = quick ? 100 : 2000, g7 = quick ? 20 : 160, g27 = quick ? 12 : 100;
  cases.push_back(generated(fmt::format("lap2d-5pt-{}^2", g2), [=] { return lap2d(g2); }));
  cases.push_back(generated(fmt::format("lap3d-7pt-{}^3", g7), [=] { return lap3d(g7, Stencil3d::Point7); }));
  cases.push_back(generated(fmt::format("lap3d-27pt-{}^3", g27), [=] { return lap3d(g27, Stencil3d::Point27); }));
  struct Banded {
    index_t rows, window, per_row;
  };
  const std::vector<Banded> banded =
      quick ? std::vector<Banded>{{20000, 50, 4}} : std::vector<Banded>{{1'000'000, 50, 4}, {4'000'000, 1000, 8}};
  for (const Banded b : banded)
    cases.push_back(generated(fmt::format("banded-{}-w{}-k{}", b.rows, b.window, b.per_row),
                              [=] { return random_lower_banded<double>(b.rows, b.window, b.per_row); }));
  struct Block {
    index_t blocks, size;
    double density;
  };
  const std::vector<Block> blocks =
      quick ? std::vector<Block>{{8, 500, 0.01}} : std::vector<Block>{{16, 55000, 0.001}, {512, 6000, 0.01}};
  for (const Block b : blocks)
    cases.push_back(generated(fmt::format("blockdiag-{}x{}-{}", b.blocks, b.size, percent(b.density)),
                              [=] { return random_block_diagonal_lower<double>(b.blocks, b.size, b.density); }));
}

// The TASSL paper's block-diagonal experiments (Picciau et al. 2016, Sect. 5;
// thesis Sect. 5.2): 16 blocks of 250 .. 55,000 rows at 0.1% density, and 8 ..
// 512 blocks of 6,000 rows at 1%: concurrency from the number and size of
// independent components.
void add_tassl_paper_cases(std::vector<BenchCase>& cases) {
  for (const index_t size : {250, 1000, 4000, 16000, 55000})
    cases.push_back(generated(fmt::format("blockdiag-16x{}-0.1%", size),
                              [=] { return random_block_diagonal_lower<double>(16, size, 0.001); }));
  for (const index_t blocks : {8, 32, 128, 512})
    cases.push_back(generated(fmt::format("blockdiag-{}x6000-1%", blocks),
                              [=] { return random_block_diagonal_lower<double>(blocks, 6000, 0.01); }));
}

// The IC(0) factor L of an SPD matrix (on the CPU, shifted if it must be).
Csr<double> ic0_factor(const Csr<double>& A) {
  return IncompleteFactorization<double>(A, {.kind = IncompleteKind::Ic0, .device = Device::Cpu}).factors();
}

// Issue 28's deep narrow chains: a random band, the IC(0) factors of the
// thesis' banded family at n = 1e6 (L and, as its reversal, L^T: the two
// solves of an IC(0) iteration) and the 3D Laplacians' IC(0) factors.
void add_chain_cases(std::vector<BenchCase>& cases) {
  cases.push_back(generated("banded-1000000-w50-k4", [] { return random_lower_banded<double>(1'000'000, 50, 4); }));
  for (const double mu : {1e-4, 1e-2}) {
    const std::string name = fmt::format("thesis-ic0-1e6-mu{:g}", mu);
    cases.push_back(generated(name + "-L", [=] { return ic0_factor(thesis_banded_spd<double>(1'000'000, mu)); }));
    cases.push_back(generated(name + "-LT", [=] {
      return reversed(transpose(ic0_factor(thesis_banded_spd<double>(1'000'000, mu))));
    }));
  }
  for (const index_t g : {index_t(100), index_t(160)})
    cases.push_back(generated(fmt::format("lap3d-7pt-{}^3-ic0-L", g),
                              [=] { return ic0_factor(laplacian_3d<double>(g, g, g)); }));
}

}  // namespace

Csr<double> reversed(const Csr<double>& U) {
  const index_t n = U.rows;
  Csr<double> L{n, n, std::vector<index_t>(std::size_t(n) + 1, 0), std::vector<index_t>(U.col_idx.size()),
                std::vector<double>(U.values.size())};
  for (index_t i = 0; i < n; ++i) {
    const index_t r = n - 1 - i;
    index_t q = L.row_ptr[i];
    for (index_t p = U.row_ptr[r + 1] - 1; p >= U.row_ptr[r]; --p, ++q) {
      L.col_idx[q] = n - 1 - U.col_idx[p];
      L.values[q] = U.values[p];
    }
    L.row_ptr[i + 1] = q;
  }
  return L;
}

std::filesystem::path find_data_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path given(dir);
  if (fs::is_directory(given, ec)) return given;
  if (given.is_absolute()) return {};
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return {};
  // build/balsa -> build/, the source tree, one more level up.
  for (const fs::path& base :
       {exe.parent_path(), exe.parent_path().parent_path(), exe.parent_path().parent_path().parent_path()})
    if (!base.empty() && fs::is_directory(base / given, ec)) return base / given;
  return {};
}

BenchCase file_case(const std::filesystem::path& file, bool upper) {
  BenchCase c;
  c.name = file.stem().string();
  if (c.name.ends_with(".mtx")) c.name.resize(c.name.size() - 4);  // name.mtx.gz
  if (upper) c.name += " (upper)";
  c.source = file.string();
  c.build = [file, upper](std::string& note, index_t& diag_fixed) {
    std::vector<std::string> notes;
    Csr<double> A = read_bench_matrix(file);
    if (A.rows != A.cols) {
      const index_t m = std::min(A.rows, A.cols);
      notes.push_back(fmt::format("leading {}x{} block of the {}x{} matrix", m, m, A.rows, A.cols));
      A = leading_square_block(A);
    }
    Csr<double> L = upper ? reversed(extract_triangle(A, Triangle::Upper)) : extract_triangle(A, Triangle::Lower);
    A = {};
    require_finite(L);
    diag_fixed = fix_diagonal(L);
    if (diag_fixed) notes.push_back(fmt::format("{} missing/zero diagonal entries set to sum|l_ij|+1", diag_fixed));
    // A triangle whose substitution blows up (|x| beyond float's range, or
    // overflow) cannot be checked nor timed meaningfully: make it dominant.
    const std::vector<double> b = random_vector<double>(L.rows, 7);
    std::vector<double> x(b.size());
    trsv_reference(L, Triangle::Lower, DiagonalKind::NonUnit, std::span<const double>(b), std::span<double>(x));
    if (!(norm_inf(std::span<const double>(x)) < 1e30)) {
      diag_fixed = fix_diagonal(L, true);
      notes.push_back("substitution overflows (|x| > 1e30): every diagonal set to sum|l_ij|+1");
    }
    for (const std::string& s : notes) note += (note.empty() ? "" : "; ") + s;
    return L;
  };
  return c;
}

std::vector<BenchCase> make_suite(const BenchOptions& o, std::vector<std::string>& warnings) {
  namespace fs = std::filesystem;
  std::vector<BenchCase> cases;
  const bool quick = o.quick || o.suite == "quick";
  if (o.suite != "none" || o.quick) {
    if (o.suite == "tassl-paper")
      add_tassl_paper_cases(cases);
    else if (o.suite == "chains")
      add_chain_cases(cases);
    else
      add_generator_cases(cases, quick);
    const fs::path dir = find_data_dir(o.data_dir);
    if (dir.empty()) {
      warnings.push_back("data folder '" + o.data_dir + "' not found: real matrices skipped");
    } else {
      std::vector<fs::path> files;
      std::error_code ec;
      for (const fs::directory_entry& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".mtx" || e.path().string().ends_with(".mtx.gz")) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      if (quick) {  // three small real matrices: SPD, zero diagonals, unsymmetric
        std::vector<fs::path> picked;
        for (const char* name : {"bcsstk13.mtx", "west0479.mtx", "cryg2500.mtx"})
          for (const fs::path& f : files)
            if (f.filename() == name) picked.push_back(f);
        files = picked;
      }
      if (files.empty()) warnings.push_back("no .mtx files in " + dir.string());
      for (const fs::path& f : files) {
        cases.push_back(file_case(f, false));
        if (o.upper) cases.push_back(file_case(f, true));
      }
    }
  }
  for (const std::string& f : o.files) {
    cases.push_back(file_case(f, false));
    if (o.upper) cases.push_back(file_case(f, true));
  }
  if (!o.only.empty()) {
    std::erase_if(cases, [&](const BenchCase& c) {
      return std::none_of(o.only.begin(), o.only.end(),
                          [&](const std::string& s) { return c.name.find(s) != std::string::npos; });
    });
  }
  return cases;
}

}  // namespace balsa::bench
