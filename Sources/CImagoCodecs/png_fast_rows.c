/* The PNG fast path row by row (see imago_png_fast.h): the file is read from its first byte
 * (memory, or pread(2) on the descriptor, which leaves the descriptor's offset where libpng
 * expects it), its chunks judged as the whole-buffer path judges them (png_fast_chunks.h), the
 * IDAT data inflated by ISA-L as it comes, and each row unfiltered as soon as it is whole, into
 * the output or through a resizer. Memory: ISA-L's state, a read buffer for a file, and a few
 * rows (imago_png_fast_rows_working_bytes), whatever the image's size. A decline may come after
 * rows were written (a CRC, the Adler-32 or the chunks after the IDATs are only seen at the
 * end); the caller's libpng decode then writes every output row again or fails. */
#include "imago_png_fast.h"
#include "imago_resizer.h"
#include "png_fast_chunks.h"
#include "png_fast_unfilter.h"

#include <errno.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMAGO_PNG_ROWS_CANCEL_ROWS 32
#define IMAGO_PNG_ROWS_BUFFER (64 * 1024)   /* file inputs: bytes read per pread(2) */
#define IMAGO_PNG_ROWS_PAD 16               /* the unfilters may read 3 bytes past a row */

/* Where bytes come from: the memory input itself, or pread(2) from `start` into `buffer`. */
typedef struct imago_png_source {
    const imago_input *input;
    uint64_t pos;      /* offset in the input (a file: from the descriptor's start) */
    uint8_t *buffer;   /* file inputs only */
} imago_png_source;

/* Up to n bytes at the current position (a pointer into memory or into the buffer); advances.
 * *got 0 means the end of the input or a read error. */
static const uint8_t *imago_png_take(imago_png_source *s, size_t n, size_t *got) {
    if (s->input->data != NULL) {
        size_t left = s->pos < s->input->size ? s->input->size - (size_t)s->pos : 0;
        *got = n < left ? n : left;
        const uint8_t *p = s->input->data + s->pos;
        s->pos += *got;
        return p;
    }
    if (n > IMAGO_PNG_ROWS_BUFFER) n = IMAGO_PNG_ROWS_BUFFER;
    ssize_t r;
    do { r = pread(s->input->fd, s->buffer, n, (off_t)s->pos); } while (r < 0 && errno == EINTR);
    *got = r > 0 ? (size_t)r : 0;
    s->pos += *got;
    return s->buffer;
}

/* Exactly n bytes (n <= the buffer) into dst; 0 when the input ends first. */
static int imago_png_read(imago_png_source *s, uint8_t *dst, size_t n) {
    while (n > 0) {
        size_t got;
        const uint8_t *p = imago_png_take(s, n, &got);
        if (got == 0) return 0;
        memcpy(dst, p, got);
        dst += got;
        n -= got;
    }
    return 1;
}

/* Rows as they are inflated, and where each goes once unfiltered. */
typedef struct imago_png_rows {
    imago_png_layout layout;
    size_t row_bytes;          /* 1 + width * channels */
    uint8_t *filtered;         /* one row as inflated, padded */
    size_t filled;             /* bytes of it so far */
    uint32_t y;                /* rows done */
    uint8_t *zero_row;         /* `above` of the first row */
    uint8_t *out;              /* full size: the output */
    size_t out_stride;
    imago_resizer *resizer;    /* reduced: rows[] go through it */
    uint8_t *rows[2];
    imago_png_unfilters unfilters;
    struct inflate_state *inflater;
    imago_decode_control *control;
    int cancelled;
} imago_png_rows;

static uint8_t *imago_png_rows_target(imago_png_rows *r, uint32_t y) {
    return r->resizer ? r->rows[y & 1] : r->out + (size_t)y * r->out_stride;
}

/* Unfilters the whole row in `filtered` and hands it on; 0 for a filter type above 4 (libpng:
 * "bad adaptive filter value"). */
