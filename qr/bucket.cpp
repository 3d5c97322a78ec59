// The bucket scheduler (qr/bucket.hpp; sparse QR paper sec. 3.1) and the
// host oracle of its tile tasks (sec. 3.2.1 Factorize, 3.2.2 Apply).
#include "qr/bucket.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace balsa::qr {

namespace {

// The scheduler's state while it builds one front's schedule (sec. 3.1).
class BucketScheduler {
 public:
  BucketScheduler(index_t col_tiles, const std::vector<index_t>& row_tile_left, bool pipeline);
  FrontSchedule run();

 private:
  struct Tile {
    index_t bucket = 0;
    bool tri = false;      // its column tile `bucket` is upper triangular
    bool done = false;     // final (R's rows) or retired (zero beyond the last column tile)
    index_t free_from = 0; // the first round it may join a bundle
  };
  index_t factorized(const Bundle& B, index_t r);
  void apply_pending(index_t r, std::vector<TileTask>& tasks);
  void factorize_bucket(index_t j, index_t r, index_t before, std::vector<TileTask>& tasks);
  std::vector<index_t> ready_in(index_t j, index_t r) const;

  FrontSchedule s;
  index_t RT, CT;
  bool pipeline;
  std::vector<Tile> t;
  std::vector<index_t> live;      // tiles not done, per bucket
  index_t remaining;
  index_t slots = 0;
  std::vector<index_t> pending;       // bundles factorized last round, their Apply due now
  std::vector<index_t> next_pending;  // bundles factorized this round
};

BucketScheduler::BucketScheduler(index_t col_tiles, const std::vector<index_t>& row_tile_left, bool pipeline_)
    : RT(index_t(row_tile_left.size())),
      CT(col_tiles),
      pipeline(pipeline_),
      t(static_cast<std::size_t>(RT)),
      live(static_cast<std::size_t>(CT), 0),
      remaining(RT) {
  s.row_tiles = RT;
  s.col_tiles = CT;
  s.final_tile.assign(std::size_t(CT), -1);
  for (index_t i = 0; i < RT; ++i) {
    const index_t b = row_tile_left[std::size_t(i)];
    if (b < 0 || b >= CT || (i > 0 && b < row_tile_left[std::size_t(i - 1)]))
      throw std::logic_error("bucket_schedule: row tiles' leftmost column tiles out of range or not ascending");
    t[std::size_t(i)].bucket = b;
    ++live[std::size_t(b)];
  }
}

// A bundle just factorized in round r: its top keeps the bucket (now
// triangular), the others move right (or retire past the last column).
index_t BucketScheduler::factorized(const Bundle& B, index_t r) {
  const index_t nb = index_t(s.bundles.size());
  s.bundles.push_back(B);
  s.bundle_round.push_back(r);
  const bool apply = B.col + 1 < CT;
  for (index_t q = 0; q < B.count; ++q) {
    Tile& x = t[std::size_t(B.tiles[std::size_t(q)])];
    x.free_from = apply ? r + 2 : r + 1;
    if (q == 0) {
      x.tri = true;
      continue;
    }
    --live[std::size_t(x.bucket)];
    x.tri = false;
    if (apply) {
      x.bucket = B.col + 1;
      ++live[std::size_t(x.bucket)];
    } else {
      x.done = true;
      --remaining;
    }
  }
  if (apply) next_pending.push_back(nb);
  return nb;
}

// Sec. 3.2.2 Apply (3.2.3 Apply/Factorize when pipelining): the block
// Householder updates of last round's bundles.
void BucketScheduler::apply_pending(index_t r, std::vector<TileTask>& tasks) {
  for (const index_t b : pending) {
    const Bundle B = s.bundles[std::size_t(b)];
    index_t c0 = B.col + 1;
    if (pipeline) {
      // Apply/Factorize: the tiles that move to c0, grown by tiles idle
      // there (the bundle's delta), factorized at once when at least two.
      Bundle N;
      for (index_t q = 1; q < B.count; ++q) N.tiles[std::size_t(N.count++)] = B.tiles[std::size_t(q)];
      for (index_t i = 0; i < RT && N.count < kBundleTiles; ++i) {
        const Tile& x = t[std::size_t(i)];
        if (!x.done && x.bucket == c0 && x.free_from <= r) N.tiles[std::size_t(N.count++)] = i;
      }
      if (N.count >= 2) {
        N.col = c0;
        N.slot = slots++;
        const index_t c1 = std::min(CT, c0 + kApplyChunk);
        const index_t nb = factorized(N, r);
        tasks.push_back({TileTaskKind::ApplyFactorize, b, c0, c1, nb});
        c0 = c1;
      }
    }
    for (; c0 < CT; c0 += kApplyChunk) tasks.push_back({TileTaskKind::Apply, b, c0, std::min(CT, c0 + kApplyChunk), -1});
  }
}

// The row tiles free in bucket j in round r.
std::vector<index_t> BucketScheduler::ready_in(index_t j, index_t r) const {
  std::vector<index_t> ready;
  for (index_t i = 0; i < RT; ++i) {
    const Tile& x = t[std::size_t(i)];
    if (!x.done && x.bucket == j && x.free_from <= r) ready.push_back(i);
  }
  return ready;
}

// Sec. 3.1, 3.2.1 Factorize: bucket j's free tiles in bundles (`before`:
// live tiles in the buckets left of j), or its last triangle made final.
void BucketScheduler::factorize_bucket(index_t j, index_t r, index_t before, std::vector<TileTask>& tasks) {
  const std::vector<index_t> ready = ready_in(j, r);
  if (ready.size() == 1 && t[std::size_t(ready[0])].tri) {
    if (before == 0 && live[std::size_t(j)] == 1) {  // nothing can reach bucket j any more
      t[std::size_t(ready[0])].done = true;
      --live[std::size_t(j)];
      --remaining;
      s.final_tile[std::size_t(j)] = ready[0];
    }
    return;
  }
  // Bundles of 3, the last two of 2 when a single tile would be left.
  const index_t k = index_t(ready.size());
  std::vector<index_t> sizes;
  for (index_t left = k; left > 0;) {
    const index_t size = left == 4 ? 2 : std::min<index_t>(left, kBundleTiles);
    sizes.push_back(size);
    left -= size;
  }
  index_t at = 0;
  for (const index_t size : sizes) {
    Bundle B;
    B.count = size;
    for (index_t q = 0; q < size; ++q) B.tiles[std::size_t(q)] = ready[std::size_t(at + q)];
    at += size;
    B.col = j;
    B.slot = slots++;
    const index_t nb = factorized(B, r);
    tasks.push_back({TileTaskKind::Factorize, nb, 0, 0, -1});
  }
}

FrontSchedule BucketScheduler::run() {
  for (index_t r = 0; remaining > 0; ++r) {
    if (r > 4 * (RT + CT) + 16) throw std::logic_error("bucket_schedule: no progress");
    std::vector<TileTask> tasks;
    next_pending.clear();
    apply_pending(r, tasks);
    index_t before = 0;  // live tiles in the buckets left of j
    for (index_t j = 0; j < CT; ++j) {
      factorize_bucket(j, r, before, tasks);
      before += live[std::size_t(j)];
    }
    s.rounds.push_back(std::move(tasks));
    std::swap(pending, next_pending);
  }
  while (!s.rounds.empty() && s.rounds.back().empty()) s.rounds.pop_back();
  return std::move(s);
}

}  // namespace

