// balsa: everything in one include (every capability's header; the
// benchmark drivers' header is bench/bench.hpp, outside the library).
#pragma once

#include "balsa/config.hpp"
#include "balsa/core.hpp"
#include "balsa/cuda.hpp"
#include "balsa/direct.hpp"
#include "balsa/error.hpp"
#include "balsa/fields.hpp"
#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/krylov.hpp"
#include "balsa/lp.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/qr.hpp"
#include "balsa/reorder.hpp"
#include "balsa/sap.hpp"
#include "balsa/solve.hpp"
#include "balsa/sparse.hpp"
#include "balsa/stats.hpp"
#include "balsa/trsv.hpp"
#include "balsa/trsv_model.hpp"
