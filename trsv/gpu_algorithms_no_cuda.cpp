// The GPU triangular solvers in a build without CUDA: a clear error.
#include "core/instantiate.hpp"
#include "trsv/gpu_algorithm.hpp"

namespace balsa::trsv_gpu {

namespace {
[[noreturn]] void no_cuda() {
  throw CudaError("GPU triangular solve: balsa was built without CUDA (configure with nvcc available)");
}
}  // namespace

template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>&, Triangle, DiagonalKind) { no_cuda(); }
template <class T>
std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>&, Triangle, DiagonalKind, const LevelSets&,
                                             const LevelSetTuning&) {
  no_cuda();
}
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>&, Triangle, DiagonalKind) { no_cuda(); }
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>&, Triangle, DiagonalKind, const LevelSets&, int) {
  no_cuda();
}
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>&, Triangle, DiagonalKind) { no_cuda(); }
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>&, Triangle, DiagonalKind, int) { no_cuda(); }
template <class T>
std::unique_ptr<Algorithm<T>> make_cusparse(const Csr<T>&, Triangle, DiagonalKind) { no_cuda(); }
template <class T>
std::unique_ptr<Algorithm<T>> make_tassl(const Csr<T>&, Triangle, DiagonalKind, const TasslTuning&) { no_cuda(); }
index_t tassl_default_n_max(std::size_t) { no_cuda(); }
template <class T>
std::unique_ptr<Algorithm<T>> make_sync_free_blocks(const Csr<T>&, Triangle, DiagonalKind, const LevelSets&,
                                                    const SyncFreeBlocksTuning&) {
  no_cuda();
}
template <class T>
std::unique_ptr<Algorithm<T>> make_spike(const Csr<T>&, Triangle, DiagonalKind, const trsv_spike::Partition&) {
  no_cuda();
}
template <class T>
BadValue find_bad_value(const T*, std::size_t, const index_t*, index_t) { no_cuda(); }
template <class T>
void gather_device(const index_t*, const T*, T*, std::size_t, T) { no_cuda(); }

#define BALSA_INSTANTIATE(T)                                                                        \
  template std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>&, Triangle, DiagonalKind);     \
  template std::unique_ptr<Algorithm<T>> make_level_set(const Csr<T>&, Triangle, DiagonalKind,      \
                                                        const LevelSets&, const LevelSetTuning&);   \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>&, Triangle, DiagonalKind); \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csr(const Csr<T>&, Triangle, DiagonalKind, \
                                                            const LevelSets&, int);                 \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>&, Triangle, DiagonalKind); \
  template std::unique_ptr<Algorithm<T>> make_sync_free_csc(const Csr<T>&, Triangle, DiagonalKind, int); \
  template std::unique_ptr<Algorithm<T>> make_cusparse(const Csr<T>&, Triangle, DiagonalKind);     \
  template std::unique_ptr<Algorithm<T>> make_tassl(const Csr<T>&, Triangle, DiagonalKind, const TasslTuning&); \
  template std::unique_ptr<Algorithm<T>> make_sync_free_blocks(const Csr<T>&, Triangle, DiagonalKind,           \
                                                               const LevelSets&, const SyncFreeBlocksTuning&);  \
  template std::unique_ptr<Algorithm<T>> make_spike(const Csr<T>&, Triangle, DiagonalKind,                      \
                                                    const trsv_spike::Partition&);                              \
  template BadValue find_bad_value(const T*, std::size_t, const index_t*, index_t);                             \
  template void gather_device(const index_t*, const T*, T*, std::size_t, T);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::trsv_gpu
