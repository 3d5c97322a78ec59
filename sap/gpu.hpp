// Internal: SaP's GPU steps as host code sees them (no CUDA headers),
// implemented in sap/gpu_*.cu; in a build without CUDA, sap/gpu_no_cuda.cpp
// throws CudaError. Every function enqueues on the current stream (the
// solver's, cuda/stream.hpp) and returns without synchronising unless it
// says otherwise ("synchronises": waits for that stream only). Arrays are device
// pointers in the layouts of sap/steps_cpu.hpp (bands as Banded, interfaces as
// count consecutive k x k column-major blocks).
//
// `stopped` (the steps a Krylov iteration calls): null, or a device int that
// the kernels read first; when it is non-zero they return without touching
// anything. The Krylov driver passes its status's stop code, so the
// iterations it enqueued beyond a convergence it has not read yet cost no
// block solves (krylov/gpu_method.cuh).
#pragma once

#include <string>

#include "balsa/cuda.hpp"
#include "krylov/operator.hpp"
#include "sap/steps_cpu.hpp"

namespace balsa::sap::gpu {

// Device copy of the block starts and the blocks' bandwidths k_b <= k
// (Blocks::bandwidths, or k for every block when it has none).
struct DeviceBlocks {
  index_t count = 0;
  cuda::DeviceBuffer<index_t> starts;      // count + 1
  cuda::DeviceBuffer<index_t> bandwidths;  // count
  index_t min_bandwidth = 0, max_bandwidth = 0;
};
DeviceBlocks upload(const Blocks& blocks, index_t k);
// The bandwidth of every block of A's band (n, k) on the device: k_b = the
// largest |r - c| of a nonzero with r and c in block b (sap/steps_cpu.hpp,
// block_bandwidths); stored in `blocks` (synchronises).
template <class T>
void measure_bandwidths(const T* band, index_t n, index_t k, DeviceBlocks& blocks);

// A's band (n, k; the Banded layout) in the report's diagonal-major layout
// (out of place): diag[d n + r] = A(r, r + d - k), d = 0 .. 2k, zero where
// r + d - k is outside 0 .. n-1. Diagonal d is contiguous.
template <class T>
void to_diagonals(const T* band, index_t n, index_t k, T* diag);
// y = A x from the diagonal layout. The layouts measured on the H200
// (bench/band-layout.py, bench/results/2026-11-22h-band-layout.md): this
// product is 2.3-3.9x faster than the best one on the Banded layout (a warp
// per column and shared accumulators), whose contiguous columns in turn
// make the factorisation's window updates 1.9-3.8x faster than on diagonals (K >= 100).
// So A, which only the products read, is kept on diagonals and the factors
// in the Banded layout.
template <class T>
void diagonal_spmv(const T* diag, index_t n, index_t k, const T* x, T* y, const int* stopped = nullptr);

// max |a| over the whole band array and the first non-finite position in it
// (count when none): the input checks of require_finite and max_abs, on the
// device (synchronises).
struct BandCheck {
  double amax = 0;
  std::size_t first_bad = 0;
};
template <class T>
BandCheck check_band(const T* band, std::size_t count);

// Conversion of n values (also a plain copy when To == From).
template <class To, class From>
void convert(const From* x, To* y, std::int64_t n, const int* stopped = nullptr);

// sec. 3.1 on the device (synchronises): every block's LU in place, boosted
// per rule; a pivot the rule refuses or a non-finite one is the MatrixError
// the CPU path gives (same text). `reversed` as in factor_blocks. Returns
// the pivots boosted. Block b works within its bandwidth k_b. Two kernels:
// narrow bands (max k_b <= 32, and the (k_b + 1 + lookahead)^2 window fits
// in shared memory) slide that window down the block one column at a time,
// one thread block per partition (the band streams through it, copied in
// ahead of use); wider ones factor panels of 16 columns with several
// thread blocks per partition (right-looking, the window's update in global
// memory, register-tiled). `kernel` forces one (tests); Auto picks.
enum class FactorKernel { Auto, Window, Wide };
template <class P>
int factor_blocks(P* band, index_t k, const DeviceBlocks& blocks, const BoostRule& rule, bool reversed,
                  FactorKernel kernel = FactorKernel::Auto);
// SaP-C's LU of every block and UL (the LU of `ul`, the blocks' reversed
// bands) in one launch: the same results and errors as factor_blocks on
// each, with twice the thread blocks at work.
template <class P>
int factor_lu_and_ul(P* lu, P* ul, index_t k, const DeviceBlocks& blocks, const BoostRule& rule,
                     FactorKernel kernel = FactorKernel::Auto);
// Whether the sliding-window kernel takes half-bandwidth k in precision P.
template <class P>
bool window_fits(index_t k);

// Each block's band reversed (out of place: from -> to).
template <class P>
void reverse_blocks(const P* from, P* to, index_t k, const DeviceBlocks& blocks, index_t max_block);

// x_i = U_i^{-1} L_i^{-1} x_i for every block, in place (n = the band's
// rows: the backward sweep reads the band array from its end), each block
// within its bandwidth k_b.
template <class P>
void solve_blocks(const P* band, index_t n, index_t k, const DeviceBlocks& blocks, P* x, const int* stopped = nullptr);

// T_BC, T_SPK and T_LUrdcd of SaP-C (synchronises; a singular reduced
// system is the MatrixError of the CPU path). B, C, V, W, R: count k x k blocks.
template <class P>
void coupling_blocks(const P* A, index_t k, const DeviceBlocks& blocks, P* B, P* C);
template <class P>
void truncated_spikes(const P* lu, const P* ul, index_t k, const DeviceBlocks& blocks, const P* B, const P* C, P* V,
                      P* W);
template <class P>
void reduced_systems(const P* V, const P* W, index_t k, index_t count, P* R);

// Eq. 9-10: rhs -= the truncated coupling of g (sap/steps_cpu.hpp, coupling_corrections).
template <class P>
void coupling_corrections(const P* B, const P* C, const P* V, const P* W, const P* R, index_t k,
                          const DeviceBlocks& blocks, const P* g, P* rhs, const int* stopped = nullptr);

// A's products on the GPU: owns A's diagonals (to_diagonals of its band).
template <class T>
class DeviceBandOperator final : public krylov::Operator<T> {
 public:
  DeviceBandOperator(const cuda::DeviceBuffer<T>& band, index_t n, index_t k) : diag_(band.size()), n_(n), k_(k) {
    set_values(band);
  }
  // New values of the same band (n, k; the Banded layout).
  void set_values(const cuda::DeviceBuffer<T>& band) { to_diagonals(band.data(), n_, k_, diag_.data()); }
  index_t rows() const override { return n_; }
  void apply(const T*, T*) override { throw Error("internal: the device band operator has no host path"); }
  void apply_device(const T* x, T* y) override { diagonal_spmv(diag_.data(), n_, k_, x, y); }
  void apply_device_unless(const T* x, T* y, const int* stopped) override {
    diagonal_spmv(diag_.data(), n_, k_, x, y, stopped);
  }
  std::string name() const override { return "balsa-banded"; }

