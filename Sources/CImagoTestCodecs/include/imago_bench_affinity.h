/* The bench's core pinning (ImagoBench's CorePinning): the calling thread's CPU set, read and
 * written. sched_getaffinity is a GNU extension that Swift's Glibc module does not show, so it is
 * reached from here. Bench-only: never linked by Imago. */
#ifndef IMAGO_BENCH_AFFINITY_H
#define IMAGO_BENCH_AFFINITY_H

/* A CPU set of 1,024 CPUs, the size of glibc's cpu_set_t: bit n of bits[n / 64] is CPU n. */
typedef struct {
    unsigned long long bits[16];
} imago_cpu_mask;

/* The calling thread's CPU set into *mask; 0 on success, -1 where it cannot be read. */
int imago_bench_affinity_get(imago_cpu_mask *mask);

/* Restricts the calling thread (and the processes it starts from now on) to *mask; 0 on success,
 * -1 when the kernel refuses (a CPU outside the cgroup's set, say) or on other systems. */
int imago_bench_affinity_set(const imago_cpu_mask *mask);

#endif
