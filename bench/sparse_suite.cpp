// balsa-bench sparse: the systems (bench/sparse_bench.hpp): the square
// real matrices of the data folder, with their kind and SPD flag from its
// manifest-suite.csv, and the generated convection-diffusion systems.
#include <fmt/core.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "bench.hpp"
#include "balsa/generators.hpp"
#include "balsa/matrix_market.hpp"
#include "sparse_bench.hpp"

namespace balsa::bench {

namespace {

// manifest-suite.csv: file -> {kind, spd} (quoted fields may hold commas).
std::map<std::string, std::pair<std::string, std::string>> read_manifest(const std::filesystem::path& file) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  std::ifstream in(file);
  std::string line;
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    std::vector<std::string> f(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) f.emplace_back();
      else f.back() += c;
    }
    if (header.empty()) {
      header = f;
      continue;
    }
    auto field = [&](const char* name) {
      const auto it = std::find(header.begin(), header.end(), name);
      const auto i = std::size_t(it - header.begin());
      return it != header.end() && i < f.size() && !f[i].empty() ? f[i] : std::string();
    };
    const std::string spd = field("spd");
    out[field("file")] = {field("kind").empty() ? "-" : field("kind"),
                          spd == "True" ? "yes" : spd == "False" ? "no" : "?"};
  }
  return out;
}

// --only: the systems whose name contains one of its strings (all when empty).
bool wanted(const SparseBenchOptions& o, const std::string& name) {
  return o.only.empty() ||
         std::any_of(o.only.begin(), o.only.end(), [&](const std::string& s) { return name.find(s) != std::string::npos; });
}

void add_real(const SparseBenchOptions& o, std::vector<SparseCandidate>& out, std::vector<SkippedSystem>& skipped) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(o.data_dir))  // a suite of real matrices without them measures nothing
    throw Error(fmt::format("--data-dir {}: not a folder; give the folder of the real matrices (*.mtx, *.mtx.gz), "
                            "or --suite generated",
                            o.data_dir));
  const auto manifest = read_manifest(fs::path(o.data_dir) / "manifest-suite.csv");
  std::map<std::string, fs::path> files;  // name -> file (X.mtx before X.mtx.gz)
  for (const auto& e : fs::directory_iterator(o.data_dir)) {
    const std::string f = e.path().filename().string();
    const bool gz = f.ends_with(".mtx.gz");
    if (!gz && !f.ends_with(".mtx")) continue;
    const std::string name = f.substr(0, f.size() - (gz ? 7 : 4));
    if (!files.count(name) || !gz) files[name] = e.path();
  }
  // The quick suite: small ones (seconds in all; nnc1374, which balsa's chain
  // takes 15 s to give up on, left out), those of them that are there.
  const std::set<std::string> quick_names = {"bcsstk13", "dwt_992", "hangGlider_2", "jagmesh7",
                                             "olm1000",  "temp",    "watt_2",       "west0479"};
  for (const auto& [name, path] : files) {
    if (!wanted(o, name)) continue;
    try {
      const MtxHeader h = read_matrix_market_header(path);
      if (h.rows != h.cols) {
        skipped.push_back({name, fmt::format("rectangular ({} x {})", h.rows, h.cols)});
        continue;
      }
      if (o.suite == "quick" && !quick_names.count(name)) continue;
      SparseCandidate c;
      c.name = name;
      c.group = "real";
      c.source = path.string();
      c.n = h.rows;
      const auto m = manifest.find(path.filename().string());
      if (m != manifest.end()) std::tie(c.kind, c.spd) = m->second;
      c.build = [path] { return read_bench_matrix(path); };
      out.push_back(c);
    } catch (const std::exception& e) {
      skipped.push_back({name, std::string("unreadable: ") + e.what()});
    }
  }
}

// Convection-diffusion, randomly permuted (rows and columns) and row-scaled
// 10^-3 .. 10^3 unless `natural`.
void add_generated(const SparseBenchOptions& o, std::vector<SparseCandidate>& out) {
  auto cd = [&](index_t nx, index_t ny, index_t nz, double pe, ConvectionScheme scheme, bool natural = false) {
    const std::string grid = nz > 1 ? fmt::format("cd3d-{}^3", nx) : fmt::format("cd2d-{}^2", nx);
    SparseCandidate c;
    c.name = fmt::format("{}-pe{:g}-{}{}", grid, pe, to_string(scheme), natural ? "" : "-scrambled");
    c.group = "generated";
    c.source = fmt::format("convection_diffusion_3d({}, {}, {}, {:g}, {}){}", nx, ny, nz, pe, to_string(scheme),
                           natural ? "" : " scrambled (seed 1)");
    c.kind = natural ? "convection-diffusion" : "convection-diffusion, scrambled";
    c.spd = "no";
    c.n = nx * ny * nz;
    c.build = [=] {
      Csr<double> A = convection_diffusion_3d<double>(nx, ny, nz, pe, scheme);
      return natural ? A : scramble(A, 1);
    };
    out.push_back(c);
  };
  const auto up = ConvectionScheme::Upwind, central = ConvectionScheme::Central;
  if (o.suite == "quick") {
    cd(40, 40, 1, 100, up);
    cd(12, 12, 12, 100, central);
    return;
  }
  cd(32, 32, 32, 10, up);
  cd(32, 32, 32, 1000, up);
  cd(32, 32, 32, 100, central);
  cd(32, 32, 32, 1000, central);
  cd(64, 64, 64, 100, up, true);
  cd(64, 64, 64, 100, up);
  cd(64, 64, 64, 100, central);
  cd(1024, 1024, 1, 100, up);
  cd(100, 100, 100, 100, up);
  cd(128, 128, 128, 100, up);
}

}  // namespace

std::vector<SparseCandidate> sparse_suite(const SparseBenchOptions& o, std::vector<SkippedSystem>& skipped) {
  std::vector<SparseCandidate> cands, chosen;
  if (o.suite != "generated") add_real(o, cands, skipped);
  if (o.suite != "real") add_generated(o, cands);
  for (const SparseCandidate& c : cands) {
    if (!wanted(o, c.name)) continue;
    if (o.max_n > 0 && c.n > o.max_n) {
      skipped.push_back({c.name, fmt::format("{} rows > --max-n {}", c.n, o.max_n)});
      continue;
    }
    chosen.push_back(c);
  }
  return chosen;
}

}  // namespace balsa::bench
