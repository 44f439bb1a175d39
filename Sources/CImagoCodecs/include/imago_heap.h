#ifndef IMAGO_HEAP_H
#define IMAGO_HEAP_H

/* Hands freed malloc memory back to the kernel (glibc malloc_trim(0), which Swift's Glibc module
 * does not export). Returns 1 when memory was released, 0 when none could be (or off glibc).
 * Called on critical memory pressure and by the memory probes before they read what is held. */
int imago_heap_trim(void);

#endif
