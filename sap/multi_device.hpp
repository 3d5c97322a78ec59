// Internal: SaP over several GPUs of one host (include/balsa/sap.hpp,
// "Several GPUs"). The CPU side (sap/multi_device.cpp: the devices' checks,
// how many to use, which blocks each gets) and the GPU side
// (sap/multi_device.cu: the per-device factors and the multi-device
// operator and preconditioner the Krylov driver calls).
//
// Slots. The spread works on a list of "slots", each a CUDA device; the
// public options forbid a device listed twice, but the slots may repeat one
// (several slots on one device, each with its own stream and buffers), which
// is how the tests exercise the spread on a single GPU (SlotOverride).
//
// Slot j holds the whole blocks [b0, b1) (rows [r0, r1)), contiguous and
// balanced by rows. It factors the blocks [g0, g1): its own and, for SaP-C,
// one neighbour block each side (the first block of slot j+1, the last of
// slot j-1), so the interfaces at its edges (B, C, the spikes V and W, the
// reduced system R) are formed from data it holds, and its application
// needs only r on rows [f0, f1) of those blocks. Its product computes rows
// [r0, r1) of A x from x on [o0, o1) = [r0 - k, r1 + k) (clipped). It
// uploads A's band columns [c0, c1), the union of the two.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "balsa/sap.hpp"
#include "krylov/operator.hpp"
#include "sap/preconditioner.hpp"

namespace balsa::sap {

struct SlotRange {
  int device = 0;
  index_t b0 = 0, b1 = 0;  // own blocks
  index_t g0 = 0, g1 = 0;  // blocks factored (own, plus a neighbour each side for SaP-C)
  index_t r0 = 0, r1 = 0;  // own rows
  index_t f0 = 0, f1 = 0;  // rows of the blocks factored
  index_t o0 = 0, o1 = 0;  // the product's columns
  index_t c0 = 0, c1 = 0;  // A's band columns uploaded
};

// Whether SaP-C couples the blocks of `plan` (as the one-device path:
// several blocks and k > 0).
inline bool coupled(const Plan& plan) {
  return plan.variant == SapVariant::Coupled && plan.blocks.count() > 1 && plan.k > 0;
}

// The slots' ranges: slot j gets the contiguous blocks whose rows come
// nearest to j n / S .. (j+1) n / S, at least one each (S <= P, checked
// by the caller).
std::vector<SlotRange> place(const Plan& plan, const std::vector<int>& slots);

// The plan of slot s's blocks [g0, g1) (rows from f0, the bandwidths with them).
Plan local_plan(const Plan& plan, const SlotRange& s);

// The public options' devices checked (each id in 0 .. device_count()-1,
// none twice, not with Device::Cpu; without a GPU a CudaError naming the
// first) and min_work_per_device (finite, >= 0): `what` names the solver in
// the message. given_device: the options' device before resolution.
void check_devices(const std::vector<int>& devices, Device given_device, index_t partitions, double min_work,
                   const std::string& what);
template <class Options>
void check_devices(const Options& given, const std::string& what) {
  check_devices(given.devices, given.device, given.partitions, given.min_work_per_device, what);
}

// How many of the listed devices to use for n rows of half-bandwidth k
// (each at least min_work multiply-adds of n k^2), and why (for stats).
struct DeviceChoice {
  int count = 1;
  std::string reason;
};
DeviceChoice choose_device_count(index_t n, index_t k, int listed, double min_work);

// A solver's split over its devices: how many of the listed ones to use
// (choose_device_count; SlotOverride's slots all), P as for the primary
// device alone (partitions == 0; sap/partition.hpp: the one-GPU
// preconditioner and iterations), never more devices than blocks.
// slots: the devices used, slots[0] the primary (empty: the CPU, or the
// current device when none is listed). On the CPU (gpu false) only the split.
struct DeviceSpread {
  std::vector<int> slots;
  std::string reason;
};
template <class Options>
DeviceSpread spread_over_devices(const Options& o, index_t n, index_t k, bool gpu, Blocks& blocks) {
  return spread_over_devices(o.devices, o.min_work_per_device, o.partitions, o.variant, n, k, gpu, blocks);
}
DeviceSpread spread_over_devices(const std::vector<int>& devices, double min_work, index_t partitions,
                                 SapVariant variant, index_t n, index_t k, bool gpu, Blocks& blocks);

// The primary device of a device list (SlotOverride's first slot while one
// lives), -1 for none (the current device).
int primary_device(const std::vector<int>& devices);

// Test hook: while it lives, the SaP solvers built on this thread spread
// over these slots (devices may repeat), whatever their options' devices.
// copied: every slot but the first takes the path of another device (its
// slices copied to and from it, its output staged on the primary) even on
// the primary device, as on a host of several GPUs; else the slots on the
// primary device read and write the primary's vectors in place.
class SlotOverride {
 public:
  explicit SlotOverride(std::vector<int> slots, bool copied = true);
  ~SlotOverride();
  SlotOverride(const SlotOverride&) = delete;
  SlotOverride& operator=(const SlotOverride&) = delete;

 private:
  std::vector<int> previous_;
  bool previous_copied_;
};

// SlotOverride's `copied` while one lives (else false).
bool slots_copied();

// While it lives, `device` is the calling thread's current CUDA device
// (the one before comes back after); -1 leaves it alone.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = -1;
};

// ---- GPU side (sap/multi_device.cu) -----------------------------------------

// A's band spread over the slots and SaP's factors on each; the operator
// and the preconditioner the Krylov driver calls are views of it.
template <class T>
class MultiDevice {
 public:
  virtual ~MultiDevice() = default;
  // New values of A (same n, k, on the host): re-uploaded, checked
  // (check: NaN/Inf as require_finite names them) and refactored on every
  // slot; returns max |a| over the band (the boost scale it used).
  virtual double update_values(const Banded<T>& A, bool check, double amax) = 0;
  virtual void record(BandedStats& stats) const = 0;
  virtual const SetupReport& report() const = 0;
};

// The spread system: the preconditioner (owned, for the Krylov solver), the
// band operator (null unless with_operator), and the shared state.
template <class T>
struct MultiDeviceSystem {
  std::unique_ptr<krylov::Operator<T>> op;
  std::unique_ptr<SapPreconditioner<T>> pre;
  MultiDevice<T>* state = nullptr;  // owned by pre
};

// Built on the slots (the calling thread's device and stream, the primary's,
// stay current). A on the host; check: NaN/Inf checked on the devices and
// max|a| taken there (else plan.boost.amax is used). The preconditioner in
// float when float_preconditioner (T = double), else in T. memory_limit:
// bytes each device may use (0: its free memory).
template <class T>
MultiDeviceSystem<T> make_multi_device(const Banded<T>& A, const Plan& plan, const std::vector<int>& slots,
                                       bool float_preconditioner, bool with_operator, bool check,
                                       std::size_t memory_limit);

}  // namespace balsa::sap
