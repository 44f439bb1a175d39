#ifndef IMAGO_WEBP_CONTAINER_H
#define IMAGO_WEBP_CONTAINER_H
/* The container rule both WebP decoders apply (internal to CImagoCodecs): the image ends at its
 * RIFF size, and every chunk lies inside it (the last chunk's pad byte may be missing). libwebp's
 * incremental decoder, given a chunk that runs past the RIFF size, succeeds or fails depending on
 * how its bytes arrive, so neither decoder could promise the other's result for such a file;
 * both refuse it as corrupt instead, whichever way the bytes come. Data that is not a RIFF (a
 * bare VP8/VP8L bitstream, or garbage libwebp rejects itself) is not walked. */
#include "imago_common.h"

#include <stddef.h>
#include <stdint.h>

typedef struct imago_webp_walk {
    uint64_t seen;       /* bytes walked */
    uint64_t riff_end;   /* RIFF size + 8; 0 until the RIFF header is read */
    uint64_t next;       /* where the next chunk header starts */
    uint8_t header[8];   /* the RIFF header's or a chunk header's first bytes, gathered */
    unsigned have;
    int done;            /* reached the RIFF end, or not a RIFF */
} imago_webp_walk;

/* Walks the next `size` bytes of the file; IMAGO_ERR_CORRUPT with err filled when a chunk runs
 * past the RIFF size. Zero-initialise the walk first. */
imago_status imago_webp_walk_feed(imago_webp_walk *walk, const uint8_t *data, size_t size, imago_error *err);

/* Where a RIFF file's image ends (RIFF size + 8), or 0 when the first 8 bytes are not a RIFF header. */
size_t imago_webp_riff_end(const uint8_t *data, size_t size);

#endif
