// CusparseSpsv in a build without CUDA: every use is a clear error.
#include "balsa/trsv.hpp"

namespace balsa::cuda {

template <class T>
struct CusparseSpsv<T>::Impl {};
template <class T>
CusparseSpsv<T>::CusparseSpsv(const Csr<T>&, Triangle, DiagonalKind) {
  throw CudaError("CusparseSpsv: balsa was built without CUDA (configure with nvcc available)");
}
template <class T>
CusparseSpsv<T>::~CusparseSpsv() = default;
template <class T>
void CusparseSpsv<T>::solve(const DeviceBuffer<T>&, DeviceBuffer<T>&) {}
template <class T>
index_t CusparseSpsv<T>::rows() const {
  return 0;
}

template class CusparseSpsv<float>;
template class CusparseSpsv<double>;

}  // namespace balsa::cuda
