// Stats structs as Python dicts: the keys are the names their visitors give
// (include/balsa/fields.hpp; times in seconds, keys *_seconds), enums by
// their library names, nested stats as nested dicts, vectors as lists.
#pragma once

#include <string>
#include <type_traits>
#include <vector>

#include "balsa/fields.hpp"
#include "balsa/krylov.hpp"
#include "balsa/lp.hpp"
#include "balsa/qr.hpp"
#include "balsa/sap.hpp"
#include "balsa/solve.hpp"
#include "balsa/trsv.hpp"
#include "python/src/common.hpp"

namespace balsa::python {

template <class F>
nb::object field_object(const F& f) {
  if constexpr (HasFields<F>) {
    nb::dict d;
    visit_fields(f, [&d](const char* name, const auto& x) { d[name] = field_object(x); });
    return d;
  } else if constexpr (NamedEnum<F>) {
    return nb::str(to_string(f));
  } else if constexpr (std::is_same_v<F, std::string>) {
    return text(f);
  } else if constexpr (requires { typename F::value_type; f.begin(); }) {
    nb::list l;
    for (const auto& x : f) l.append(field_object(x));
    return l;
  } else {
    return nb::cast(f);
  }
}

template <HasFields S>
nb::dict to_dict(const S& s) {
  return nb::borrow<nb::dict>(field_object(s));
}
// KrylovStats' fields and "converged" (outcome == converged).
nb::dict to_dict(const KrylovStats& s);

}  // namespace balsa::python
