/* libFuzzer differential target: the PNG fast path against libpng (png_fast_diff.h), built and
 * run by `make png-fast-fuzz`. Before comparing, every chunk's CRC is recomputed, so mutations
 * reach the inflate and the unfilters instead of stopping at a CRC mismatch (the corpus check
 * covers bad CRCs). A mismatch aborts, leaving the input as a crash artifact. The known
 * difference (png_fast_diff.h) is counted and printed at exit, not aborted on. */
#define PNG_FAST_DIFF_MAX_PIXELS (1u << 14)
#include "png_fast_diff.h"

#include <zlib.h>

static void fuzz_fix_crcs(uint8_t *d, size_t n) {
    for (size_t pos = 8; pos + 12 <= n;) {
        uint32_t length = png_fast_diff_be32(d + pos);
        if (length > n - pos - 12) return;
        uint32_t crc = (uint32_t)crc32(0, d + pos + 4, length + 4);
        uint8_t *c = d + pos + 8 + length;
        c[0] = (uint8_t)(crc >> 24); c[1] = (uint8_t)(crc >> 16); c[2] = (uint8_t)(crc >> 8); c[3] = (uint8_t)crc;
        pos += (size_t)length + 12;
    }
}

static png_fast_diff_stats stats;

static void fuzz_print_known(void) {
    fprintf(stderr, "png-fast-fuzz: %ld inputs, %ld decoded by the fast path, %ld by the row path (called directly, full size); "
            "known differences: %ld for the fast path (a code-length repeat past HLIT+HDIST), %ld for the row path (a "
            "Huffman code zlib refuses in the header)\n", stats.files, stats.fast_decoded, stats.rows_decoded,
            stats.known_lenient, stats.rows_known_lenient);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (stats.files == 0) atexit(fuzz_print_known);
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    fuzz_fix_crcs(copy, size);
    long before = stats.mismatches;
    png_fast_diff_one(copy, size, "fuzz input", &stats);
    free(copy);
    if (stats.mismatches != before) abort();
    return 0;
}
