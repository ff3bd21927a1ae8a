// Amdahl's law (fixed problem size) and Gustafson's law (scaled problem size).
#pragma once

namespace gpulab::calc {

// Speedup of a program whose parallel fraction p runs on n processors: 1 / (p/n + (1 - p)).
double amdahl_speedup(double p, double n);
// The speedup as n grows without bound: 1 / (1 - p); +infinity when p == 1.
double amdahl_limit(double p);
// Gustafson's scaled speedup when the parallel part grows with n: (1 - p) + p * n, where p is the
// parallel fraction of the time on the n-processor machine.
double gustafson_speedup(double p, double n);
// The smallest n whose Amdahl speedup reaches `fraction` (e.g. 0.9) of the limit; 0 when p == 1.
double processors_for_fraction_of_limit(double p, double fraction);

}  // namespace gpulab::calc
