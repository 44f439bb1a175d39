#include "imago_resizer.h"
#include "imago_pixels.h"

#include <stdlib.h>
#include <string.h>

/* Coverage is computed in exact integer units: source pixel x spans [x*dst_w, (x+1)*dst_w) and
 * destination pixel d spans [d*src_w, (d+1)*src_w). A source pixel touches at most two
 * destination pixels because the scale never exceeds 1. */
typedef struct imago_span {
    uint32_t first;      /* first destination index touched */
    float weight_first;  /* share of the source pixel in `first`, normalised by the cell size */
    float weight_next;   /* share in first + 1 (0 when it does not cross) */
} imago_span;

struct imago_resizer {
    uint32_t src_w, src_h, dst_w, dst_h;
    int weight_alpha;
    uint8_t *dst;
    size_t dst_stride;
    imago_span *columns;
    /* Per destination cell, the end (exclusive) of the source pixels that lie inside it whole. */
    uint32_t *interior_end;
    float *row;          /* the current source row reduced horizontally: dst_w * 4 */
    float *current;      /* accumulator of the destination row being built */
    float *next;         /* accumulator of the row after it (rows that straddle two) */
    uint32_t src_y;
};

static void imago_spans(imago_span *spans, uint32_t src, uint32_t dst) {
    for (uint32_t i = 0; i < src; i++) {
        uint64_t start = (uint64_t)i * dst, end = start + dst;
        uint64_t first = start / src, boundary = (first + 1) * src;
        spans[i].first = (uint32_t)first;
        if (end <= boundary) {
            spans[i].weight_first = (float)dst / (float)src;
            spans[i].weight_next = 0.0f;
        } else {
            spans[i].weight_first = (float)(boundary - start) / (float)src;
            spans[i].weight_next = (float)(end - boundary) / (float)src;
        }
    }
}

/* Cell d's whole pixels run from where the previous cell's ended (past a pixel that straddled
 * the boundary) up to the first pixel that is not inside d alone. */
static void imago_interior_ends(uint32_t *ends, const imago_span *spans, uint32_t src, uint32_t dst) {
    uint32_t x = 0;
    for (uint32_t d = 0; d < dst; d++) {
        while (x < src && spans[x].first == d && spans[x].weight_next == 0.0f) x++;
        ends[d] = x;
        if (x < src && spans[x].first == d) x++;   /* the straddling pixel, d's and d + 1's */
    }
}

imago_resizer *imago_resizer_create(uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h,
                                    uint8_t *dst, size_t dst_stride, int weight_alpha) {
    if (dst_w == 0 || dst_h == 0 || dst_w > src_w || dst_h > src_h) return NULL;
    imago_resizer *r = calloc(1, sizeof *r);
    if (r == NULL) return NULL;
    r->src_w = src_w; r->src_h = src_h; r->dst_w = dst_w; r->dst_h = dst_h;
    r->weight_alpha = weight_alpha;
    r->dst = dst;
    r->dst_stride = dst_stride;
    r->columns = malloc(sizeof(imago_span) * src_w);
    r->interior_end = malloc(sizeof(uint32_t) * dst_w);
    size_t floats = (size_t)dst_w * 4;
    r->row = malloc(sizeof(float) * floats);
    r->current = calloc(floats, sizeof(float));
    r->next = calloc(floats, sizeof(float));
    if (!r->columns || !r->interior_end || !r->row || !r->current || !r->next) {
        imago_resizer_destroy(r);
        return NULL;
    }
    imago_spans(r->columns, src_w, dst_w);
    imago_interior_ends(r->interior_end, r->columns, src_w, dst_w);
    return r;
}

void imago_resizer_destroy(imago_resizer *r) {
    if (r == NULL) return;
    free(r->columns);
    free(r->interior_end);
    free(r->row);
    free(r->current);
    free(r->next);
    free(r);
}

/* Sums channels of `count` pixels from `p` into `sums`; `weighted`: colour times alpha. The
 * loop keeps 32-bit sums in registers for at most 65,536 pixels at a time (255 * 255 * 65,536
 * stays below 2^32) and adds them into the 64-bit totals after each block. */
static inline void imago_sum_pixels(const uint8_t *p, uint32_t count, int weighted, uint64_t sums[4]) {
    while (count > 0) {
        uint32_t block = count < 65536 ? count : 65536;
        uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        if (weighted) {
            for (uint32_t i = 0; i < block; i++, p += 4) {
                uint32_t a = p[3];
                s0 += p[0] * a; s1 += p[1] * a; s2 += p[2] * a; s3 += a;
            }
        } else {
            for (uint32_t i = 0; i < block; i++, p += 4) {
                s0 += p[0]; s1 += p[1]; s2 += p[2]; s3 += p[3];
            }
        }
        sums[0] += s0; sums[1] += s1; sums[2] += s2; sums[3] += s3;
        count -= block;
    }
}

