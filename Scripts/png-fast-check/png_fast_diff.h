/* One differential comparison of the PNG fast path against libpng, shared by png_fast_check.c
 * (corpus and synthesised files) and png_fast_fuzz.c (libFuzzer). The witness is the pull
 * decoder with IMAGO_PNG_FAST=0, i.e. libpng alone. For one file:
 * - the fast path itself (SIMD and scalar): when it decodes, libpng must succeed too and give
 *   the same pixels byte for byte; when it declines an RGBA file, `out` must be untouched;
 * - the pull decoder with the fast path on (the default): the same status as libpng and, on
 *   success, the same pixels;
 * - the row-by-row path, from memory and from a file, at full size and reduced
 *   (png_fast_rows_diff.h).
 * One difference is known and counted apart (`known_lenient`), not as a mismatch: libdeflate
 * accepts a dynamic Huffman header whose code-length repeat runs past HLIT + HDIST, which zlib
 * (libpng's inflater) refuses as "invalid bit length repeat" (Reports/fuzz-findings,
 * png-fast-bit-length-repeat.bin). libdeflate ignores the lengths past the end by design, the
 * pixels it gives pass the stream's Adler-32, and telling such a header apart before inflating
 * would mean decoding every block twice. Any other difference is a mismatch. */
#ifndef PNG_FAST_DIFF_H
#define PNG_FAST_DIFF_H
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memfd_create, for the row path's file input (png_fast_rows_diff.h) */
#endif
#include "imago_decode.h"
#include "imago_png_fast.h"

#include <stdio.h>
#include <zlib.h>
/* Larger headers are skipped (TOO_LARGE), as the fuzz targets' pixel limit does: libpng invents
 * the rows a short file lacks, and a forged 16 MP header would make each case slow. */
#ifndef PNG_FAST_DIFF_MAX_PIXELS
#define PNG_FAST_DIFF_MAX_PIXELS (1u << 24)
#endif
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct png_fast_diff_stats {
    long files, fast_decoded, fast_declined, libpng_ok, mismatches, known_lenient, rows_decoded, rows_declined,
        rows_known_lenient;
} png_fast_diff_stats;

/* A big-endian 32-bit field (chunk lengths), for this header and both programs that include it. */
static uint32_t png_fast_diff_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* zlib's message when it refuses the file's IDAT stream (joined, as libpng inflates it), or
 * NULL when it does not. */
static const char *png_fast_diff_zlib_refusal(const uint8_t *d, size_t n) {
    static char message[64];
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) return NULL;
    uint8_t out[16384];
    int ret = Z_OK;
    for (size_t pos = 8; pos + 12 <= n && ret == Z_OK;) {
        uint32_t length = png_fast_diff_be32(d + pos);
        if (length > n - pos - 12) break;
        if (memcmp(d + pos + 4, "IDAT", 4) == 0) {
            z.next_in = (Bytef *)(d + pos + 8);
            z.avail_in = length;
            while (z.avail_in > 0 && ret == Z_OK) {
                z.next_out = out;
                z.avail_out = sizeof out;
                ret = inflate(&z, Z_NO_FLUSH);
            }
        }
        pos += (size_t)length + 12;
    }
    const char *refused = NULL;
    if (ret == Z_DATA_ERROR && z.msg != NULL) {
        snprintf(message, sizeof message, "%s", z.msg);
        refused = message;
    }
    inflateEnd(&z);
    return refused;
}

/* True when zlib refuses the file's IDAT stream as "invalid bit length repeat": the whole-buffer
 * path's known difference above, the only case it may decode what libpng rejects. */
static int png_fast_diff_known_lenient(const uint8_t *d, size_t n) {
    const char *refusal = png_fast_diff_zlib_refusal(d, n);
    return refusal != NULL && strcmp(refusal, "invalid bit length repeat") == 0;
}

/* The output side: the whole image, or (reduce) a third of each side, at least 1. */
static void png_fast_diff_out_size(uint32_t w, uint32_t h, int reduce, uint32_t *ow, uint32_t *oh) {
    *ow = reduce ? (w + 2) / 3 : w;
    *oh = reduce ? (h + 2) / 3 : h;
}

/* A decode through the pull decoder with IMAGO_PNG_FAST set to mode ("0", or NULL for the
 * default), from memory (fd < 0) or from fd with its offset set to `start` first, at full size or
 * (reduce) a third of each side. *w and *h get the stored size once the file opened within the
 * pixel limit (0 before); *pixels (malloc'd, output width * 4 stride) is set on success. */
