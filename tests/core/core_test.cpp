// The core layer: the names of every public enum (one spelling, both
// ways), Device::Auto as every options struct's default and what it
// resolves to, default options running on whatever machine runs the tests
// (CPU-only in CI), and no std:: exception leaving a public function.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "balsa/balsa.hpp"
#include "balsa/config.hpp"
#include "core/exceptions.hpp"
#include "support/sanitizers.hpp"
#include "support/test_support.hpp"

namespace balsa {
namespace {

// Every value of E has one name, distinct from the others', and the two
// directions agree; an unknown name is an Error listing the names.
template <class E>
void check_names(const char* what) {
  SCOPED_TRACE(what);
  std::set<std::string> seen;
  for (const EnumName<E>& n : EnumNames<E>::names) {
    EXPECT_TRUE(seen.insert(n.name).second) << "duplicate name " << n.name;
    EXPECT_STREQ(to_string(n.value), n.name);
    EXPECT_EQ(from_string<E>(n.name), n.value);
  }
  EXPECT_EQ(enum_names<E>().size(), seen.size());
  try {
    (void)from_string<E>("no-such-name");
    ADD_FAILURE() << "an unknown name was accepted";
  } catch (const UnknownName& e) {  // an Error that lists the names (Python: a ValueError)
    const std::string m = e.what();
    EXPECT_NE(m.find(std::string("unknown ") + EnumNames<E>::what + " 'no-such-name' (one of: "), std::string::npos)
        << m;
    EXPECT_NE(m.find(*seen.begin()), std::string::npos) << m;
    EXPECT_EQ(e.names(), enum_names<E>());
  }
}

TEST(Version, IsTheVersionFile) {
  const std::string v = version();
  EXPECT_EQ(v, BALSA_VERSION);
  std::ifstream in(std::string(BALSA_TEST_DATA_DIR) + "/../../VERSION");  // the top of the source tree
  std::string file;
  std::getline(in, file);
  EXPECT_EQ(v, file);
}

TEST(Names, EveryPublicEnumBothWays) {
  check_names<Device>("Device");
  check_names<Operation>("Operation");
  check_names<DiagonalKind>("DiagonalKind");
  check_names<Triangle>("Triangle");
  check_names<Diag>("Diag");
  check_names<TrsvAlgorithm>("TrsvAlgorithm");
  check_names<IncompleteKind>("IncompleteKind");
  check_names<PivotBreakdown>("PivotBreakdown");
  check_names<KrylovMethod>("KrylovMethod");
  check_names<PreconditionerKind>("PreconditionerKind");
  check_names<StoppingNorm>("StoppingNorm");
  check_names<KrylovOutcome>("KrylovOutcome");
  check_names<KrylovPreset>("KrylovPreset");
  check_names<SapVariant>("SapVariant");
  check_names<QrOrdering>("QrOrdering");
  check_names<MtxFormat>("MtxFormat");
  check_names<MtxField>("MtxField");
  check_names<MtxSymmetry>("MtxSymmetry");
  check_names<GridOrdering>("GridOrdering");
  check_names<Stencil3d>("Stencil3d");
}

TEST(Names, OneSpellingOfEachTriangularSolver) {
  // The spellings the command line, the benchmarks and the stats share.
  EXPECT_EQ(enum_names<TrsvAlgorithm>(), (std::vector<std::string>{"auto", "reference", "level-set", "sync-free",
                                                                   "sync-free-csc", "cusparse", "tassl",
                                                                   "sync-free-blocks", "spike"}));
  EXPECT_EQ(from_string<TrsvAlgorithm>("sync-free-blocks"), TrsvAlgorithm::SyncFreeBlocks);
  EXPECT_EQ(from_string<TrsvAlgorithm>("spike"), TrsvAlgorithm::Spike);
  EXPECT_THROW_MSG((void)from_string<TrsvAlgorithm>("levelset"), Error, "unknown triangular-solver algorithm");
  EXPECT_THROW((void)from_string<Device>("CUDA"), Error);  // exact, case-sensitive
}

TEST(Names, PresetsGiveTheirMethodAndPreconditioner) {
  const KrylovOptions o = krylov_options(KrylovPreset::BiCgStab2Ilu0);
  EXPECT_EQ(o.method, KrylovMethod::BiCgStabL);
  EXPECT_EQ(o.l, 2);
  EXPECT_EQ(o.preconditioner, PreconditionerKind::Ilu0);
  EXPECT_EQ(o.device, Device::Auto);
  EXPECT_EQ(krylov_options(from_string<KrylovPreset>("pcg-ic0")).preconditioner, PreconditionerKind::Ic0);
  EXPECT_EQ(krylov_options(KrylovPreset::Cg).preconditioner, PreconditionerKind::None);
}

TEST(Devices, AutoIsEveryDefaultAndResolvesToTheMachine) {
  EXPECT_EQ(TrsvOptions{}.device, Device::Auto);
  EXPECT_EQ(KrylovOptions{}.device, Device::Auto);
  EXPECT_EQ(IncompleteOptions{}.device, Device::Auto);
  EXPECT_EQ(BandedOptions{}.device, Device::Auto);
  EXPECT_EQ(QrOptions{}.r_solve.device, Device::Auto);
  EXPECT_EQ(resolve_device(Device::Auto), cuda::available() ? Device::Cuda : Device::Cpu);
  EXPECT_EQ(resolve_device(Device::Cpu), Device::Cpu);
  EXPECT_EQ(resolve_device(Device::Cuda), Device::Cuda);  // asked for: the solver says when there is none
}

// Streams (README, "Threads"): every GPU-capable options struct starts on
// the calling thread's per-thread default stream (nullptr), and a
// StreamScope names the current stream of this thread only, nesting.
TEST(Streams, OptionsDefaultToThePerThreadStream) {
  EXPECT_EQ(TrsvOptions{}.stream, nullptr);
  EXPECT_EQ(IncompleteOptions{}.stream, nullptr);
  EXPECT_EQ(KrylovOptions{}.stream, nullptr);
  EXPECT_EQ(BandedOptions{}.stream, nullptr);
  EXPECT_EQ(SparseSapOptions{}.stream, nullptr);
  EXPECT_EQ(MatchingOptions{}.stream, nullptr);
  EXPECT_EQ(QrOptions{}.stream, nullptr);
  EXPECT_EQ(SolveOptions{}.stream, nullptr);
  EXPECT_EQ(SimplexOptions{}.stream, nullptr);
}

TEST(Streams, ScopesNestPerThread) {
  int a = 0, b = 0;  // any addresses serve as handles here: nothing is enqueued
  EXPECT_EQ(cuda::current_stream(), nullptr);
  {
    const cuda::StreamScope outer(&a);
    EXPECT_EQ(cuda::current_stream(), &a);
    {
      const cuda::StreamScope inner(&b);
      EXPECT_EQ(cuda::current_stream(), &b);
      StreamHandle seen = &a;
      std::thread([&] { seen = cuda::current_stream(); }).join();
      EXPECT_EQ(seen, nullptr);  // another thread starts outside every scope
    }
    EXPECT_EQ(cuda::current_stream(), &a);
  }
  EXPECT_EQ(cuda::current_stream(), nullptr);
}

// What a program written from the README does: default options everywhere.
// It runs wherever the tests run (on the GPU when there is one, else the
// CPU), and each solver reports the device Auto chose.
TEST(Devices, DefaultOptionsRunOnThisMachine) {
  const Device expected = resolve_device(Device::Auto);
  const Csr<double> A = laplacian_3d<double>(8, 8, 8);
  const std::vector<double> x_true = random_vector<double>(A.rows, 5);
  const std::vector<double> b = multiply(A, std::span<const double>(x_true));

  KrylovSolver<double> pcg(A);
  std::vector<double> x(b.size(), 0.0);
  const KrylovStats st = pcg.solve(std::span<const double>(b), std::span<double>(x));
  EXPECT_EQ(st.outcome, KrylovOutcome::Converged) << st.message;
  EXPECT_EQ(st.device, expected);
  EXPECT_LE(relative_error<double>(x, x_true), 1e-6);

  const Csr<double> L = extract_triangle(A, Triangle::Lower);
  TriangularSolver<double> trsv(L);
  EXPECT_EQ(trsv.stats().device, expected);
  const std::vector<double> Lx = multiply(L, std::span<const double>(x_true));
  std::vector<double> y(Lx.size(), std::nan(""));
  trsv.solve(std::span<const double>(Lx), std::span<double>(y));
  EXPECT_LE(relative_error<double>(y, x_true), 1e-12);

  IncompleteFactorization<double> ic(A, {.kind = IncompleteKind::Ic0});
  EXPECT_EQ(ic.stats().device, expected);

  BandedSolver<double> sap(banded_dominant_band<double>(2000, 5, 1.0));
  EXPECT_EQ(sap.stats().device, expected);

  SparseQR qr(A);  // the R solve stays on the CPU under Auto (host data; qr.hpp)
  const std::vector<double> z = qr.solve(std::span<const double>(b));
  EXPECT_LE(relative_error<double>(z, x_true), 1e-10);
}

// ---- no std:: exception leaves a public function ---------------------------------

TEST(Exceptions, StandardExceptionsBecomeBalsaErrors) {
  auto translated = [](auto&& thrower) -> std::string {
    try {
      try {
        thrower();
      } catch (...) {
        rethrow_as_balsa_error("here");
      }
    } catch (const HostOutOfMemory& e) {
      return std::string("HostOutOfMemory: ") + e.what();
    } catch (const MatrixError& e) {
      return std::string("MatrixError: ") + e.what();
    } catch (const Error& e) {
      return std::string("Error: ") + e.what();
    }
    return "nothing";
  };
  EXPECT_EQ(translated([] { throw std::bad_alloc(); }), "HostOutOfMemory: here: out of host memory");
  EXPECT_NE(translated([] { throw std::length_error("vector"); }).find("HostOutOfMemory: here: out of host memory"),
            std::string::npos);
  EXPECT_EQ(translated([] { throw std::out_of_range("at"); }), "Error: here: at");
  EXPECT_EQ(translated([] { throw 42; }), "Error: here: unknown exception");
  EXPECT_EQ(translated([] { throw MatrixError("kept"); }), "MatrixError: kept");  // balsa errors pass unchanged
}

TEST(Exceptions, HugeSizesAreHostOutOfMemory) {
#ifdef BALSA_TEST_UNDER_ASAN
  GTEST_SKIP() << "under AddressSanitizer: its allocator ends the process on a 576 PB request "
                  "(allocation-size-too-big) instead of throwing std::bad_alloc";
#endif
  // 7.2e16 values (576 PB): the allocation fails; the error names the bytes.
  EXPECT_THROW_MSG(Banded<double>(index_t(1) << 28, index_t(1) << 27), HostOutOfMemory, "bytes), more than this host");
  // A dense matrix beyond 2^31-1 entries is refused before any allocation.
  EXPECT_THROW(DenseMatrix<double>(index_t(1) << 30, index_t(1) << 30), IndexOverflow);
}

}  // namespace
}  // namespace balsa
