#include "imago_heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
int imago_heap_trim(void) { return malloc_trim(0); }
#else
int imago_heap_trim(void) { return 0; }
#endif
