// balsa: everything in one include.
#pragma once

#include "balsa/config.hpp"
#include "balsa/cuda.hpp"
#include "balsa/error.hpp"
#include "balsa/factor.hpp"
#include "balsa/generators.hpp"
#include "balsa/graph.hpp"
#include "balsa/krylov.hpp"
#include "balsa/matrix_market.hpp"
#include "balsa/sparse.hpp"
#include "balsa/stats.hpp"
#include "balsa/trsv.hpp"
