//===- AutoDiff.h - A small reverse-mode autodiff scalar --------*- C++ -*-===//
//
// The gradients are the derivatives of the f64 definition itself: the same
// templated attention code runs on Var, which records every operation on a
// tape, and a reverse sweep accumulates adjoints. Deliberately simple: each
// node has at most two parents.
//
//===----------------------------------------------------------------------===//

#ifndef SYMPOW_REFERENCE_LIB_AUTODIFF_H
#define SYMPOW_REFERENCE_LIB_AUTODIFF_H

#include <cmath>
#include <cstdint>
#include <vector>

namespace sympow::reference::ad {

class Tape {
public:
  /// Records a node with local partials d(node)/d(parent); parent -1 means a
  /// constant. Returns the node's index.
  int64_t push(int64_t a, double da, int64_t b, double db) {
    nodes.push_back({a, b, da, db});
    return static_cast<int64_t>(nodes.size()) - 1;
  }
  int64_t newLeaf() { return push(-1, 0, -1, 0); }
  size_t size() const { return nodes.size(); }

  /// Adjoints of every node given seed adjoints.
  std::vector<double> reverse(const std::vector<double> &seed) const {
    std::vector<double> adj = seed;
    adj.resize(nodes.size(), 0.0);
    for (int64_t i = static_cast<int64_t>(nodes.size()) - 1; i >= 0; --i) {
      double g = adj[i];
      if (g == 0.0)
        continue;
      const Node &n = nodes[i];
      if (n.a >= 0)
        adj[n.a] += g * n.da;
      if (n.b >= 0)
        adj[n.b] += g * n.db;
    }
    return adj;
  }

private:
  struct Node {
    int64_t a, b;
    double da, db;
  };
  std::vector<Node> nodes;
};

/// The tape new Vars are recorded on (one gradient computation at a time
/// per thread).
inline thread_local Tape *activeTape = nullptr;

struct Var {
  double val = 0.0;
  int64_t id = -1; ///< -1: a constant, not on the tape

  Var() = default;
  Var(double v) : val(v) {}
  Var(double v, int64_t id) : val(v), id(id) {}

  static Var leaf(double v) { return Var(v, activeTape->newLeaf()); }
};

inline Var unary(double val, const Var &x, double dx) {
  if (x.id < 0)
    return Var(val);
  return Var(val, activeTape->push(x.id, dx, -1, 0));
}

inline Var binary(double val, const Var &x, double dx, const Var &y,
                  double dy) {
  if (x.id < 0 && y.id < 0)
    return Var(val);
  return Var(val, activeTape->push(x.id, dx, y.id, dy));
}

inline Var operator+(const Var &x, const Var &y) {
  return binary(x.val + y.val, x, 1, y, 1);
}
inline Var operator-(const Var &x, const Var &y) {
  return binary(x.val - y.val, x, 1, y, -1);
}
inline Var operator*(const Var &x, const Var &y) {
  return binary(x.val * y.val, x, y.val, y, x.val);
}
inline Var operator/(const Var &x, const Var &y) {
  return binary(x.val / y.val, x, 1 / y.val, y, -x.val / (y.val * y.val));
}
inline Var operator-(const Var &x) { return unary(-x.val, x, -1); }
inline Var operator+(const Var &x, double y) { return unary(x.val + y, x, 1); }
inline Var operator+(double x, const Var &y) { return y + x; }
inline Var operator-(const Var &x, double y) { return unary(x.val - y, x, 1); }
inline Var operator-(double x, const Var &y) { return unary(x - y.val, y, -1); }
inline Var operator*(const Var &x, double y) { return unary(x.val * y, x, y); }
inline Var operator*(double x, const Var &y) { return y * x; }
inline Var &operator+=(Var &x, const Var &y) { return x = x + y; }

inline Var exp(const Var &x) {
  double e = std::exp(x.val);
  return unary(e, x, e);
}
inline Var sin(const Var &x) {
  return unary(std::sin(x.val), x, std::cos(x.val));
}
inline Var cos(const Var &x) {
  return unary(std::cos(x.val), x, -std::sin(x.val));
}
inline Var ipow(const Var &x, int p) {
  double lower = 1.0;
  for (int i = 1; i < p; ++i)
    lower *= x.val;
  return unary(lower * x.val, x, p * lower);
}

inline double valueOf(const Var &x) { return x.val; }

} // namespace sympow::reference::ad

namespace sympow::reference {

inline double ipow(double x, int p) {
  double r = 1.0;
  for (int i = 0; i < p; ++i)
    r *= x;
  return r;
}
inline double valueOf(double x) { return x; }

/// A token's log gate (log_g + log_gamma), saturated at kLogGateFloor before
/// it enters a prefix sum G. exp(-1024) is 0 in f64 (and f32), and every
/// gate is <= 0, so a weight exp(G_i - G_j) that spans a gate below the
/// floor is exactly 0 with or without it (and so is its derivative); without
/// it, G of -1e37-sized gates cancels catastrophically in G_i - G_j for the
/// tokens after them. The generated kernels saturate at the same floor
/// (compiler/lib/GPU/KernelCommon.h). docs/SPEC.md, "Gates below f32".
constexpr double kLogGateFloor = -1024.0;
template <typename S> S saturateLogGate(const S &g) {
  return valueOf(g) < kLogGateFloor ? S(kLogGateFloor) : g;
}

} // namespace sympow::reference

#endif // SYMPOW_REFERENCE_LIB_AUTODIFF_H