FrontSchedule bucket_schedule(index_t col_tiles, const std::vector<index_t>& row_tile_left, bool pipeline) {
  return BucketScheduler(col_tiles, row_tile_left, pipeline).run();
}

namespace {

// The bundle's stacked rows: row i of the stack is front row rows[i].
std::vector<index_t> stack_rows(const Bundle& B, index_t row0 = 0) {
  std::vector<index_t> rows;
  for (index_t q = 0; q < B.count; ++q)
    for (index_t i = 0; i < kTile; ++i) rows.push_back(row0 + B.tiles[std::size_t(q)] * kTile + i);
  return rows;
}

double* record(double* vt, const Bundle& B) { return vt + std::size_t(B.slot) * std::size_t(kVtRows * kTile); }
const double* record(const double* vt, const Bundle& B) { return vt + std::size_t(B.slot) * std::size_t(kVtRows * kTile); }

// V (stack x 32, unit lower trapezoidal) and T of a factorized bundle.
void load_vt(const Bundle& B, const double* front, index_t ld, const double* rec, std::vector<double>& V,
             std::vector<double>& T) {
  const index_t M = B.count * kTile;
  V.assign(std::size_t(M) * kTile, 0.0);
  T.assign(std::size_t(kTile) * kTile, 0.0);
  const std::vector<index_t> rows = stack_rows(B);
  for (index_t c = 0; c < kTile; ++c) {
    for (index_t i = 0; i <= c; ++i) T[std::size_t(i + kTile * c)] = rec[std::size_t(i + kVtRows * c)];
    V[std::size_t(c + M * c)] = 1.0;
    for (index_t i = c + 1; i < kTile; ++i) V[std::size_t(i + M * c)] = rec[std::size_t(i + 1 + kVtRows * c)];
    for (index_t i = kTile; i < M; ++i)
      V[std::size_t(i + M * c)] = front[std::size_t(rows[std::size_t(i)]) + std::size_t(ld) * std::size_t(B.col * kTile + c)];
  }
}

// C(rows, 0 .. ncols) -= V op(T) V^T C(rows, ...): op(T) = T^T for Q^T.
void apply_block(const std::vector<double>& V, const std::vector<double>& T, const std::vector<index_t>& rows,
                 double* C, index_t ldc, index_t c_first, index_t ncols, bool transpose) {
  const index_t M = index_t(rows.size());
  for (index_t c = c_first; c < c_first + ncols; ++c) {
    double w[kTile], z[kTile];
    for (index_t k = 0; k < kTile; ++k) {
      double sum = 0;
      for (index_t i = 0; i < M; ++i) sum += V[std::size_t(i + M * k)] * C[std::size_t(rows[std::size_t(i)]) + std::size_t(ldc) * c];
      w[k] = sum;
    }
    for (index_t k = 0; k < kTile; ++k) {  // z = T^T w (transpose) or T w
      double sum = 0;
      if (transpose) {
        for (index_t i = 0; i <= k; ++i) sum += T[std::size_t(i + kTile * k)] * w[i];
      } else {
        for (index_t i = k; i < kTile; ++i) sum += T[std::size_t(k + kTile * i)] * w[i];
      }
      z[k] = sum;
    }
    for (index_t i = 0; i < M; ++i) {
      double sum = 0;
      for (index_t k = 0; k < kTile; ++k) sum += V[std::size_t(i + M * k)] * z[k];
      C[std::size_t(rows[std::size_t(i)]) + std::size_t(ldc) * c] -= sum;
    }
  }
}

// Householder QR of the bundle's column tile (the Factorize task): R in the
// top tile (zeros below its diagonal), V below it, V's top part and T to
// the VT record.
void factorize_host(const Bundle& B, double* front, index_t ld, double* rec) {
  const index_t M = B.count * kTile;
  const std::vector<index_t> rows = stack_rows(B);
  std::vector<double> S(std::size_t(M) * kTile);
  auto at = [&](index_t i, index_t c) -> double& {
    return front[std::size_t(rows[std::size_t(i)]) + std::size_t(ld) * std::size_t(B.col * kTile + c)];
  };
  for (index_t c = 0; c < kTile; ++c)
    for (index_t i = 0; i < M; ++i) S[std::size_t(i + M * c)] = at(i, c);
  double tau[kTile];
  for (index_t c = 0; c < kTile; ++c) {
    double* x = S.data() + std::size_t(M) * c;
    double sigma = 0;
    for (index_t i = c + 1; i < M; ++i) sigma += x[i] * x[i];
    const double alpha = x[c];
    if (sigma == 0) {
      tau[c] = 0;
      continue;
    }
    const double beta = -std::copysign(std::sqrt(alpha * alpha + sigma), alpha);
    tau[c] = (beta - alpha) / beta;
    const double scale = 1.0 / (alpha - beta);
    for (index_t i = c + 1; i < M; ++i) x[i] *= scale;
    x[c] = beta;
    for (index_t d = c + 1; d < kTile; ++d) {
      double* y = S.data() + std::size_t(M) * d;
      double w = y[c];
      for (index_t i = c + 1; i < M; ++i) w += x[i] * y[i];
      w *= tau[c];
      y[c] -= w;
      for (index_t i = c + 1; i < M; ++i) y[i] -= w * x[i];
    }
  }
  // T (LAPACK dlarft, forward, columnwise): T(0:c, c) = -tau_c T(0:c, 0:c) V^T v_c.
  double T[kTile * kTile] = {};
  for (index_t c = 0; c < kTile; ++c) {
    double w[kTile];
    for (index_t k = 0; k < c; ++k) {  // w_k = v_k^T v_c (v unit at its own row)
      double sum = S[std::size_t(c + M * k)];
      for (index_t i = c + 1; i < M; ++i) sum += S[std::size_t(i + M * k)] * S[std::size_t(i + M * c)];
      w[k] = sum;
    }
    for (index_t k = 0; k < c; ++k) {
      double sum = 0;
      for (index_t i = k; i < c; ++i) sum += T[std::size_t(k + kTile * i)] * w[i];
      T[std::size_t(k + kTile * c)] = -tau[c] * sum;
    }
    T[std::size_t(c + kTile * c)] = tau[c];
  }
  for (index_t c = 0; c < kTile; ++c) {
    rec[std::size_t(kVtRows * c + c + 1)] = 0;
    for (index_t i = 0; i <= c; ++i) rec[std::size_t(i + kVtRows * c)] = T[std::size_t(i + kTile * c)];
    for (index_t i = c + 1; i < kTile; ++i) rec[std::size_t(i + 1 + kVtRows * c)] = S[std::size_t(i + M * c)];
    for (index_t i = 0; i < M; ++i) at(i, c) = (i < kTile && i > c) ? 0.0 : S[std::size_t(i + M * c)];
  }
}

}  // namespace

