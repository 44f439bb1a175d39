/* The bench's heap figure: glibc's own count of bytes in use (Swift's Glibc module does not
 * export mallinfo2, so it is read here). */
#include "imago_reference.h"

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#include <malloc.h>

size_t imago_reference_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return info.uordblks;
}

int imago_reference_heap_map_from(size_t bytes) { return mallopt(M_MMAP_THRESHOLD, (int)bytes); }
#else
size_t imago_reference_heap_in_use(void) { return 0; }
int imago_reference_heap_map_from(size_t bytes) { (void)bytes; return 0; }
#endif