/* Reduces one source row horizontally into r->row (dst_w cells of 4 floats). Every pixel that
 * lies inside one cell has the same weight, dst_w / src_w, so a cell's whole pixels are summed
 * as integers in a tight loop and weighted once; a pixel that straddles two cells is split
 * between them in float. Colour is alpha-weighted when the source has transparency. */
static void imago_reduce_row(imago_resizer *r, const uint8_t *rgba) {
    const float interior = (float)r->dst_w / (float)r->src_w;
    const int weighted = r->weight_alpha;
    float carried[4] = {0, 0, 0, 0};   /* a straddling pixel's share of the next cell */
    uint32_t x = 0;
    for (uint32_t d = 0; d < r->dst_w; d++) {
        uint64_t sums[4] = {0, 0, 0, 0};
        uint32_t end = r->interior_end[d];
        imago_sum_pixels(rgba + (size_t)x * 4, end - x, weighted, sums);
        float *cell = r->row + (size_t)d * 4;
        for (int c = 0; c < 4; c++) cell[c] = carried[c] + (float)sums[c] * interior;
        x = end;
        if (x < r->src_w && r->columns[x].first == d) {
            const uint8_t *p = rgba + (size_t)x * 4;
            float a = p[3], k = weighted ? a : 1.0f;
            float v[4] = {p[0] * k, p[1] * k, p[2] * k, a};
            float first = r->columns[x].weight_first, next = r->columns[x].weight_next;
            for (int c = 0; c < 4; c++) {
                cell[c] += v[c] * first;
                carried[c] = v[c] * next;
            }
            x++;
        } else {
            for (int c = 0; c < 4; c++) carried[c] = 0.0f;
        }
    }
}

static inline uint8_t imago_clamp_byte(float v) {
    v += 0.5f;
    return v <= 0.0f ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
}

static void imago_emit_row(imago_resizer *r, uint32_t y) {
    uint8_t *out = r->dst + (size_t)y * r->dst_stride;
    const float *acc = r->current;
    for (uint32_t x = 0; x < r->dst_w; x++, acc += 4, out += 4) {
        float a = acc[3];
        if (r->weight_alpha) {
            float inv = a > 0.0f ? 1.0f / a : 0.0f;
            out[0] = imago_clamp_byte(acc[0] * inv);
            out[1] = imago_clamp_byte(acc[1] * inv);
            out[2] = imago_clamp_byte(acc[2] * inv);
        } else {
            out[0] = imago_clamp_byte(acc[0]);
            out[1] = imago_clamp_byte(acc[1]);
            out[2] = imago_clamp_byte(acc[2]);
        }
        out[3] = imago_clamp_byte(a);
    }
    float *done = r->current;
    r->current = r->next;
    r->next = done;
    memset(r->next, 0, sizeof(float) * r->dst_w * 4);
}

static void imago_accumulate(float *acc, const float *row, float w, size_t count) {
    for (size_t i = 0; i < count; i++) acc[i] += row[i] * w;
}

void imago_resizer_push_row(imago_resizer *r, const uint8_t *rgba) {
    if (r->src_y >= r->src_h) return;
    imago_reduce_row(r, rgba);
    uint64_t start = (uint64_t)r->src_y * r->dst_h, end = start + r->dst_h;
    uint64_t first = start / r->src_h, boundary = (first + 1) * r->src_h;
    size_t count = (size_t)r->dst_w * 4;
    if (end < boundary) {
        imago_accumulate(r->current, r->row, (float)(end - start) / (float)r->src_h, count);
    } else {
        imago_accumulate(r->current, r->row, (float)(boundary - start) / (float)r->src_h, count);
        imago_emit_row(r, (uint32_t)first);
        if (end > boundary) {
            imago_accumulate(r->current, r->row, (float)(end - boundary) / (float)r->src_h, count);
        }
    }
    r->src_y++;
}

void imago_downsampling_release(imago_downsampling *downsampling) {
    free(downsampling->rows);
    downsampling->rows = NULL;
    imago_resizer_destroy(downsampling->resizer);
    downsampling->resizer = NULL;
}

imago_status imago_resize_rgba(const uint8_t *src, uint32_t src_w, uint32_t src_h, size_t src_stride,
                               uint8_t *dst, uint32_t dst_w, uint32_t dst_h, size_t dst_stride,
                               imago_error *err) {
    int has_alpha = 0;
    for (uint32_t y = 0; y < src_h && !has_alpha; y++) {
        const uint8_t *row = src + (size_t)y * src_stride;
        for (uint32_t x = 0; x < src_w; x++) {
            if (row[x * 4 + 3] != 255) { has_alpha = 1; break; }
        }
    }
    imago_resizer *r = imago_resizer_create(src_w, src_h, dst_w, dst_h, dst, dst_stride, has_alpha);
    if (r == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT,
                        "cannot resize %ux%u to %ux%u (only downscaling to a non-empty size)",
                        src_w, src_h, dst_w, dst_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    for (uint32_t y = 0; y < src_h; y++) imago_resizer_push_row(r, src + (size_t)y * src_stride);
    imago_resizer_destroy(r);
    return IMAGO_OK;
}
