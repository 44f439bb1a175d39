/* The PNG fast path for a whole file in memory (see imago_png_fast.h): chunk walk, IDAT join,
 * libdeflate inflate, then unfiltering into the caller's buffer. Everything that can fail is
 * checked before the first pixel is unfiltered; a declined RGBA file leaves `out` untouched, a
 * declined RGB one may leave inflated bytes in it (they are inflated in place), which libpng then
 * overwrites row by row or it fails: never a result. What it declines: png_fast_chunks.h; and
 * inflated data not exactly (1 + width*channels) * height bytes, a filter type above 4. */
#include "imago_png_fast.h"
#include "png_fast_chunks.h"
#include "png_fast_unfilter.h"

#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>

#define IMAGO_PNG_FAST_CANCEL_ROWS 32
/* Bytes past the inflated rows the unfilters may read (an RGB pixel is loaded as 4 bytes). */
#define IMAGO_PNG_FAST_PAD 16

/* Walks every chunk from the signature to IEND; 1 when the file is one the fast path takes. */
static int imago_png_fast_scan(const uint8_t *data, size_t size, imago_png_layout *layout) {
    static const uint8_t signature[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    if (size < 8 + 25 || memcmp(data, signature, 8) != 0) return 0;
    imago_png_walk walk = {0};
    for (size_t pos = 8; size - pos >= 12;) {
        uint32_t length = imago_png_be32(data + pos);
        const uint8_t *type = data + pos + 4;
        if (length > size - pos - 12) return 0;
        imago_png_chunk_kind kind = imago_png_fast_judge(&walk, type, length);
        if (kind == IMAGO_PNG_CHUNK_DECLINE) return 0;
        if (libdeflate_crc32(0, type, (size_t)length + 4) != imago_png_be32(type + 4 + length)) return 0;
        switch (kind) {
        case IMAGO_PNG_CHUNK_IHDR:
            if (!imago_png_fast_header(type + 4, layout)) return 0;
            walk.raw_size = layout->raw_size;
            break;
        case IMAGO_PNG_CHUNK_IDAT:
            if (layout->idat_count == 0) layout->first_idat = pos;
            layout->idat_bytes += length;
            layout->idat_count++;
            break;
        case IMAGO_PNG_CHUNK_IEND: return 1;
        default: break;
        }
        pos += (size_t)length + 12;
    }
    return 0;   /* no IEND */
}

/* The IDAT payloads as one buffer: the file's own bytes when there is a single IDAT, else a
 * copy in *joined (freed by the caller). NULL when out of memory. */
static const uint8_t *imago_png_fast_join(const uint8_t *data, const imago_png_layout *layout, uint8_t **joined) {
    *joined = NULL;
    if (layout->idat_count == 1) return data + layout->first_idat + 8;
    uint8_t *buffer = malloc(layout->idat_bytes ? layout->idat_bytes : 1);
    if (buffer == NULL) return NULL;
    size_t pos = layout->first_idat, filled = 0;
    for (int i = 0; i < layout->idat_count; i++) {
        uint32_t length = imago_png_be32(data + pos);
        memcpy(buffer + filled, data + pos + 8, length);
        filled += length;
        pos += (size_t)length + 12;
    }
    *joined = buffer;
    return buffer;
}

/* Inflates exactly raw_size bytes into rows; 0 when declined. */
static int imago_png_fast_inflate(const uint8_t *data, const imago_png_layout *layout, uint8_t *rows, size_t raw_size) {
    uint8_t *joined;
    const uint8_t *zlib = imago_png_fast_join(data, layout, &joined);
    if (zlib == NULL || layout->idat_bytes < 2 || !imago_png_fast_zlib_header_ok(zlib, raw_size)) {
        free(joined);
        return 0;
    }
    struct libdeflate_decompressor *inflater = libdeflate_alloc_decompressor();
    enum libdeflate_result result = LIBDEFLATE_BAD_DATA;
    /* No actual-size pointer: libdeflate then insists on exactly raw_size bytes. */
    if (inflater != NULL) result = libdeflate_zlib_decompress(inflater, zlib, layout->idat_bytes, rows, raw_size, NULL);
    libdeflate_free_decompressor(inflater);
    free(joined);
    return result == LIBDEFLATE_SUCCESS;
}

/* Where the inflated rows go. RGB rows, (1 + 3w) * h bytes, fit in the output's 4w * h: they
 * are inflated into its tail and unfiltered forwards, each output row ending at or before the
 * start of the next filtered row (row y's filtered bytes start (h - y)(w - 1) + 1 bytes after
 * its output row), so no working buffer is needed; only the last row, which ends where the
 * output does, is unfiltered from a padded copy (the 4-byte loads read one byte past a row).
 * RGBA rows are one byte per row longer than the output: they get their own buffer. */
typedef struct imago_png_fast_rows {
    uint8_t *rows;        /* inflated rows */
    uint8_t *owned;       /* rows when separately allocated, else NULL */
    int in_place;
} imago_png_fast_rows;

static int imago_png_fast_place(imago_png_fast_rows *r, const imago_png_layout *layout, uint8_t *out,
                                size_t out_stride, size_t raw_size) {
    size_t out_bytes = (size_t)layout->width * 4 * layout->height;
    r->in_place = layout->channels == 3 && out_stride == (size_t)layout->width * 4;
    r->owned = r->in_place ? NULL : malloc(raw_size + IMAGO_PNG_FAST_PAD);
    r->rows = r->in_place ? out + (out_bytes - raw_size) : r->owned;
    if (r->owned) memset(r->owned + raw_size, 0, IMAGO_PNG_FAST_PAD);
    return r->rows != NULL;
}

static void imago_png_fast_release(imago_png_fast_rows *r, uint8_t *zero_row, uint8_t *last_row) {
    free(r->owned);
    free(zero_row);
    free(last_row);
}

imago_png_fast_result imago_png_fast_decode(const uint8_t *data, size_t size, uint8_t *out, size_t out_stride,
                                            imago_png_fast_mode mode, imago_decode_control *control) {
    imago_png_layout layout = {0};
    if (mode == IMAGO_PNG_FAST_OFF || data == NULL || !imago_png_fast_scan(data, size, &layout)) {
        return IMAGO_PNG_FAST_DECLINED;
    }
    size_t row_bytes = (size_t)layout.width * (size_t)layout.channels + 1;
    if (out_stride < (size_t)layout.width * 4 || (size_t)layout.height > (SIZE_MAX - IMAGO_PNG_FAST_PAD) / row_bytes) {
        return IMAGO_PNG_FAST_DECLINED;
    }
    size_t raw_size = row_bytes * layout.height;
    imago_png_fast_rows placed;
    uint8_t *zero_row = calloc(layout.width, 4);
    uint8_t *last_row = malloc(row_bytes + IMAGO_PNG_FAST_PAD);
    if (zero_row == NULL || last_row == NULL || !imago_png_fast_place(&placed, &layout, out, out_stride, raw_size)) {
        free(zero_row);
        free(last_row);
        return IMAGO_PNG_FAST_DECLINED;
    }
    int ok = imago_png_fast_inflate(data, &layout, placed.rows, raw_size);
    for (uint32_t y = 0; ok && y < layout.height; y++) {
        if (placed.rows[(size_t)y * row_bytes] > 4) ok = 0;   /* libpng: "bad adaptive filter value" */
    }
    if (!ok) {
        imago_png_fast_release(&placed, zero_row, last_row);
        return IMAGO_PNG_FAST_DECLINED;
    }
    memcpy(last_row, placed.rows + raw_size - row_bytes, row_bytes);
    memset(last_row + row_bytes, 0, IMAGO_PNG_FAST_PAD);
    imago_png_unfilters unfilters;
    imago_png_unfilters_select(&unfilters, layout.channels, mode == IMAGO_PNG_FAST_SIMD);
    for (uint32_t y = 0; y < layout.height; y++) {
        if (y % IMAGO_PNG_FAST_CANCEL_ROWS == 0) {
            if (imago_control_cancelled(control)) {
                imago_png_fast_release(&placed, zero_row, last_row);
                return IMAGO_PNG_FAST_CANCELLED;
            }
            imago_control_set_rows(control, y);
        }
        const uint8_t *row = y + 1 == layout.height ? last_row : placed.rows + (size_t)y * row_bytes;
        uint8_t *dst = out + (size_t)y * out_stride;
        const uint8_t *above = y ? dst - out_stride : zero_row;
        unfilters.filter[row[0]](dst, above, row + 1, layout.width);
    }
    imago_control_set_rows(control, layout.height);
    imago_png_fast_release(&placed, zero_row, last_row);
    return IMAGO_PNG_FAST_DECODED;
}

imago_png_fast_mode imago_png_fast_mode_from_environment(void) {
    const char *value = getenv("IMAGO_PNG_FAST");
    if (value == NULL) return IMAGO_PNG_FAST_SIMD;
    if (strcmp(value, "0") == 0) return IMAGO_PNG_FAST_OFF;
    if (strcmp(value, "scalar") == 0) return IMAGO_PNG_FAST_SCALAR;
    return IMAGO_PNG_FAST_SIMD;
}

uint64_t imago_png_fast_working_bytes(uint32_t width, uint32_t height, int channels, size_t input_size) {
    uint64_t row_bytes = (uint64_t)width * (uint64_t)channels + 1, rows = 0, total;
    /* RGB is inflated into the output itself (imago_png_fast_place). */
    if (channels != 3 && __builtin_mul_overflow(row_bytes, (uint64_t)height, &rows)) return UINT64_MAX;
    uint64_t small = (uint64_t)input_size + 2 * IMAGO_PNG_FAST_PAD + (uint64_t)width * 4 + row_bytes;
    if (__builtin_add_overflow(rows, small, &total)) return UINT64_MAX;
    return total;
}
