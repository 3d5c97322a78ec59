// Stats structs as Python dicts (names as in the C++ structs, enums by their
// library names, times in seconds).
#pragma once

#include "balsa/krylov.hpp"
#include "balsa/lp.hpp"
#include "balsa/qr.hpp"
#include "balsa/sap.hpp"
#include "balsa/solve.hpp"
#include "balsa/trsv.hpp"
#include "python/src/common.hpp"

namespace balsa::python {

nb::dict to_dict(const TrsvStats& s);
nb::dict to_dict(const IncompleteStats& s);
nb::dict to_dict(const KrylovStats& s);
nb::dict to_dict(const BandedStats& s);
nb::dict to_dict(const QrStats& s);
nb::dict to_dict(const SolveReport& r);
nb::dict to_dict(const SimplexStats& s);

}  // namespace balsa::python
