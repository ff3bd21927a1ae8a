#pragma once
#include <cstdio>
#define HERE() printf("macro used at %s:%d\n", __FILE__, __LINE__)
inline void header_says() { printf("header: %s\n", __FILE__); }
