#include "imago_bench_counted.h"

/* noinline: the symbol must exist and be entered once per call for callgrind to toggle on it. */
__attribute__((noinline)) void imago_bench_counted(void (*body)(void *context), void *context) {
    body(context);
    /* An empty asm after the call keeps it from becoming a tail jump, which callgrind would
     * not see leave this function before the body's own return. */
    __asm__ volatile("" ::: "memory");
}
