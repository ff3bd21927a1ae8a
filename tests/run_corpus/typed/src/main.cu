#include <cstdio>
#include "where.cuh"
void other_says();
int main() {
  printf("main: %s\n", __FILE__);
  HERE();
  header_says();
  other_says();
  return 0;
}
