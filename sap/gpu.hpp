// Internal: SaP's GPU steps as host code sees them (no CUDA headers),
// implemented in sap/gpu_*.cu; in a build without CUDA, sap/gpu_no_cuda.cpp
// throws CudaError. Every function enqueues on the legacy default stream and
// returns without synchronising unless it says otherwise. Arrays are device
// pointers in the layouts of sap/host.hpp (bands as Banded, interfaces as
// count consecutive k x k column-major blocks).
#pragma once

#include <string>

#include "balsa/cuda.hpp"
#include "krylov/operator.hpp"
#include "sap/host.hpp"

namespace balsa::sap::gpu {

// Device copy of the block starts.
struct DeviceBlocks {
  index_t count = 0;
  cuda::DeviceBuffer<index_t> starts;  // count + 1
};
DeviceBlocks upload(const Blocks& blocks);

// y = A x for A's band (n, k) on the device.
template <class T>
void band_spmv(const T* band, index_t n, index_t k, const T* x, T* y);

// Conversion of n values (also a plain copy when To == From).
template <class To, class From>
void convert(const From* x, To* y, std::int64_t n);

// sec. 3.1 on the device (synchronises): every block's LU in place, boosted
// per rule; a pivot the rule refuses or a non-finite one is the MatrixError
// the CPU path gives (same text). `reversed` as in factor_blocks. Returns
// the pivots boosted. Narrow bands (k < 64) take one thread block per
// partition with the window in shared memory; wider ones a blocked
// right-looking factorisation (panel, U row block, trailing update).
template <class P>
int factor_blocks(P* band, index_t k, const DeviceBlocks& blocks, const BoostRule& rule, bool reversed);

// Each block's band reversed (out of place: from -> to).
template <class P>
void reverse_blocks(const P* from, P* to, index_t k, const DeviceBlocks& blocks, index_t max_block);

// x_i = U_i^{-1} L_i^{-1} x_i for every block, in place.
template <class P>
void solve_blocks(const P* band, index_t k, const DeviceBlocks& blocks, P* x);

// T_BC, T_SPK and T_LUrdcd of SaP-C (synchronises; a singular reduced
// system is the MatrixError of the CPU path). B, C, V, W, R: count k x k blocks.
template <class P>
void coupling_blocks(const P* A, index_t k, const DeviceBlocks& blocks, P* B, P* C);
template <class P>
void truncated_spikes(const P* lu, const P* ul, index_t k, const DeviceBlocks& blocks, const P* B, const P* C, P* V,
                      P* W);
template <class P>
void reduced_systems(const P* V, const P* W, index_t k, index_t count, P* R);

// Eq. 9-10: rhs -= the truncated coupling of g (sap/host.hpp, coupling_corrections).
template <class P>
void coupling_corrections(const P* B, const P* C, const P* V, const P* W, const P* R, index_t k,
                          const DeviceBlocks& blocks, const P* g, P* rhs);

// A's products on the GPU: owns A's band.
template <class T>
class DeviceBandOperator final : public krylov::Operator<T> {
 public:
  DeviceBandOperator(cuda::DeviceBuffer<T> band, index_t n, index_t k) : band_(std::move(band)), n_(n), k_(k) {}
  index_t rows() const override { return n_; }
  void apply(const T*, T*) override { throw Error("internal: the device band operator has no host path"); }
  void apply_device(const T* x, T* y) override { band_spmv(band_.data(), n_, k_, x, y); }
  std::string name() const override { return "balsa-banded"; }
  cuda::DeviceBuffer<T>& band() { return band_; }

 private:
  cuda::DeviceBuffer<T> band_;
  index_t n_, k_;
};

}  // namespace balsa::sap::gpu
