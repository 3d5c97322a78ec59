// Host <-> device copies of the sparse types.
#include "balsa/cuda.hpp"
#include "sparse/instantiate.hpp"

namespace balsa::cuda {

template <class T>
DeviceCsr<T> to_device(const Csr<T>& A) {
  validate(A);
  DeviceCsr<T> D;
  D.rows = A.rows;
  D.cols = A.cols;
  D.nnz = A.nnz();
  D.row_ptr = DeviceBuffer<index_t>(std::span<const index_t>(A.row_ptr));
  D.col_idx = DeviceBuffer<index_t>(std::span<const index_t>(A.col_idx));
  D.values = DeviceBuffer<T>(std::span<const T>(A.values));
  return D;
}

template <class T>
DeviceCsc<T> to_device(const Csc<T>& A) {
  validate(A);
  DeviceCsc<T> D;
  D.rows = A.rows;
  D.cols = A.cols;
  D.nnz = A.nnz();
  D.col_ptr = DeviceBuffer<index_t>(std::span<const index_t>(A.col_ptr));
  D.row_idx = DeviceBuffer<index_t>(std::span<const index_t>(A.row_idx));
  D.values = DeviceBuffer<T>(std::span<const T>(A.values));
  return D;
}

template <class T>
Csr<T> to_host(const DeviceCsr<T>& D) {
  Csr<T> A;
  A.rows = D.rows;
  A.cols = D.cols;
  A.row_ptr = D.row_ptr.to_host();
  A.col_idx = D.col_idx.to_host();
  A.values = D.values.to_host();
  validate(A);
  return A;
}

template <class T>
Csc<T> to_host(const DeviceCsc<T>& D) {
  Csc<T> A;
  A.rows = D.rows;
  A.cols = D.cols;
  A.col_ptr = D.col_ptr.to_host();
  A.row_idx = D.row_idx.to_host();
  A.values = D.values.to_host();
  validate(A);
  return A;
}

#define BALSA_INSTANTIATE(T)                          \
  template DeviceCsr<T> to_device(const Csr<T>&);     \
  template DeviceCsc<T> to_device(const Csc<T>&);     \
  template Csr<T> to_host(const DeviceCsr<T>&);       \
  template Csc<T> to_host(const DeviceCsc<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::cuda
