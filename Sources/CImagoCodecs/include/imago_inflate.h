#ifndef IMAGO_INFLATE_H
#define IMAGO_INFLATE_H

#include <stddef.h>
#include <stdint.h>

/* Undoes a gzip or deflate (zlib-wrapped) Content-Encoding, step by step, into buffers the
 * caller owns. One stream per response body; not shared between threads at once. */
typedef struct imago_inflate imago_inflate;

typedef enum {
    IMAGO_INFLATE_MORE = 0,      /* wants more input, or more room for output */
    IMAGO_INFLATE_END = 1,       /* complete so far: the stream (or a gzip member) ended */
    IMAGO_INFLATE_CORRUPT = -1,  /* not a gzip/zlib stream, or corrupt */
    IMAGO_INFLATE_NO_MEMORY = -2
} imago_inflate_status;

/* NULL when out of memory. The header (gzip or zlib) is detected from the first bytes. */
imago_inflate *imago_inflate_create(void);

/* Inflates from `input` into `output`; `*consumed` input and `*produced` output bytes are set on
 * every return. After IMAGO_INFLATE_END, input that begins another gzip member is inflated as
 * such; any other bytes after the end are consumed and ignored. */
imago_inflate_status imago_inflate_step(imago_inflate *stream, const uint8_t *input, size_t input_length,
                                        size_t *consumed, uint8_t *output, size_t output_capacity,
                                        size_t *produced);

void imago_inflate_destroy(imago_inflate *stream);

#endif
