// SaP over several GPUs, the CPU side (sap/multi_device.hpp): the devices'
// checks, how many to use, and the slots' blocks and rows.
#include "sap/multi_device.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include <omp.h>

#include "balsa/cuda.hpp"  // current_device, use_device

namespace balsa::sap {

namespace {
std::string s(std::int64_t v) { return std::to_string(v); }
thread_local std::vector<int> override_slots;  // SlotOverride's (empty: none)
thread_local bool override_copied = false;
}  // namespace

std::vector<SlotRange> place(const Plan& plan, const std::vector<int>& slots) {
  const Blocks& b = plan.blocks;
  const index_t P = b.count(), S = index_t(slots.size()), n = plan.n, k = plan.k;
  if (S < 1 || S > P) throw Error("internal: SaP spread over " + s(S) + " slots of " + s(P) + " blocks");
  const bool c = coupled(plan);
  std::vector<SlotRange> out(static_cast<std::size_t>(S));
  index_t next = 0;
  for (index_t j = 0; j < S; ++j) {
    SlotRange& r = out[std::size_t(j)];
    r.device = slots[std::size_t(j)];
    r.b0 = next;
    // The block boundary nearest the row target, leaving a block for each later slot.
    const double target = double(n) * double(j + 1) / double(S);
    index_t e = r.b0 + 1;
    while (e < P && std::abs(double(b.start(e + 1)) - target) <= std::abs(double(b.start(e)) - target)) ++e;
    r.b1 = j + 1 == S ? P : std::clamp(e, r.b0 + 1, P - (S - 1 - j));
    next = r.b1;
    r.g0 = c ? std::max<index_t>(r.b0 - 1, 0) : r.b0;
    r.g1 = c ? std::min(r.b1 + 1, P) : r.b1;
    r.r0 = b.start(r.b0);
    r.r1 = b.start(r.b1);
    r.f0 = b.start(r.g0);
    r.f1 = b.start(r.g1);
    r.o0 = std::max<index_t>(r.r0 - k, 0);
    r.o1 = std::min(r.r1 + k, n);
    r.c0 = std::min(r.f0, r.o0);
    r.c1 = std::max(r.f1, r.o1);
  }
  return out;
}

Plan local_plan(const Plan& plan, const SlotRange& r) {
  Plan p = plan;
  p.n = r.f1 - r.f0;
  p.blocks.starts.clear();
  for (index_t i = r.g0; i <= r.g1; ++i) p.blocks.starts.push_back(plan.blocks.start(i) - r.f0);
  if (!plan.blocks.bandwidths.empty())
    p.blocks.bandwidths.assign(plan.blocks.bandwidths.begin() + r.g0, plan.blocks.bandwidths.begin() + r.g1);
  return p;
}

void check_devices(const std::vector<int>& devices, Device given_device, index_t partitions, double min_work,
                   const std::string& what) {
  const std::string w = what + ": ";
  if (!(min_work >= 0) || !std::isfinite(min_work))
    throw Error(w + "min_work_per_device must be finite and >= 0, got " + std::to_string(min_work));
  if (devices.empty()) return;
  if (given_device == Device::Cpu)
    throw Error(w + "devices (" + s(std::int64_t(devices.size())) + " listed) need the GPU; Device::Cpu was given");
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] < 0) throw Error(w + "device " + s(devices[i]) + " does not exist (device ids are >= 0)");
    for (std::size_t j = 0; j < i; ++j)
      if (devices[j] == devices[i]) throw Error(w + "device " + s(devices[i]) + " is listed twice");
  }
  if (partitions > 0 && index_t(devices.size()) > partitions)
    throw Error(w + s(std::int64_t(devices.size())) + " devices but " + s(partitions) +
                " partitions: every device needs at least one");
  const int count = cuda::device_count();
  for (const int d : devices) {
    if (count == 0)
      throw CudaError(w + "device " + s(d) + " listed but " +
                      (cuda::built_with_cuda() ? "no CUDA GPU was found" : "balsa was built without CUDA"));
    if (d >= count) throw Error(w + "device " + s(d) + " does not exist (device ids 0.." + s(count - 1) + ")");
  }
}

DeviceChoice choose_device_count(index_t n, index_t k, int listed, double min_work) {
  DeviceChoice c;
  if (listed <= 1) {
    c.reason = "one device";
    return c;
  }
  const double work = double(n) * double(std::max<index_t>(k, 1)) * double(std::max<index_t>(k, 1));
  const int worth = min_work > 0 ? int(std::clamp(std::floor(work / min_work), 1.0, double(listed))) : listed;
  c.count = worth;
  char text[160];
  if (worth == listed)
    std::snprintf(text, sizeof text, "all %d devices listed", listed);
  else
    std::snprintf(text, sizeof text, "%d of %d devices: n k^2 = %.3g multiply-adds, %.3g per device at least (min_work_per_device)",
                  worth, listed, work, min_work);
  c.reason = text;
  return c;
}

DeviceSpread spread_over_devices(const std::vector<int>& devices, double min_work, index_t partitions,
                                 SapVariant variant, index_t n, index_t k, bool gpu, Blocks& blocks) {
  DeviceSpread out;
  if (!gpu) {
    blocks = split(n, k, partitions, variant, 4 * omp_get_max_threads());
    return out;
  }
  const std::vector<int>& listed = override_slots.empty() ? devices : override_slots;
  DeviceChoice c = choose_device_count(n, k, int(listed.size()), override_slots.empty() ? min_work : 0);
  const int primary = listed.empty() ? cuda::current_device() : listed[0];
  // P as for one device (the same preconditioner and iterations as one GPU), never fewer than the devices.
  blocks = split(n, k, partitions, variant, std::max(2 * cuda::device_info(primary).sm_count, c.count));
  if (index_t(c.count) > blocks.count() && override_slots.empty()) {
    c.count = int(blocks.count());
    c.reason = s(c.count) + " of " + s(std::int64_t(listed.size())) + " devices: only " + s(blocks.count()) +
               " blocks (n = " + s(n) + ", k = " + s(k) + ")";
  }
  out.slots.assign(listed.begin(), listed.begin() + std::min<std::ptrdiff_t>(c.count, std::ptrdiff_t(listed.size())));
  if (!override_slots.empty()) out.slots = override_slots;
  out.reason = c.reason;
  if (index_t(out.slots.size()) > blocks.count())
    throw Error("SaP: " + s(std::int64_t(out.slots.size())) + " device slots but only " + s(blocks.count()) +
                " blocks: every slot needs at least one");
  return out;
}

int primary_device(const std::vector<int>& devices) {
  const std::vector<int>& listed = override_slots.empty() ? devices : override_slots;
  return listed.empty() ? -1 : listed[0];
}

SlotOverride::SlotOverride(std::vector<int> slots, bool copied)
    : previous_(std::exchange(override_slots, std::move(slots))), previous_copied_(std::exchange(override_copied, copied)) {}
SlotOverride::~SlotOverride() {
  override_slots = std::move(previous_);
  override_copied = previous_copied_;
}
bool slots_copied() { return override_copied; }

DeviceScope::DeviceScope(int device) {
  if (device < 0) return;
  previous_ = cuda::current_device();
  if (previous_ != device) cuda::use_device(device);
}
DeviceScope::~DeviceScope() {
  if (previous_ < 0) return;
  try {
    cuda::use_device(previous_);
  } catch (...) {  // the device cannot be set back (a broken context): nothing to do here
  }
}

}  // namespace balsa::sap
