// balsa bench qr: multifrontal sparse QR against SuiteSparseQR (SPQR) in
// the same run on the same cores (bench/qr_bench.cpp).
#pragma once

#include <string>
#include <vector>

namespace balsa::bench {

struct QrBenchOptions {
  std::vector<std::string> files;  // extra Matrix Market files
  std::string data_dir = "tests/data";
  bool generated = true;           // the generated 2D/3D problems
  int repeat = 3;
  std::string json_path, markdown_path;
};

void run_qr_bench(const QrBenchOptions& o, const std::string& command_line);

}  // namespace balsa::bench
