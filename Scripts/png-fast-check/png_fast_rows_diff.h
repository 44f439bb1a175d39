/* The row-by-row fast path (imago_png_fast_rows_decode: ISA-L, any input, any output size)
 * against libpng, for png_fast_diff_one (png_fast_diff.h). For one file, at full size and at a
 * third of it (the area-average resizer, as libpng's reduced decode uses):
 * - the row path itself on the memory input at full size (SIMD; the scalar unfilters are the
 *   whole-buffer path's, checked there): when it decodes, libpng must succeed too with the same
 *   pixels byte for byte (a decline may have written rows: nothing to check then, the pull
 *   decoder's libpng decode writes them again); at a third the pull decoder below runs it;
 * - the pull decoder with the fast path on, from memory at a third and from a file (a memfd whose
 *   PNG starts 5 bytes in, so the descriptor's start offset matters) at both sizes: the same
 *   status as libpng alone and the same pixels.
 * One difference is known and counted apart (`rows_known_lenient`), not as a mismatch: ISA-L
 * judges a dynamic Huffman code only by the codes the data uses, so it decodes a stream whose
 * header defines an incomplete or over-full code for symbols never used ("invalid distances
 * set", "invalid literal/lengths set"), or repeats a code length past HLIT + HDIST ("invalid bit
 * length repeat"), all of which zlib (libpng's inflater) refuses when it reads the header. The
 * pixels the row path gives then pass the stream's Adler-32. Any other difference is a mismatch. */
#ifndef PNG_FAST_ROWS_DIFF_H
#define PNG_FAST_ROWS_DIFF_H
#include "imago_decode.h"
#include "imago_png_fast.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PNG_FAST_ROWS_DIFF_PREFIX 5

/* The known difference above: zlib refuses the stream for one of these header faults. */
static int png_fast_rows_diff_known_lenient(const uint8_t *d, size_t n) {
    const char *refusal = png_fast_diff_zlib_refusal(d, n);
    return refusal != NULL && (strcmp(refusal, "invalid distances set") == 0 || strcmp(refusal, "invalid literal/lengths set") == 0
                               || strcmp(refusal, "invalid bit length repeat") == 0);
}

/* A memfd with 5 junk bytes and then the file, its offset at the file's first byte; -1 if none. */
static int png_fast_rows_diff_file(const uint8_t *data, size_t size) {
    int fd = memfd_create("png-fast-rows-diff", 0);
    if (fd < 0) return -1;
    static const uint8_t junk[PNG_FAST_ROWS_DIFF_PREFIX] = {'j', 'u', 'n', 'k', '!'};
    if (write(fd, junk, sizeof junk) != (ssize_t)sizeof junk || (size && write(fd, data, size) != (ssize_t)size)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The row path called directly on the memory input at full size (SIMD), against the witness. */
static void png_fast_rows_diff_direct(const uint8_t *data, size_t size, const char *name, png_fast_diff_stats *stats,
                                      imago_status expected, const uint8_t *witness, uint32_t ow, uint32_t oh) {
    imago_input input = {data, size, -1};
    size_t bytes = (size_t)ow * oh * 4;
    uint8_t *out = malloc(bytes);
    imago_png_fast_result r = imago_png_fast_rows_decode(&input, 0, out, (size_t)ow * 4, ow, oh, IMAGO_PNG_FAST_SIMD, NULL);
    if (r == IMAGO_PNG_FAST_DECODED) {
        stats->rows_decoded++;
        if (expected != IMAGO_OK && png_fast_rows_diff_known_lenient(data, size)) {
            stats->rows_known_lenient++;
        } else if (expected != IMAGO_OK) {
            char what[128];
            const char *refusal = png_fast_diff_zlib_refusal(data, size);
            snprintf(what, sizeof what, "row path decoded what libpng rejects (zlib: %s)", refusal ? refusal : "accepts");
            png_fast_diff_fail(stats, name, what);
        } else if (memcmp(out, witness, bytes) != 0) {
            png_fast_diff_fail(stats, name, "row path: pixels differ");
        }
    } else {
        stats->rows_declined++;
    }
    free(out);
}

/* The row path for one file, given libpng's full-size verdict (expected; witness on success;
 * w and h nonzero once libpng opened the file). */
static void png_fast_rows_diff_one(const uint8_t *data, size_t size, const char *name, png_fast_diff_stats *stats,
                                   imago_status expected_full, const uint8_t *witness_full, uint32_t w, uint32_t h) {
    int fd = png_fast_rows_diff_file(data, size);
    if (fd < 0) {
        png_fast_diff_fail(stats, name, "no memfd for the file input");
        return;
    }
    for (int reduce = 0; reduce < 2; reduce++) {
        uint8_t *reduced = NULL;
        uint32_t rw, rh;
        imago_status expected = reduce ? png_fast_diff_pull(data, size, -1, 0, "0", 1, &reduced, &rw, &rh) : expected_full;
        const uint8_t *witness = reduce ? reduced : witness_full;
        /* libpng's header once it opened the file, else a small output the row path checks its
         * own header against, if that header is within the harness's pixel limit (the decoder
         * never calls the row path on a file libpng cannot open, nor beyond the caller's limit). */
        uint32_t ow = 22, oh = 22;
        if (w && h) png_fast_diff_out_size(w, h, reduce, &ow, &oh);
        size_t bytes = (size_t)ow * oh * 4;
        uint64_t stored = size >= 24 ? (uint64_t)png_fast_diff_be32(data + 16) * png_fast_diff_be32(data + 20) : 0;
        if (!reduce && ((w && h) || stored <= PNG_FAST_DIFF_MAX_PIXELS)) {
            png_fast_rows_diff_direct(data, size, name, stats, expected, witness, ow, oh);
        }
        for (int file = 0; file < 2; file++) {
            if (!file && !reduce) continue;   /* the whole-buffer path's case (png_fast_diff_one) */
            uint8_t *pixels;
            uint32_t aw, ah, gw = 0, gh = 0;
            imago_status actual = png_fast_diff_pull(data, size, file ? fd : -1, PNG_FAST_ROWS_DIFF_PREFIX, NULL, reduce,
                                                     &pixels, &aw, &ah);
            png_fast_diff_out_size(aw, ah, reduce, &gw, &gh);
            size_t got = (size_t)gw * gh * 4;
            char what[128];
            if (actual == IMAGO_OK && expected != IMAGO_OK && png_fast_rows_diff_known_lenient(data, size)) {
                /* the known difference, counted above when the row path decoded it */
            } else if (actual != expected) {
                snprintf(what, sizeof what, "pull decoder (%s, %s) status %d, libpng alone %d", file ? "file" : "memory",
                         reduce ? "a third" : "full size", actual, expected);
                png_fast_diff_fail(stats, name, what);
            } else if (actual == IMAGO_OK && (got != bytes || memcmp(pixels, witness, bytes) != 0)) {
                snprintf(what, sizeof what, "pull decoder (%s, %s) pixels differ from libpng alone", file ? "file" : "memory",
                         reduce ? "a third" : "full size");
                png_fast_diff_fail(stats, name, what);
            }
            free(pixels);
        }
        free(reduced);
    }
    close(fd);
}

#endif
