// The pure helpers of `balsa-bench trsv` (bench/bench_math.hpp,
// bench/bench_report.hpp): statistics, byte counts, the floor model,
// formatting, the result check, matrix preparation, JSON and Markdown shape.
// Header-only: nothing beyond the test support library is linked.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bench/bench_math.hpp"
#include "bench/bench_report.hpp"

namespace balsa::bench {
namespace {

const double nan_ = std::numeric_limits<double>::quiet_NaN();

Csr<double> csr(index_t n, std::vector<index_t> row_ptr, std::vector<index_t> col, std::vector<double> val) {
  Csr<double> A;
  A.rows = A.cols = n;
  A.row_ptr = std::move(row_ptr);
  A.col_idx = std::move(col);
  A.values = std::move(val);
  return A;
}

TEST(BenchMath, MedianAndGeomean) {
  EXPECT_DOUBLE_EQ(median({3.0, 1.0, 2.0}), 2.0);
  EXPECT_DOUBLE_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
  EXPECT_TRUE(std::isnan(median({})));
  EXPECT_NEAR(geomean({2.0, 8.0}), 4.0, 1e-12);
  EXPECT_NEAR(geomean({2.0, nan_, 0.0, -1.0, 8.0}), 4.0, 1e-12);  // not measured / invalid: skipped
  EXPECT_TRUE(std::isnan(geomean({nan_})));
  EXPECT_DOUBLE_EQ(min_of({3.0, 1.0}), 1.0);
  EXPECT_DOUBLE_EQ(max_of({3.0, 1.0}), 3.0);
}

TEST(BenchMath, BytesFlopsAndFloor) {
  // nnz*(sizeof(T)+4) + (n+1)*4 + 2*n*sizeof(T)
  EXPECT_DOUBLE_EQ(trsv_bytes(10, 20, 8), 20 * 12 + 11 * 4 + 2 * 10 * 8);
  EXPECT_DOUBLE_EQ(trsv_bytes(10, 20, 4), 20 * 8 + 11 * 4 + 2 * 10 * 4);
  EXPECT_DOUBLE_EQ(trsv_bytes(4'000'000, 32'000'000, 8), 32e6 * 12 + 4'000'001.0 * 4 + 64e6);
  EXPECT_DOUBLE_EQ(trsv_flops(7), 14.0);
  EXPECT_DOUBLE_EQ(gflops(500'000'000, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(gbytes_per_second(2e9, 0.5), 4.0);
  // bandwidth term 4.3e9 B / 4300 GB/s = 1 ms; latency term 1000 levels * 2 us = 2 ms
  EXPECT_DOUBLE_EQ(floor_seconds(4.3e9, 1000, 4300.0, 2.0), 2e-3);
  EXPECT_DOUBLE_EQ(floor_seconds(4.3e9, 10, 4300.0, 2.0), 1e-3);
}

TEST(BenchMath, Formatting) {
  EXPECT_EQ(format_number(nan_), "-");
  EXPECT_EQ(format_number(1234.4), "1234");
  EXPECT_EQ(format_number(12.34), "12.3");
  EXPECT_EQ(format_number(1.234), "1.23");
  EXPECT_EQ(format_number(0.1234), "0.123");
  EXPECT_EQ(format_number(0.4), "0.400");
  EXPECT_EQ(format_number(0.0), "0");
  EXPECT_EQ(format_number(1.5e-5), "1.50e-05");
  EXPECT_EQ(format_ratio(2.0), "2.00x");
  EXPECT_EQ(format_ratio(nan_), "-");
  EXPECT_EQ(format_count(1234567), "1,234,567");
  EXPECT_EQ(format_count(12), "12");
  EXPECT_EQ(format_count(-1000), "-1,000");
}

TEST(BenchMath, BackwardError) {
  // L = [2 0; 1 4], b = [2 5]: x = [1 1]
  const Csr<double> L = csr(2, {0, 1, 3}, {0, 0, 1}, {2.0, 1.0, 4.0});
  const std::vector<double> b = {2.0, 5.0};
  std::vector<double> x = {1.0, 1.0};
  EXPECT_DOUBLE_EQ(backward_error(L, std::span<const double>(b), std::span<const double>(x)), 0.0);
  x = {1.0, 2.0};  // row 1: |5 - 9| / (5 + 1 + 8)
  EXPECT_DOUBLE_EQ(backward_error(L, std::span<const double>(b), std::span<const double>(x)), 4.0 / 14.0);
  x = {nan_, 1.0};  // unwritten (poisoned) output
  EXPECT_TRUE(std::isinf(backward_error(L, std::span<const double>(b), std::span<const double>(x))));
  const std::vector<double> y = {2.0, 5.0}, xs = {1.0, 1.0};
  EXPECT_DOUBLE_EQ(spmv_error(L, std::span<const double>(xs), std::span<const double>(y)), 0.0);
  const std::vector<double> u = {3.0, 4.0}, v = {3.0, 0.0};
  EXPECT_DOUBLE_EQ(relative_difference(std::span<const double>(u), std::span<const double>(u)), 0.0);
  EXPECT_DOUBLE_EQ(relative_difference(std::span<const double>(v), std::span<const double>(u)), 0.8);
  EXPECT_DOUBLE_EQ(max_row_nnz(L), 2);
  EXPECT_GT(backward_error_tolerance<float>(2), backward_error_tolerance<double>(2));
}

TEST(BenchMath, FixDiagonalAndSquareBlock) {
  // row 0: diagonal 3; row 1: (1,0) = -2, no diagonal; row 2: (2,0) = 1, (2,1) = -1, zero diagonal
  Csr<double> L = csr(3, {0, 1, 2, 5}, {0, 0, 0, 1, 2}, {3.0, -2.0, 1.0, -1.0, 0.0});
  EXPECT_EQ(fix_diagonal(L), 2);
  EXPECT_EQ(L.row_ptr, (std::vector<index_t>{0, 1, 3, 6}));
  EXPECT_EQ(L.col_idx, (std::vector<index_t>{0, 0, 1, 0, 1, 2}));
  EXPECT_EQ(L.values, (std::vector<double>{3.0, -2.0, 3.0, 1.0, -1.0, 3.0}));
  EXPECT_EQ(fix_diagonal(L), 0);

  Csr<double> R;  // 2 x 3: [1 0 5; 2 3 6]
  R.rows = 2;
  R.cols = 3;
  R.row_ptr = {0, 2, 5};
  R.col_idx = {0, 2, 0, 1, 2};
  R.values = {1.0, 5.0, 2.0, 3.0, 6.0};
  const Csr<double> S = leading_square_block(R);
  EXPECT_EQ(S.rows, 2);
  EXPECT_EQ(S.cols, 2);
  EXPECT_EQ(S.row_ptr, (std::vector<index_t>{0, 1, 3}));
  EXPECT_EQ(S.values, (std::vector<double>{1.0, 2.0, 3.0}));
}

BenchRow row(const std::string& alg, const std::string& device, std::vector<double> ms, std::string status = "ok") {
  BenchRow r;
  r.case_name = "lap2d";
  r.source = "generator";
  r.precision = "double";
  r.algorithm = alg;
  r.device = device;
  r.n = 100;
  r.nnz = 280;
  r.levels = 19;
  r.widest_level = 10;
  r.bytes = trsv_bytes(r.n, r.nnz, 8);
  r.floor_ms = 0.038;
  r.samples_ms = std::move(ms);
  r.status = std::move(status);
  r.backward_error = 1e-16;
  return r;
}

TEST(BenchReport, RatiosJsonAndMarkdown) {
  std::vector<BenchRow> rows = {row("reference", "cpu", {10.0, 11.0, 9.0}), row("syncfree", "cuda", {2.0, 2.0}),
                                row("levelset", "cuda", {1.0}, "FAILED"),   row("cusparse", "cuda", {4.0}),
                                row("syncfree-csc", "cuda", {}, "error"),   row(spmv_name, "cuda", {1.0})};
  rows[4].error = "GPU out of memory";
  fill_ratios(rows);
  EXPECT_DOUBLE_EQ(rows[1].speedup_vs_cusparse, 2.0);
  EXPECT_DOUBLE_EQ(rows[1].ratio_vs_spmv, 2.0);
  EXPECT_DOUBLE_EQ(rows[1].speedup_vs_cpu_serial, 5.0);
  EXPECT_TRUE(std::isnan(rows[2].solve_ms()));  // a wrong result has no time
  ASSERT_NE(best_row(rows, rows[0].key()), nullptr);
  EXPECT_EQ(best_row(rows, rows[0].key())->algorithm, "syncfree");  // not the failed levelset, not cusparse

  const nlohmann::json meta = {{"date", "2026-11-22T10:00:00Z"}, {"gpu", "NVIDIA H200"}, {"peak_gbs", 4300.0}};
  const nlohmann::json j = results_json(meta, rows, {{"west0479", "float", "zero diagonal"}});
  ASSERT_TRUE(j.contains("meta") && j.contains("results") && j.contains("skipped"));
  EXPECT_EQ(j["meta"]["gpu"], "NVIDIA H200");
  ASSERT_EQ(j["results"].size(), rows.size());
  const nlohmann::json& r1 = j["results"][1];
  for (const char* k : {"case",
                        "precision",
                        "algorithm",
                        "device",
                        "status",
                        "n",
                        "nnz",
                        "levels",
                        "widest_level",
                        "analysis_seconds",
                        "solve_seconds",
                        "samples_seconds",
                        "gflops",
                        "gbs",
                        "bytes",
                        "model_floor_seconds",
                        "speedup_vs_cusparse",
                        "ratio_vs_spmv",
                        "speedup_vs_cpu_serial",
                        "backward_error"})
    EXPECT_TRUE(r1.contains(k)) << k;
  EXPECT_DOUBLE_EQ(r1["solve_seconds"].get<double>(), 2e-3);
  for (const auto& item : r1.items())  // times in seconds, as balsa's own JSON (issue 38)
    EXPECT_FALSE(item.key().ends_with("_ms")) << item.key();
  EXPECT_DOUBLE_EQ(r1["gflops"].get<double>(), 2.0 * 280 / 2e-3 / 1e9);
  EXPECT_TRUE(j["results"][2]["solve_seconds"].is_null());
  EXPECT_EQ(j["results"][4]["error"], "GPU out of memory");
  EXPECT_EQ(j["skipped"][0]["reason"], "zero diagonal");

  const MarkdownText md = markdown(meta, rows, {});
  EXPECT_NE(md.summary.find("**FAILED**"), std::string::npos);
  EXPECT_NE(md.summary.find("error [1]"), std::string::npos);
  EXPECT_NE(md.summary.find("[1] lap2d double syncfree-csc: GPU out of memory"), std::string::npos);
  EXPECT_NE(md.summary.find("geomean speedup over cuSPARSE SpSV"), std::string::npos);
  EXPECT_NE(md.summary.find(trsv_bytes_formula), std::string::npos);
  EXPECT_NE(md.summary.find("floor ms (model)"), std::string::npos);
  EXPECT_NE(md.summary.find("| syncfree | 2.00x | 2.00x | 5.00x |"), std::string::npos) << md.summary;
  EXPECT_NE(md.details.find("| lap2d | double | syncfree | cuda | ok |"), std::string::npos) << md.details;
}

}  // namespace
}  // namespace balsa::bench
