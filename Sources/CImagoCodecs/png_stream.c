/* PNG pushed in pieces, through libpng's progressive reader, behind a chunk framer that skips
 * ancillary chunks instead of letting libpng buffer them whole (png_stream_chunks.h). The info
 * callback sets the pull decoder's transforms and pauses, so push stops at HEADER_READY; rows
 * then go into the caller's buffer (or through the resizer), Adam7 rows into the full-size image
 * (out, or an intermediate when downsampling, as in png_decode.c). libpng's pause is safe only
 * in the info callback (from a row callback the IDAT bookkeeping would underflow), so with
 * previews on an Adam7 image is fed in small slices and push stops after the slice in which a
 * pass completed (the preview may show a little of the next pass). Every entry point that calls
 * libpng arms png_jmpbuf itself. */
#include "imago_stream.h"
#include "imago_resizer.h"
#include "png_shared.h"
#include "png_stream_chunks.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IMAGO_PNG_STREAM_CANCEL_ROWS 32
#define IMAGO_PNG_STREAM_PREVIEW_SLICE 1024   /* bytes fed at a time while a preview may be due */

struct imago_png_stream {
    png_structp png;
    png_infop info;
    imago_error failure;         /* what the error callback saw */
    imago_status raise;          /* status for the next png_error of ours (cancel, ...) */
    char warning[96];            /* libpng's first warning, named when rows turn out missing */
    imago_image_info image;
    int any_bytes, header_ready, started, complete, failed;
    size_t unprocessed;          /* the info callback's pause (paused): bytes of a feed not taken */
    int paused;
    uint32_t width, height;
    int interlaced, has_alpha;
    imago_png_chunks chunks;     /* what libpng is given of each chunk (png_stream_chunks.h) */
    uint8_t *out;
    size_t out_stride;
    uint32_t out_w, out_h;
    int resizing, previews;
    uint8_t *target;             /* Adam7: the full-size image rows are combined into */
    size_t target_stride;
    imago_downsampling downsampling;
    int pass_has_rows;           /* the current pass delivered new rows */
    int last_pass_done;          /* -1, or the last pass whose last row arrived */
    int preview_due;             /* pass number (1-based) of a completed pass not yet reported */
    int preview_shown;           /* render_preview allowed: the last push stopped at PREVIEW_READY */
    int preview_pass;
    imago_decode_control *control;
};

static void imago_png_stream_on_error(png_structp png, png_const_charp message) {
    imago_png_stream *s = png_get_error_ptr(png);
    imago_status status = s->raise != IMAGO_OK ? s->raise : IMAGO_ERR_CORRUPT;
    imago_error_set(&s->failure, status, "%s", message);
    png_longjmp(png, 1);
}

static void imago_png_stream_on_warning(png_structp png, png_const_charp message) {
    /* Not fatal by itself: rows invented from missing or damaged data are caught by the row
     * count at IEND, whose error then names this. */
    imago_png_stream *s = png_get_error_ptr(png);
    if (s->warning[0] == 0) snprintf(s->warning, sizeof s->warning, "%s", message);
}

static void imago_png_stream_raise(imago_png_stream *s, imago_status status, const char *message) {
    s->raise = status;
    png_error(s->png, message);
}

static void imago_png_stream_on_info(png_structp png, png_infop pi) {
    imago_png_stream *s = png_get_progressive_ptr(png);
    imago_png_describe(png, pi, &s->image);
    s->width = s->image.width;
    s->height = s->image.height;
    s->interlaced = s->image.progressive;
    s->has_alpha = s->image.has_alpha;
    /* Transforms must be set before libpng starts on IDAT, i.e. here; only the output waits
     * for start. They do not depend on the output size. */
    imago_png_set_transforms(png, pi);
    if (png_get_rowbytes(png, pi) != (size_t)s->width * 4) png_error(png, "unexpected row layout after transforms");
    s->header_ready = 1;
    s->paused = 1;
    s->unprocessed = png_process_data_pause(png, 0);
}

