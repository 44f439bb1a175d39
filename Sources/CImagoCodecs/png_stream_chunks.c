/* PNG chunk framing for the push decoder: see png_stream_chunks.h. */
#include "png_stream_chunks.h"

#include <stdio.h>
#include <string.h>
#include <zlib.h>

void imago_png_chunks_init(imago_png_chunks *f) {
    memset(f, 0, sizeof *f);
    f->signature_left = 8;
}

static int imago_png_chunk_letters(const uint8_t *type) {
    for (int i = 0; i < 4; i++) {
        uint8_t c = type[i] | 0x20;
        if (c < 'a' || c > 'z') return 0;
    }
    return 1;
}

/* A whole header is in head: decides what libpng gets for this chunk. */
static void imago_png_chunks_classify(imago_png_chunks *f) {
    const uint8_t *type = f->head + 4;
    uint32_t length = (uint32_t)f->head[0] << 24 | (uint32_t)f->head[1] << 16 | (uint32_t)f->head[2] << 8 | f->head[3];
    int ancillary = imago_png_chunk_letters(type) && (type[0] & 0x20) != 0;
    int idat = memcmp(type, "IDAT", 4) == 0;
    int small_trns = memcmp(type, "tRNS", 4) == 0 && length <= 256;
    f->head_size = 8;
    f->head_fed = 0;
    f->refuse = 0;
    if (length > 0x7fffffffu) {
        f->refuse = 1;   /* libpng fails on the header ("PNG unsigned integer out of range") */
    } else if (ancillary && !small_trns) {
        /* libpng's own limit on an ancillary chunk's length (png_check_chunk_length) is a benign
         * error with libpng 1.6.39 (the pull decoder decodes such a file), so none applies here. */
        memset(f->head, 0, 4);
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), type, 4);
        f->head[8] = (uint8_t)(crc >> 24);
        f->head[9] = (uint8_t)(crc >> 16);
        f->head[10] = (uint8_t)(crc >> 8);
        f->head[11] = (uint8_t)crc;
        f->head_size = 12;
        f->skip_left = (uint64_t)length + 4;
    } else if (!idat && length > IMAGO_PNG_KEPT_CHUNK_MAX) {
        f->refuse = 1;
    } else {
        f->pass_left = (uint64_t)length + 4;
    }
}

size_t imago_png_chunks_feed(imago_png_chunks *f, const uint8_t *data, size_t size, imago_png_sink sink, void *ctx,
                             png_structp png) {
    size_t off = 0;
    int stop = 0;
    for (;;) {
        if (f->head_size != 0) {   /* a header (or its stand-in) to give libpng */
            size_t want = f->head_size - f->head_fed;
            if (want > 0) f->head_fed += (uint32_t)sink(ctx, f->head + f->head_fed, want, &stop);
            if (f->head_fed < f->head_size) return off;   /* libpng stopped inside it: kept for the next push */
            if (f->refuse) {
                uint32_t length = (uint32_t)f->head[0] << 24 | (uint32_t)f->head[1] << 16 |
                                  (uint32_t)f->head[2] << 8 | f->head[3];
                char message[80];
                snprintf(message, sizeof message, "%.4s chunk of %u bytes is too large", (const char *)f->head + 4, length);
                png_error(png, message);
            }
            f->head_size = f->head_have = f->head_fed = 0;
            if (stop) return off;
            continue;
        }
        if (off == size) return off;
        size_t left = size - off;
        if (f->skip_left > 0) {
            size_t n = f->skip_left < left ? (size_t)f->skip_left : left;
            f->skip_left -= n;
            off += n;
            continue;
        }
        uint64_t *pass = f->signature_left > 0 ? NULL : &f->pass_left;
        uint64_t pending = pass ? *pass : f->signature_left;
        if (pending > 0) {
            size_t n = pending < left ? (size_t)pending : left;
            size_t took = sink(ctx, data + off, n, &stop);
            if (pass) *pass -= took;
            else f->signature_left -= (uint32_t)took;
            off += took;
            if (stop || took < n) return off;
            continue;
        }
        size_t n = 8 - f->head_have < left ? 8 - f->head_have : left;
        memcpy(f->head + f->head_have, data + off, n);
        f->head_have += (uint32_t)n;
        off += n;
        if (f->head_have == 8) imago_png_chunks_classify(f);
    }
}
