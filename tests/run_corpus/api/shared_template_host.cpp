// Plain C++ for the host, as nvcc gives a .cpp file to the host compiler: its own umin (CUDA's
// device function of that name is not declared here).
static unsigned umin(unsigned a, unsigned b) {
  return a < b ? a : b;
}

unsigned smaller_of(unsigned a, unsigned b) {
  return umin(a, b);
}