static void imago_png_stream_on_row(png_structp png, png_bytep row, png_uint_32 y, int pass) {
    imago_png_stream *s = png_get_progressive_ptr(png);
    if (y >= s->height || pass < 0 || pass > 6) return;
    if (row != NULL) {
        s->pass_has_rows = 1;
        if (s->interlaced && !s->previews) {
            imago_adam7_scatter(s->target + (size_t)y * s->target_stride, row, s->width, y, pass);
        } else if (s->interlaced) {
            /* "blocky display": fills each pixel's block, so the target is a preview after every pass */
            png_progressive_combine_row(png, s->target + (size_t)y * s->target_stride, row);
        } else if (s->resizing) {
            imago_resizer_push_row(s->downsampling.resizer, row);
        } else {
            memcpy(s->out + (size_t)y * s->out_stride, row, (size_t)s->width * 4);
        }
    }
    if (y % IMAGO_PNG_STREAM_CANCEL_ROWS == 0) {
        if (imago_control_cancelled(s->control)) imago_png_stream_raise(s, IMAGO_ERR_CANCELLED, "cancelled");
        int64_t passes = s->interlaced ? 7 : 1;
        imago_control_set_rows(s->control, ((int64_t)(s->interlaced ? pass : 0) * s->height + y) / passes);
    }
    if (y == s->height - 1) {
        s->last_pass_done = pass;
        if (s->previews && s->interlaced && pass < 6 && s->pass_has_rows) s->preview_due = pass + 1;
        s->pass_has_rows = 0;
    }
}

static void imago_png_stream_on_end(png_structp png, png_infop pi) {
    (void)pi;
    imago_png_stream *s = png_get_progressive_ptr(png);
    /* IEND after too little image data: libpng invents the missing rows; the pull decoder
     * fails such a file ("Not enough image data"), and so does this one. */
    if (s->last_pass_done != (s->interlaced ? 6 : 0)) {
        char message[160];
        snprintf(message, sizeof message, "image data ends before the last row%s%s%s", s->warning[0] ? " (" : "",
                 s->warning, s->warning[0] ? ")" : "");
        imago_png_stream_raise(s, IMAGO_ERR_CORRUPT, message);
    }
    if (s->interlaced && s->resizing) {
        size_t row_bytes = (size_t)s->width * 4;
        for (uint32_t y = 0; y < s->height; y++) {
            imago_resizer_push_row(s->downsampling.resizer, s->target + (size_t)y * row_bytes);
        }
    }
    imago_downsampling_release(&s->downsampling);
    imago_control_set_rows(s->control, s->height);
    s->complete = 1;
}

imago_png_stream *imago_png_stream_create(imago_error *err) {
    imago_png_stream *s = calloc(1, sizeof *s);
    if (s == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    s->last_pass_done = -1;
    s->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, s, imago_png_stream_on_error, imago_png_stream_on_warning);
    s->info = s->png ? png_create_info_struct(s->png) : NULL;
    if (s->info == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "cannot create libpng structures");
        imago_png_stream_destroy(s);
        return NULL;
    }
    if (setjmp(png_jmpbuf(s->png))) {
        *err = s->failure;
        imago_png_stream_destroy(s);
        return NULL;
    }
    /* Dimensions are judged by the caller's pixel limit, not libpng's fixed default. */
    png_set_user_limits(s->png, 0x7fffffffU, 0x7fffffffU);
    png_set_progressive_read_fn(s->png, s, imago_png_stream_on_info, imago_png_stream_on_row, imago_png_stream_on_end);
    imago_png_chunks_init(&s->chunks);
    return s;
}

/* The chunk framer's sink: gives libpng bytes, returns how many it took. May longjmp. */
static size_t imago_png_stream_sink(void *ctx, const uint8_t *data, size_t size, int *stop) {
    imago_png_stream *s = ctx;
    size_t offset = 0;
    s->paused = 0;
    while (offset < size && !s->complete) {
        size_t slice = size - offset;
        int sliced = s->started && s->previews && s->interlaced && s->last_pass_done < 5;
        if (sliced && slice > IMAGO_PNG_STREAM_PREVIEW_SLICE) slice = IMAGO_PNG_STREAM_PREVIEW_SLICE;
        png_process_data(s->png, s->info, (png_bytep)(uintptr_t)(data + offset), slice);
        offset += slice;
        if (s->paused) offset -= s->unprocessed;   /* the header is read */
        if (s->paused || s->preview_due) break;
    }
    *stop = s->paused || s->complete || s->preview_due;
    return s->complete ? size : offset;
}

