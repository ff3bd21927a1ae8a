// Included by reduce.cuh by its own folder.
#pragma once

constexpr int kReduceBlock = 128;
