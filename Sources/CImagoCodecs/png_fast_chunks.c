/* The fast paths' chunk rules (see png_fast_chunks.h). */
#include "png_fast_chunks.h"

#include <string.h>

uint32_t imago_png_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int imago_chunk_is(const uint8_t *type, const char *name) { return memcmp(type, name, 4) == 0; }

static int imago_chunk_type_valid(const uint8_t *type) {
    for (int i = 0; i < 4; i++) {
        uint8_t c = type[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) return 0;
    }
    return 1;
}

imago_png_chunk_kind imago_png_fast_judge(imago_png_walk *walk, const uint8_t type[4], uint32_t length) {
    enum { before_idat, in_idat, after_idat };
    int first = walk->chunks++ == 0;
    if (length > IMAGO_PNG_UINT31_MAX || !imago_chunk_type_valid(type)) return IMAGO_PNG_CHUNK_DECLINE;
    if (first) return imago_chunk_is(type, "IHDR") && length == 13 ? IMAGO_PNG_CHUNK_IHDR : IMAGO_PNG_CHUNK_DECLINE;
    if (imago_chunk_is(type, "IDAT")) {
        if (walk->state == after_idat) return IMAGO_PNG_CHUNK_DECLINE;
        if (length > IMAGO_PNG_CHUNK_MALLOC_MAX && length > walk->raw_size) return IMAGO_PNG_CHUNK_DECLINE;
        walk->state = in_idat;
        return IMAGO_PNG_CHUNK_IDAT;
    }
    if (imago_chunk_is(type, "IEND")) {
        return walk->state != before_idat && length == 0 ? IMAGO_PNG_CHUNK_IEND : IMAGO_PNG_CHUNK_DECLINE;
    }
    if (walk->state == in_idat) walk->state = after_idat;
    /* Critical: IHDR again, PLTE, or one libpng does not know. */
    if ((type[0] & 0x20) == 0 || imago_chunk_is(type, "tRNS")) return IMAGO_PNG_CHUNK_DECLINE;
    if (length > IMAGO_PNG_CHUNK_MALLOC_MAX) return IMAGO_PNG_CHUNK_DECLINE;
    return IMAGO_PNG_CHUNK_ANCILLARY;
}

/* 8-bit RGB (channels 3) or RGBA (4), deflate, filter method 0, no interlace, sides within
 * 2^31 - 1. */
int imago_png_fast_header(const uint8_t *ihdr, imago_png_layout *layout) {
    layout->width = imago_png_be32(ihdr);
    layout->height = imago_png_be32(ihdr + 4);
    if (layout->width == 0 || layout->height == 0) return 0;
    if (layout->width > IMAGO_PNG_UINT31_MAX || layout->height > IMAGO_PNG_UINT31_MAX) return 0;
    if (ihdr[8] != 8 || ihdr[10] != 0 || ihdr[11] != 0 || ihdr[12] != 0) return 0;
    if (ihdr[9] != 2 && ihdr[9] != 6) return 0;
    layout->channels = ihdr[9] == 2 ? 3 : 4;
    layout->raw_size = (uint64_t)(1 + (uint64_t)layout->width * (uint64_t)layout->channels) * layout->height;
    return 1;
}

int imago_png_fast_zlib_header_ok(const uint8_t zlib[2], uint64_t raw_size) {
    int cinfo = zlib[0] >> 4;
    if ((zlib[0] & 0x0f) != 8 || (zlib[1] & 0x20) != 0 || ((unsigned)zlib[0] << 8 | zlib[1]) % 31 != 0) return 0;
    return cinfo == 7 || (cinfo < 7 && raw_size <= (1u << (cinfo + 8)));
}
