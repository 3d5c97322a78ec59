// Internal to the Matrix Market reader (not installed): the entries after
// the header, parsed by matrix_market_entries.cpp for the read functions of
// matrix_market_read.cpp. Both take the header parse_header returned and
// throw ParseError naming the file and line for anything malformed.
#pragma once

#include <string>

#include "balsa/matrix_market.hpp"
#include "sparse/io/matrix_market_lines.hpp"

namespace balsa::mtx {

// The entries as triplets (with options.expand_symmetry, the mirror of
// every off-diagonal entry of a symmetric or skew-symmetric file added).
// Reserves what the input's bytes can hold (of an input of unknown size,
// what has been read so far), never what the header alone declares.
template <class T>
Coo<T> read_entries(LineReader& lr, const ByteSource& src, const std::string& name, const MtxHeader& h,
                    const MtxReadOptions& options);

// An array file's values straight into a dense matrix.
template <class T>
DenseMatrix<T> read_dense_array(LineReader& lr, const ByteSource& src, const std::string& name, const MtxHeader& h,
                                const MtxReadOptions& options);

}  // namespace balsa::mtx