imago_status imago_png_stream_push(imago_png_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                   imago_stream_state *state, imago_decode_control *control, imago_error *err) {
    *consumed = 0;
    *state = IMAGO_STREAM_NEEDS_INPUT;
    if (s->failed) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "push after an error");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (s->header_ready && !s->started) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "push before start");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    s->preview_shown = 0;
    if (s->complete) {
        *consumed = size;
        *state = IMAGO_STREAM_COMPLETE;
        return IMAGO_OK;
    }
    if (size == 0) return IMAGO_OK;
    s->any_bytes = 1;
    s->control = control;
    if (setjmp(png_jmpbuf(s->png))) {
        s->control = NULL;
        s->failed = 1;
        imago_downsampling_release(&s->downsampling);
        *err = s->failure;
        return (imago_status)s->failure.status;
    }
    if (imago_control_cancelled(control)) imago_png_stream_raise(s, IMAGO_ERR_CANCELLED, "cancelled");
    int had_header = s->header_ready;
    *consumed = imago_png_chunks_feed(&s->chunks, data, size, imago_png_stream_sink, s, s->png);
    s->control = NULL;
    if (s->complete) {
        *consumed = size;
        *state = IMAGO_STREAM_COMPLETE;
    } else if (!had_header && s->header_ready) {
        *state = IMAGO_STREAM_HEADER_READY;
    } else if (s->preview_due) {
        s->preview_pass = s->preview_due;
        s->preview_due = 0;
        s->preview_shown = 1;
        *state = IMAGO_STREAM_PREVIEW_READY;
    }
    return IMAGO_OK;
}

imago_status imago_png_stream_info(const imago_png_stream *s, imago_image_info *info) {
    if (!s->header_ready) return IMAGO_ERR_INVALID_ARGUMENT;
    *info = s->image;
    return IMAGO_OK;
}

imago_status imago_png_stream_start(imago_png_stream *s, uint8_t *out, size_t out_stride, uint32_t out_w,
                                    uint32_t out_h, int32_t previews, imago_error *err) {
    if (!s->header_ready || s->started || s->failed || out == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "start without a header, or twice");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (out_w == 0 || out_h == 0 || out_w > s->width || out_h > s->height || out_stride < (size_t)out_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", out_w, out_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    s->out = out;
    s->out_stride = out_stride;
    s->out_w = out_w;
    s->out_h = out_h;
    s->previews = previews != 0;
    s->resizing = out_w != s->width || out_h != s->height;
    size_t row_bytes = (size_t)s->width * 4;
    if (s->resizing) {
        /* Adam7 revisits every row in seven passes, so only an interlaced image needs a
         * full-size intermediate; a non-interlaced one is reduced row by row as it arrives. */
        if (s->interlaced) s->downsampling.rows = malloc(row_bytes * s->height);
        s->downsampling.resizer = imago_resizer_create(s->width, s->height, out_w, out_h, out, out_stride, s->has_alpha);
        if ((s->interlaced && s->downsampling.rows == NULL) || s->downsampling.resizer == NULL) {
            imago_downsampling_release(&s->downsampling);
            imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
            return IMAGO_ERR_NO_MEMORY;
        }
        s->target = s->downsampling.rows;
        s->target_stride = row_bytes;
    } else {
        s->target = out;
        s->target_stride = out_stride;
    }
    s->started = 1;
    return IMAGO_OK;
}

imago_status imago_png_stream_render_preview(imago_png_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                             uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                             imago_error *err) {
    if (!s->preview_shown || dst == NULL || dst == s->out || dst_w == 0 || dst_h == 0 || dst_w > s->out_w ||
        dst_h > s->out_h || dst_stride < (size_t)dst_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "no preview to render, or bad geometry");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (imago_control_cancelled(control)) {
        imago_error_set(err, IMAGO_ERR_CANCELLED, "cancelled");
        return IMAGO_ERR_CANCELLED;
    }
    /* libpng's progressive combine fills each pixel's Adam7 block ("blocky display"), so the
     * full-size target already is the block-filled image of the passes decoded so far. */
    if (!imago_png_copy_reduced(s->target, s->target_stride, s->width, s->height, s->has_alpha, dst, dst_stride, dst_w, dst_h)) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
        return IMAGO_ERR_NO_MEMORY;
    }
    *detail = s->preview_pass;
    return IMAGO_OK;
}

imago_status imago_png_stream_finish(imago_png_stream *s, imago_error *err) {
    if (s->complete) return IMAGO_OK;
    if (s->failed) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "finish after an error");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (!s->any_bytes) {
        imago_error_set(err, IMAGO_ERR_EMPTY, "no data");
        return IMAGO_ERR_EMPTY;
    }
    imago_error_set(err, IMAGO_ERR_TRUNCATED, "unexpected end of PNG data");
    return IMAGO_ERR_TRUNCATED;
}

void imago_png_stream_destroy(imago_png_stream *s) {
    if (s == NULL) return;
    imago_downsampling_release(&s->downsampling);
    if (s->png) png_destroy_read_struct(&s->png, s->info ? &s->info : NULL, NULL);
    free(s);
}
