#define _GNU_SOURCE
#include "imago_bench_affinity.h"

#include <string.h>

#if defined(__linux__)
#include <sched.h>

_Static_assert(sizeof(imago_cpu_mask) == sizeof(cpu_set_t), "imago_cpu_mask must match cpu_set_t");

int imago_bench_affinity_get(imago_cpu_mask *mask) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    memcpy(mask, &set, sizeof set);
    return 0;
}

int imago_bench_affinity_set(const imago_cpu_mask *mask) {
    cpu_set_t set;
    memcpy(&set, mask, sizeof set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}
#else
int imago_bench_affinity_get(imago_cpu_mask *mask) { memset(mask, 0, sizeof *mask); return -1; }
int imago_bench_affinity_set(const imago_cpu_mask *mask) { (void)mask; return -1; }
#endif