static imago_status png_fast_diff_pull(const uint8_t *data, size_t size, int fd, off_t start, const char *mode,
                                       int reduce, uint8_t **pixels, uint32_t *w, uint32_t *h) {
    if (mode) setenv("IMAGO_PNG_FAST", mode, 1); else unsetenv("IMAGO_PNG_FAST");
    imago_input input = {fd < 0 ? data : NULL, fd < 0 ? size : 0, fd};
    *pixels = NULL;
    *w = *h = 0;
    if (fd >= 0 && lseek(fd, start, SEEK_SET) != start) return IMAGO_ERR_IO;
    imago_image_info info;
    imago_error err;
    imago_png_decoder *d = imago_png_open(&input, &info, &err);
    if (d == NULL) return (imago_status)err.status;
    if ((uint64_t)info.width * info.height > PNG_FAST_DIFF_MAX_PIXELS) {
        imago_png_close(d);
        return IMAGO_ERR_TOO_LARGE;
    }
    *w = info.width;
    *h = info.height;
    uint32_t ow, oh;
    png_fast_diff_out_size(info.width, info.height, reduce, &ow, &oh);
    *pixels = malloc((size_t)ow * oh * 4);
    imago_status status = *pixels ? imago_png_decode(d, *pixels, (size_t)ow * 4, ow, oh, NULL, &err) : IMAGO_ERR_NO_MEMORY;
    imago_png_close(d);
    if (status != IMAGO_OK) {
        free(*pixels);
        *pixels = NULL;
    }
    return status;
}

static void png_fast_diff_fail(png_fast_diff_stats *stats, const char *name, const char *what) {
    stats->mismatches++;
    if (stats->mismatches < 40) fprintf(stderr, "MISMATCH %s: %s\n", name, what);
}

#include "png_fast_rows_diff.h"

static void png_fast_diff_one(const uint8_t *data, size_t size, const char *name, png_fast_diff_stats *stats) {
    uint8_t *witness, *pixels;
    uint32_t w = 0, h = 0, w2 = 0, h2 = 0;
    stats->files++;
    imago_status expected = png_fast_diff_pull(data, size, -1, 0, "0", 0, &witness, &w, &h);
    if (expected == IMAGO_OK) stats->libpng_ok++;
    for (int m = 0; m < 2 && expected != IMAGO_ERR_TOO_LARGE; m++) {
        imago_png_fast_mode mode = m == 0 ? IMAGO_PNG_FAST_SIMD : IMAGO_PNG_FAST_SCALAR;
        /* The fast path reads its own header; size the buffer from libpng's or a small default. */
        uint32_t fw = w ? w : 64, fh = h ? h : 64;
        size_t bytes = (size_t)fw * fh * 4;
        uint8_t *out = malloc(bytes);
        memset(out, 0xa5, bytes);
        imago_png_fast_result r = (w && h) ? imago_png_fast_decode(data, size, out, (size_t)fw * 4, mode, NULL)
                                           : IMAGO_PNG_FAST_DECLINED;
        if (r == IMAGO_PNG_FAST_DECODED) {
            if (m == 0) stats->fast_decoded++;
            if (expected != IMAGO_OK && png_fast_diff_known_lenient(data, size)) {
                if (m == 0) stats->known_lenient++;
            } else if (expected != IMAGO_OK) png_fast_diff_fail(stats, name, "fast path decoded what libpng rejects");
            else if (memcmp(out, witness, bytes) != 0) png_fast_diff_fail(stats, name, m ? "scalar pixels differ" : "SIMD pixels differ");
        } else {
            if (m == 0) stats->fast_declined++;
            /* RGB is inflated in place, so only an RGBA file (IHDR colour type 6) keeps out as it was. */
            int rgba = size > 25 && data[25] == 6;
            for (size_t i = 0; rgba && i < bytes; i++) {
                if (out[i] != 0xa5) { png_fast_diff_fail(stats, name, "declined but wrote into out"); break; }
            }
        }
        free(out);
    }
    imago_status actual = png_fast_diff_pull(data, size, -1, 0, NULL, 0, &pixels, &w2, &h2);
    if (actual == IMAGO_OK && expected != IMAGO_OK && png_fast_diff_known_lenient(data, size)) {
        /* the known difference, counted above when the fast path decoded it */
    } else if (actual != expected) {
        char what[96];
        snprintf(what, sizeof what, "pull decoder status %d, libpng alone %d", actual, expected);
        png_fast_diff_fail(stats, name, what);
    } else if (actual == IMAGO_OK && memcmp(pixels, witness, (size_t)w * h * 4) != 0) {
        png_fast_diff_fail(stats, name, "pull decoder pixels differ from libpng alone");
    }
    free(pixels);
    if (expected != IMAGO_ERR_TOO_LARGE) png_fast_rows_diff_one(data, size, name, stats, expected, witness, w, h);
    free(witness);
}

#endif
