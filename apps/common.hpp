// Shared pieces of the balsa command: reading matrices, timing, choices.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "balsa/matrix_market.hpp"

namespace balsa::app {

// Wall-clock stopwatch (seconds).
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

double median(std::vector<double> v);

// A matrix read from a file (or "-" for standard input) with what the file said.
template <class T>
struct LoadedMatrix {
  Csr<T> A;
  MtxHeader header;
  double read_seconds = 0.0;    // parse time
  double total_seconds = 0.0;   // parse + conversion to CSR
  std::uintmax_t bytes = 0;     // file size (0 for a stream)
};
template <class T>
LoadedMatrix<T> load_matrix(const std::string& path, const MtxReadOptions& options = {});

// Writes A to `path` ("-" for standard output).
template <class T>
void save_matrix(const std::string& path, const Csr<T>& A, const MtxWriteOptions& options);

// Maps for CLI11's CheckedTransformer (names accepted on the command line).
const std::map<std::string, Triangle>& triangle_names();
const std::map<std::string, MtxSymmetry>& storage_names();

// A solve that ran and did not converge (balsa solve, balsa run): exit code 3
// (1: bad input or other errors; 2: unknown command; CLI11 usage errors: its codes).
class NotConverged : public Error {
 public:
  using Error::Error;
};

// Registration of each subcommand.
void add_info_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_trsv_command(CLI::App& app);
void add_solve_command(CLI::App& app);
void add_qr_commands(CLI::App& app);  // lsq, qr

}  // namespace balsa::app