static int imago_png_rows_emit(imago_png_rows *r) {
    uint8_t filter = r->filtered[0];
    if (filter > 4) return 0;
    if (r->y % IMAGO_PNG_ROWS_CANCEL_ROWS == 0) {
        if (imago_control_cancelled(r->control)) {
            r->cancelled = 1;
            return 0;
        }
        imago_control_set_rows(r->control, r->y);
    }
    uint8_t *dst = imago_png_rows_target(r, r->y);
    const uint8_t *above = r->y ? imago_png_rows_target(r, r->y - 1) : r->zero_row;
    r->unfilters.filter[filter](dst, above, r->filtered + 1, r->layout.width);
    if (r->resizer) imago_resizer_push_row(r->resizer, dst);
    r->y++;
    r->filled = 0;
    return 1;
}

/* Inflates one piece of IDAT data; 0 on an inflate error, extra data after the last row, a bad
 * filter type or a cancel. */
static int imago_png_rows_feed(imago_png_rows *r, const uint8_t *data, size_t size) {
    struct inflate_state *z = r->inflater;
    if (z->block_state == ISAL_BLOCK_FINISH) return size == 0;   /* IDAT data after the stream */
    z->next_in = (uint8_t *)data;
    z->avail_in = (uint32_t)size;
    uint8_t spill[64];
    for (;;) {
        int rows_left = r->y < r->layout.height;
        z->next_out = rows_left ? r->filtered + r->filled : spill;
        z->avail_out = rows_left ? (uint32_t)(r->row_bytes - r->filled) : sizeof spill;
        uint32_t room = z->avail_out, input = z->avail_in;
        if (isal_inflate(z) < 0) return 0;
        size_t made = room - z->avail_out;
        if (!rows_left && made > 0) return 0;   /* more image data than rows */
        r->filled += made;
        if (rows_left && r->filled == r->row_bytes && !imago_png_rows_emit(r)) return 0;
        if (z->block_state == ISAL_BLOCK_FINISH) return z->avail_in == 0;
        if (made == 0 && z->avail_in == input) return z->avail_in == 0;   /* needs more input (or is stuck) */
    }
}

/* Reads a chunk's data and CRC after its header; `idat` sends the data through the inflater. */
static int imago_png_rows_chunk(imago_png_source *s, imago_png_rows *r, const uint8_t header[8], int idat,
                                uint8_t *ihdr) {
    uint32_t length = imago_png_be32(header), crc = libdeflate_crc32(0, header + 4, 4);
    for (uint32_t left = length; left > 0;) {
        size_t got;
        const uint8_t *p = imago_png_take(s, left, &got);
        if (got == 0) return 0;
        crc = libdeflate_crc32(crc, p, got);
        if (ihdr) memcpy(ihdr + (length - left), p, got);
        if (idat && !imago_png_rows_feed(r, p, got)) return 0;
        left -= (uint32_t)got;
    }
    uint8_t stored[4];
    return imago_png_read(s, stored, 4) && imago_png_be32(stored) == crc;
}

/* Everything the decode allocates, once the IHDR is known; 0 when out of memory. */
static int imago_png_rows_start(imago_png_rows *r, uint8_t *out, size_t out_stride, uint32_t out_w, uint32_t out_h,
                                imago_png_fast_mode mode) {
    r->row_bytes = (size_t)r->layout.width * (size_t)r->layout.channels + 1;
    r->filtered = malloc(r->row_bytes + IMAGO_PNG_ROWS_PAD);
    r->zero_row = calloc(r->layout.width, 4);
    r->inflater = malloc(sizeof *r->inflater);
    if (!r->filtered || !r->zero_row || !r->inflater) return 0;
    memset(r->filtered + r->row_bytes, 0, IMAGO_PNG_ROWS_PAD);
    isal_inflate_init(r->inflater);
    r->inflater->crc_flag = ISAL_ZLIB;
    r->out = out;
    r->out_stride = out_stride;
    if (out_w != r->layout.width || out_h != r->layout.height) {
        r->rows[0] = malloc((size_t)r->layout.width * 8);
        r->rows[1] = r->rows[0] ? r->rows[0] + (size_t)r->layout.width * 4 : NULL;
        r->resizer = imago_resizer_create(r->layout.width, r->layout.height, out_w, out_h, out, out_stride,
                                          r->layout.channels == 4);
        if (!r->rows[0] || !r->resizer) return 0;
    }
    imago_png_unfilters_select(&r->unfilters, r->layout.channels, mode == IMAGO_PNG_FAST_SIMD);
    return 1;
}

