#ifndef IMAGO_REFERENCE_H
#define IMAGO_REFERENCE_H
/* Benchmark baselines: each library called the plain, textbook way (whole file in memory,
 * full-size RGBA into the caller's buffer, no cancellation, no resizing), so the bench can
 * show what Imago's wrapper costs on top of the bare C call. Not used by the decoder. */
#include "imago_common.h"

/* Each returns IMAGO_OK and fills out (width*4 stride) or an error status. The image must be
 * exactly width x height (read it from imago_*_open first). */
imago_status imago_reference_png(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height);
imago_status imago_reference_jpeg(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height);
imago_status imago_reference_webp(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height);
/* One of the three by the file's signature (PNG, JPEG, RIFF/WEBP); IMAGO_ERR_UNSUPPORTED for anything else. */
imago_status imago_reference_decode(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height);

/* Bytes the malloc heap has handed out and not had back (glibc mallinfo2().uordblks; 0 where
 * there is no mallinfo2), for the bench's "heap still held after a scenario" figure. */
size_t imago_reference_heap_in_use(void);

/* From now on, every malloc of at least `bytes` is mapped on its own and unmapped when freed
 * (glibc mallopt(M_MMAP_THRESHOLD), which also stops glibc raising the threshold after each
 * large free). Without it, a freed 1 MiB buffer joins the top of its thread's arena, which
 * malloc_trim does not give back, and the resident size keeps it. 0 where not available. */
int imago_reference_heap_map_from(size_t bytes);

#endif
