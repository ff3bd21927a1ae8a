// Amdahl's and Gustafson's laws (see amdahl.hpp).
#include "calc/amdahl.hpp"

#include <cmath>
#include <limits>

namespace gpulab::calc {

double amdahl_speedup(double p, double n) {
  return 1.0 / (p / n + (1.0 - p));
}

double amdahl_limit(double p) {
  return p >= 1.0 ? std::numeric_limits<double>::infinity() : 1.0 / (1.0 - p);
}

double gustafson_speedup(double p, double n) {
  return (1.0 - p) + p * n;
}

double processors_for_fraction_of_limit(double p, double fraction) {
  // fraction / (1-p) = 1 / (p/n + 1 - p)  =>  p/n = (1-p)(1/fraction - 1)
  if (p >= 1.0 || p <= 0.0) return 0.0;
  return std::ceil(p / ((1.0 - p) * (1.0 / fraction - 1.0)) - 1e-9);
}

}  // namespace gpulab::calc
