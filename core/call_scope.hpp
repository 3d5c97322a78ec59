// Internal: the scope of one public call of a solver (constructor, solve,
// update_values, ...): the options' CUDA stream (cuda::StreamScope,
// include/balsa/cuda.hpp) and CPU threads (parallel::CallThreads,
// core/parallel.hpp) hold for the call's duration and the caller's are back
// when it returns. Objects built inside the call with the default
// `threads = 0` and the outer stream run as the outer object does.
//
//   const CallScope on(s.options, "TrsvOptions");
#pragma once

#include "balsa/cuda.hpp"
#include "core/parallel.hpp"

namespace balsa {

class CallScope {
 public:
  // `what` names the options struct in the Error of a bad `threads`.
  template <class Options>
  CallScope(const Options& options, const char* what) : threads_(options.threads, what), stream_(options.stream) {}
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

 private:
  parallel::CallThreads threads_;
  cuda::StreamScope stream_;
};

}  // namespace balsa