void run_task_host(TileTaskKind kind, const Bundle& B, index_t c0, index_t c1, const Bundle* next, double* front,
                   index_t ld, double* rec, double* next_rec) {
  if (kind == TileTaskKind::Factorize) {
    factorize_host(B, front, ld, rec);
    return;
  }
  std::vector<double> V, T;
  load_vt(B, front, ld, rec, V, T);
  apply_block(V, T, stack_rows(B), front, ld, c0 * kTile, (c1 - c0) * kTile, true);
  if (kind == TileTaskKind::ApplyFactorize) factorize_host(*next, front, ld, next_rec);
}

void apply_bundle_host(const Bundle& B, const double* front, index_t ld, const double* rec, double* C, index_t ldc,
                       index_t row0, index_t ncols, bool transpose) {
  std::vector<double> V, T;
  load_vt(B, front, ld, rec, V, T);
  apply_block(V, T, stack_rows(B, row0), C, ldc, 0, ncols, transpose);
}

void run_schedule_host(const FrontSchedule& s, double* front, index_t ld, double* vt) {
  for (const std::vector<TileTask>& round : s.rounds)
    for (const TileTask& task : round) {
      const Bundle& B = s.bundles[std::size_t(task.bundle)];
      const Bundle* next = task.next >= 0 ? &s.bundles[std::size_t(task.next)] : nullptr;
      run_task_host(task.kind, B, task.c0, task.c1, next, front, ld, record(vt, B), next ? record(vt, *next) : nullptr);
    }
}

void apply_schedule_q_host(const FrontSchedule& s, const double* front, index_t ld, const double* vt, double* C,
                           index_t ldc, index_t ncols, bool transpose) {
  const index_t nb = index_t(s.bundles.size());
  for (index_t k = 0; k < nb; ++k) {  // Q = B_0 B_1 ...: Q^T applies B_0's first
    const Bundle& B = s.bundles[std::size_t(transpose ? k : nb - 1 - k)];
    apply_bundle_host(B, front, ld, record(vt, B), C, ldc, 0, ncols, transpose);
  }
}

}  // namespace balsa::qr
