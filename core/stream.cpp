// The calling thread's current stream (balsa::cuda::StreamScope,
// include/balsa/cuda.hpp): one thread-local handle, in every build (a build
// without CUDA keeps it too, so that the objects' scopes compile the same).
#include "balsa/cuda.hpp"

namespace balsa::cuda {

namespace {
thread_local StreamHandle current = nullptr;
}  // namespace

StreamHandle current_stream() noexcept { return current; }

StreamScope::StreamScope(StreamHandle stream) noexcept : previous_(current) { current = stream; }
StreamScope::~StreamScope() { current = previous_; }

}  // namespace balsa::cuda