 private:
  cuda::DeviceBuffer<T> diag_;
  index_t n_, k_;
};

// The explicit instantiations for T, one list per kernel file, which its
// stand-in (gpu_no_cuda.cpp) instantiates too.
// sap/gpu_band.cu
#define BALSA_SAP_GPU_BAND(T) \
  template void to_diagonals(const T*, index_t, index_t, T*); \
  template void diagonal_spmv(const T*, index_t, index_t, const T*, T*, const int*); \
  template BandCheck check_band(const T*, std::size_t); \
  template void measure_bandwidths(const T*, index_t, index_t, DeviceBlocks&); \
  template void reverse_blocks(const T*, T*, index_t, const DeviceBlocks&, index_t);
// sap/gpu_block_lu.cu
#define BALSA_SAP_GPU_BLOCK_LU(T) \
  template int factor_blocks(T*, index_t, const DeviceBlocks&, const BoostRule&, bool, FactorKernel); \
  template int factor_lu_and_ul(T*, T*, index_t, const DeviceBlocks&, const BoostRule&, FactorKernel); \
  template bool window_fits<T>(index_t);
// sap/gpu_solve.cu
#define BALSA_SAP_GPU_SOLVE(T) \
  template void solve_blocks(const T*, index_t, index_t, const DeviceBlocks&, T*, const int*);
// sap/gpu_spike_blocks.cu
#define BALSA_SAP_GPU_SPIKE_BLOCKS(T) \
  template void coupling_blocks(const T*, index_t, const DeviceBlocks&, T*, T*); \
  template void truncated_spikes(const T*, const T*, index_t, const DeviceBlocks&, const T*, const T*, T*, T*); \
  template void reduced_systems(const T*, const T*, index_t, index_t, T*); \
  template void coupling_corrections(const T*, const T*, const T*, const T*, const T*, index_t, const DeviceBlocks&, \
  const T*, T*, const int*);

}  // namespace balsa::sap::gpu
