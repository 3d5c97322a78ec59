// Stats structs as Python dicts (python/src/stats.hpp).
#include "python/src/stats.hpp"

namespace balsa::python {

nb::dict to_dict(const KrylovStats& s) {
  nb::dict d = nb::borrow<nb::dict>(field_object(s));
  d["converged"] = s.outcome == KrylovOutcome::Converged;
  return d;
}

}  // namespace balsa::python
