// Host <-> device copies of the sparse types. CSR and CSC are the same three
// arrays under other names; one pair of helpers copies both.
#include "balsa/cuda.hpp"
#include "core/instantiate.hpp"
#include "core/exceptions.hpp"

namespace balsa::cuda {

namespace {
template <class T>
void upload(const std::vector<index_t>& ptr, const std::vector<index_t>& idx, const std::vector<T>& val,
            DeviceBuffer<index_t>& d_ptr, DeviceBuffer<index_t>& d_idx, DeviceBuffer<T>& d_val) {
  d_ptr = DeviceBuffer<index_t>(std::span<const index_t>(ptr));
  d_idx = DeviceBuffer<index_t>(std::span<const index_t>(idx));
  d_val = DeviceBuffer<T>(std::span<const T>(val));
}

template <class T>
void download(const DeviceBuffer<index_t>& d_ptr, const DeviceBuffer<index_t>& d_idx, const DeviceBuffer<T>& d_val,
              std::vector<index_t>& ptr, std::vector<index_t>& idx, std::vector<T>& val) {
  ptr = d_ptr.to_host();
  idx = d_idx.to_host();
  val = d_val.to_host();
}
}  // namespace

template <class T>
DeviceCsr<T> to_device(const Csr<T>& A) try {
  validate(A);
  DeviceCsr<T> D{A.rows, A.cols, A.nnz(), {}, {}, {}};
  upload(A.row_ptr, A.col_idx, A.values, D.row_ptr, D.col_idx, D.values);
  return D;
} catch (...) {
  rethrow_as_balsa_error("to_device");
}

template <class T>
DeviceCsc<T> to_device(const Csc<T>& A) try {
  validate(A);
  DeviceCsc<T> D{A.rows, A.cols, A.nnz(), {}, {}, {}};
  upload(A.col_ptr, A.row_idx, A.values, D.col_ptr, D.row_idx, D.values);
  return D;
} catch (...) {
  rethrow_as_balsa_error("to_device");
}

template <class T>
Csr<T> to_host(const DeviceCsr<T>& D) try {
  Csr<T> A;
  A.rows = D.rows;
  A.cols = D.cols;
  download(D.row_ptr, D.col_idx, D.values, A.row_ptr, A.col_idx, A.values);
  validate(A);
  return A;
} catch (...) {
  rethrow_as_balsa_error("to_host");
}

template <class T>
Csc<T> to_host(const DeviceCsc<T>& D) try {
  Csc<T> A;
  A.rows = D.rows;
  A.cols = D.cols;
  download(D.col_ptr, D.row_idx, D.values, A.col_ptr, A.row_idx, A.values);
  validate(A);
  return A;
} catch (...) {
  rethrow_as_balsa_error("to_host");
}

#define BALSA_INSTANTIATE(T)                          \
  template DeviceCsr<T> to_device(const Csr<T>&);     \
  template DeviceCsc<T> to_device(const Csc<T>&);     \
  template Csr<T> to_host(const DeviceCsr<T>&);       \
  template Csc<T> to_host(const DeviceCsc<T>&);
BALSA_FOR_EACH_VALUE_TYPE(BALSA_INSTANTIATE)

}  // namespace balsa::cuda