static void imago_png_rows_release(imago_png_rows *r) {
    free(r->filtered);
    free(r->zero_row);
    free(r->inflater);
    free(r->rows[0]);
    imago_resizer_destroy(r->resizer);
}

/* The walk from the signature to IEND; 1 when every row was decoded and the file checks out. */
static int imago_png_rows_walk(imago_png_source *s, imago_png_rows *r, uint8_t *out, size_t out_stride,
                               uint32_t out_w, uint32_t out_h, imago_png_fast_mode mode) {
    static const uint8_t signature[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    uint8_t header[8], ihdr[13];
    if (!imago_png_read(s, header, 8) || memcmp(header, signature, 8) != 0) return 0;
    imago_png_walk walk = {0};
    int zlib_checked = 0;
    for (;;) {
        if (!imago_png_read(s, header, 8)) return 0;
        uint32_t length = imago_png_be32(header);
        switch (imago_png_fast_judge(&walk, header + 4, length)) {
        case IMAGO_PNG_CHUNK_IHDR:
            if (!imago_png_rows_chunk(s, r, header, 0, ihdr) || !imago_png_fast_header(ihdr, &r->layout)) return 0;
            if (out_w > r->layout.width || out_h > r->layout.height || out_stride < (size_t)out_w * 4) return 0;
            walk.raw_size = r->layout.raw_size;
            if (!imago_png_rows_start(r, out, out_stride, out_w, out_h, mode)) return 0;
            break;
        case IMAGO_PNG_CHUNK_IDAT:
            if (!zlib_checked) {
                /* The zlib header, judged before ISA-L sees it (it must lie in the first IDAT). */
                uint8_t zlib[2];
                imago_png_source peek = *s;
                if (length < 2 || !imago_png_read(&peek, zlib, 2)) return 0;
                if (!imago_png_fast_zlib_header_ok(zlib, r->layout.raw_size)) return 0;
                zlib_checked = 1;
            }
            if (!imago_png_rows_chunk(s, r, header, 1, NULL)) return 0;
            break;
        case IMAGO_PNG_CHUNK_ANCILLARY:
            if (!imago_png_rows_chunk(s, r, header, 0, NULL)) return 0;
            break;
        case IMAGO_PNG_CHUNK_IEND:
            if (!imago_png_rows_chunk(s, r, header, 0, NULL)) return 0;
            return r->y == r->layout.height && r->inflater->block_state == ISAL_BLOCK_FINISH;
        default: return 0;
        }
    }
}

imago_png_fast_result imago_png_fast_rows_decode(const imago_input *input, uint64_t start, uint8_t *out,
                                                 size_t out_stride, uint32_t out_w, uint32_t out_h,
                                                 imago_png_fast_mode mode, imago_decode_control *control) {
    if (mode == IMAGO_PNG_FAST_OFF || out_w == 0 || out_h == 0) return IMAGO_PNG_FAST_DECLINED;
    imago_png_source source = {input, start, NULL};
    if (input->data == NULL && (source.buffer = malloc(IMAGO_PNG_ROWS_BUFFER)) == NULL) return IMAGO_PNG_FAST_DECLINED;
    imago_png_rows rows;
    memset(&rows, 0, sizeof rows);
    rows.control = control;
    int ok = imago_png_rows_walk(&source, &rows, out, out_stride, out_w, out_h, mode);
    int cancelled = rows.cancelled;
    imago_png_rows_release(&rows);
    free(source.buffer);
    if (cancelled) return IMAGO_PNG_FAST_CANCELLED;
    if (!ok) return IMAGO_PNG_FAST_DECLINED;
    imago_control_set_rows(control, rows.layout.height);
    return IMAGO_PNG_FAST_DECODED;
}

uint64_t imago_png_fast_rows_working_bytes(uint32_t width, int input_is_file) {
    uint64_t row = (uint64_t)width * 4 + 1 + IMAGO_PNG_ROWS_PAD;
    /* the filtered row, the zero row, two rows for the resizer */
    return sizeof(struct inflate_state) + (input_is_file ? IMAGO_PNG_ROWS_BUFFER : 0) + 4 * row;
}
