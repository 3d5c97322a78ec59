// The GPU entry points of a build without CUDA: no device, and every use is a
// clear error rather than a link failure.
#include "balsa/cuda.hpp"
#include "cuda/caller_context.hpp"
#include "core/instantiate.hpp"

namespace balsa::cuda {

namespace {
[[noreturn]] void no_cuda(const char* what) {
  throw CudaError(std::string(what) + ": balsa was built without CUDA (configure with nvcc available)");
}
}  // namespace

bool built_with_cuda() noexcept { return false; }
int device_count() noexcept { return 0; }
int current_device() { no_cuda("current_device"); }
void use_device(int) { no_cuda("use_device"); }
DeviceInfo device_info(int) { no_cuda("device_info"); }
std::pair<std::size_t, std::size_t> memory_info() { no_cuda("memory_info"); }

EventTimer::EventTimer() { no_cuda("EventTimer"); }
EventTimer::~EventTimer() = default;
void EventTimer::start() { no_cuda("EventTimer"); }
void EventTimer::stop() { no_cuda("EventTimer"); }
double EventTimer::milliseconds() { no_cuda("EventTimer"); }

namespace detail {
void* allocate(std::size_t bytes, StreamHandle) {
  if (bytes == 0) return nullptr;
  no_cuda("DeviceBuffer");
}
void release(void*, StreamHandle) noexcept {}
void copy_to_device(void*, const void*, std::size_t) { no_cuda("copy to device"); }
void copy_to_host(void*, const void*, std::size_t) { no_cuda("copy to host"); }
void copy_on_device(void*, const void*, std::size_t) { no_cuda("device copy"); }
void fill_bytes(void*, int, std::size_t) { no_cuda("fill"); }
void synchronize() { no_cuda("synchronize"); }
}  // namespace detail

template <class T> void fill(DeviceBuffer<T>&, T) { no_cuda("fill"); }
template <class T> DeviceCsr<T> to_device(const Csr<T>&) { no_cuda("to_device"); }
template <class T> DeviceCsc<T> to_device(const Csc<T>&) { no_cuda("to_device"); }
template <class T> Csr<T> to_host(const DeviceCsr<T>&) { no_cuda("to_host"); }
template <class T> Csc<T> to_host(const DeviceCsc<T>&) { no_cuda("to_host"); }
template <class T> struct CusparseSpmv<T>::Impl {};
template <class T> CusparseSpmv<T>::CusparseSpmv(const DeviceCsr<T>&) { no_cuda("CusparseSpmv"); }
template <class T> CusparseSpmv<T>::~CusparseSpmv() = default;
template <class T> void CusparseSpmv<T>::apply(T, const DeviceBuffer<T>&, T, DeviceBuffer<T>&) { no_cuda("CusparseSpmv"); }
template <class T> void CusparseSpmv<T>::apply(T, const T*, T, T*) { no_cuda("CusparseSpmv"); }
template <class T> void spmv(const DeviceCsr<T>&, const DeviceBuffer<T>&, DeviceBuffer<T>&) { no_cuda("spmv"); }
template <class T> void spmv(const DeviceCsr<T>&, const T*, T*) { no_cuda("spmv"); }

#define BALSA_INSTANTIATE(T)                                                        \
  template void fill(DeviceBuffer<T>&, T);                                          \
  template DeviceCsr<T> to_device(const Csr<T>&);                                   \
  template DeviceCsc<T> to_device(const Csc<T>&);                                   \
  template Csr<T> to_host(const DeviceCsr<T>&);                                     \
  template Csc<T> to_host(const DeviceCsc<T>&);                                     \
  template class CusparseSpmv<T>;                                                   \
  template void spmv(const DeviceCsr<T>&, const DeviceBuffer<T>&, DeviceBuffer<T>&); \
  template void spmv(const DeviceCsr<T>&, const T*, T*);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::cuda
