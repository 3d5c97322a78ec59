// Stats structs as JSON through their field visitors (include/balsa/
// fields.hpp): the balsa command's and the benchmarks' one writer of stats.
// Keys are the visitor's names (times *_seconds), enums by their library
// names, nested stats as nested objects, vectors as arrays.
#pragma once

#include <type_traits>

#include <nlohmann/json.hpp>

#include "balsa/core.hpp"
#include "balsa/fields.hpp"

namespace balsa::app {

template <class F>
nlohmann::json fields_json(const F& f) {
  if constexpr (HasFields<F>) {
    nlohmann::json j = nlohmann::json::object();
    visit_fields(f, [&j](const char* name, const auto& x) { j[name] = fields_json(x); });
    return j;
  } else if constexpr (NamedEnum<F>) {
    return to_string(f);
  } else if constexpr (requires { typename F::value_type; f.begin(); } && !std::is_same_v<F, std::string>) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& x : f) j.push_back(fields_json(x));
    return j;
  } else {
    return f;
  }
}

}  // namespace balsa::app
