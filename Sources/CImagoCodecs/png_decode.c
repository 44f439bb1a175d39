/* PNG through libpng's row API. libpng longjmps to png_jmpbuf on errors; every entry point
 * below that calls libpng sets it up itself, so no jump ever crosses into Swift. */
#include "imago_decode.h"
#include "imago_png_fast.h"
#include "imago_reader.h"
#include "imago_resizer.h"
#include "png_shared.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMAGO_PNG_CANCEL_ROWS 32

struct imago_png_decoder {
    png_structp png;
    png_infop info;
    imago_reader reader;
    imago_error failure;   /* what the error callback saw */
    int truncated;         /* the read callback ran out of input */
    int missing_data;      /* libpng's benign "Not enough image data" */
    uint32_t width, height;
    int interlaced;
    int has_alpha;
    int passes;
    imago_png_fast_mode fast_mode;   /* imago_png_fast_mode_at_open's answer: OFF, or how to try it */
    int64_t start;                   /* the input's first byte: 0 in memory, the descriptor's offset at
                                        open for a file, -1 when it cannot seek (no row-by-row path) */
    imago_downsampling downsampling;   /* rows and resizer while scaling down */
};

/* What the header says about the fast paths (imago_png_fast.h): worth trying on 8-bit RGB/RGBA
 * without tRNS (has_alpha on RGB means tRNS), not interlaced, from memory or a seekable file,
 * unless IMAGO_PNG_FAST=0. The fast paths re-check all of it and decline what they do not take.
 * The environment is read here once: the decode uses the mode the working bytes were counted for. */
static imago_png_fast_mode imago_png_fast_mode_at_open(const imago_png_decoder *d, const imago_image_info *info) {
    if (d->start < 0 || d->interlaced || info->bit_depth != 8) return IMAGO_PNG_FAST_OFF;
    int rgb = info->color_model == IMAGO_COLOR_RGB && !info->has_alpha;
    if (!rgb && info->color_model != IMAGO_COLOR_RGBA) return IMAGO_PNG_FAST_OFF;
    return imago_png_fast_mode_from_environment();
}

static void imago_png_on_error(png_structp png, png_const_charp message) {
    imago_png_decoder *d = png_get_error_ptr(png);
    imago_status status = d->truncated ? IMAGO_ERR_TRUNCATED
                         : d->reader.io_errno ? IMAGO_ERR_IO : IMAGO_ERR_CORRUPT;
    imago_error_set(&d->failure, status, "%s", message);
    png_longjmp(png, 1);
}

static void imago_png_on_warning(png_structp png, png_const_charp message) {
    imago_png_decoder *d = png_get_error_ptr(png);
    /* A benign error in libpng's eyes, but it means rows were invented: not a success. */
    if (strstr(message, "Not enough image data") != NULL) d->missing_data = 1;
}

static void imago_png_on_read(png_structp png, png_bytep dst, size_t length) {
    imago_png_decoder *d = png_get_io_ptr(png);
    if (imago_reader_read(&d->reader, dst, length) != length) {
        d->truncated = d->reader.io_errno == 0;
        png_error(png, d->truncated ? "unexpected end of PNG data" : "read failed");
    }
}

static void imago_png_fill_info(imago_png_decoder *d, imago_image_info *info) {
    imago_png_describe(d->png, d->info, info);
    d->has_alpha = info->has_alpha;
    d->fast_mode = imago_png_fast_mode_at_open(d, info);
    if (d->fast_mode != IMAGO_PNG_FAST_OFF) {
        int memory = imago_reader_is_memory(&d->reader);
        int channels = info->color_model == IMAGO_COLOR_RGBA ? 4 : 3;
        /* A memory input at full size takes the whole-buffer path, anything else the row path. */
        if (memory) info->full_size_working_bytes = imago_png_fast_working_bytes(d->width, d->height, channels, d->reader.input->size);
        info->row_path_working_bytes = imago_png_fast_rows_working_bytes(d->width, !memory);
    }
}

imago_png_decoder *imago_png_open(const imago_input *input, imago_image_info *info, imago_error *err) {
    imago_png_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    imago_reader_init(&d->reader, input);
    d->start = input->data != NULL ? 0 : (int64_t)lseek(input->fd, 0, SEEK_CUR);
    d->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, d, imago_png_on_error, imago_png_on_warning);
    d->info = d->png ? png_create_info_struct(d->png) : NULL;
    if (d->info == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "cannot create libpng structures");
        imago_png_close(d);
        return NULL;
    }
    if (setjmp(png_jmpbuf(d->png))) {
        *err = d->failure;
        imago_png_close(d);
        return NULL;
    }
    png_set_read_fn(d->png, d, imago_png_on_read);
    /* Dimensions are judged by the caller's pixel limit, not libpng's fixed default. */
    png_set_user_limits(d->png, 0x7fffffffU, 0x7fffffffU);
    png_read_info(d->png, d->info);
    d->width = png_get_image_width(d->png, d->info);
    d->height = png_get_image_height(d->png, d->info);
    d->interlaced = png_get_interlace_type(d->png, d->info) != PNG_INTERLACE_NONE;
    imago_png_fill_info(d, info);
    return d;
}

static imago_status imago_png_rows(imago_png_decoder *d, uint8_t *out, size_t stride,
                                   uint32_t out_w, uint32_t out_h, imago_decode_control *control) {
    png_structp png = d->png;
    int resizing = out_w != d->width || out_h != d->height;
    size_t row_bytes = (size_t)d->width * 4;
    uint8_t *target = out;
    size_t target_stride = stride;
    if (resizing) {
        /* Adam7 revisits every row in seven passes, so only an interlaced image needs a
         * full-size intermediate; a non-interlaced one is reduced row by row as it is read. */
        size_t rows = d->interlaced ? d->height : 1;
        d->downsampling.rows = malloc(row_bytes * rows);
        d->downsampling.resizer = imago_resizer_create(d->width, d->height, out_w, out_h, out, stride, d->has_alpha);
        if (d->downsampling.rows == NULL || d->downsampling.resizer == NULL) return IMAGO_ERR_NO_MEMORY;
        target = d->downsampling.rows;
        target_stride = d->interlaced ? row_bytes : 0;
    }
    for (int pass = 0; pass < d->passes; pass++) {
        for (uint32_t y = 0; y < d->height; y++) {
            if (y % IMAGO_PNG_CANCEL_ROWS == 0 && imago_control_cancelled(control)) return IMAGO_ERR_CANCELLED;
            uint8_t *row = target + (size_t)y * target_stride;
            png_read_row(png, row, NULL);
            if (resizing && !d->interlaced) imago_resizer_push_row(d->downsampling.resizer, row);
            if (y % IMAGO_PNG_CANCEL_ROWS == 0) {
                imago_control_set_rows(control, ((int64_t)pass * d->height + y) / d->passes);
            }
        }
    }
    if (resizing && d->interlaced) {
        for (uint32_t y = 0; y < d->height; y++) imago_resizer_push_row(d->downsampling.resizer, target + (size_t)y * row_bytes);
    }
    imago_control_set_rows(control, d->height);
    return IMAGO_OK;
}

imago_status imago_png_decode(imago_png_decoder *d, uint8_t *out, size_t out_stride,
                              uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err) {
    if (out_w == 0 || out_h == 0 || out_w > d->width || out_h > d->height || out_stride < (size_t)out_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", out_w, out_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (d->fast_mode != IMAGO_PNG_FAST_OFF) {
        /* Declined: libpng is where png_read_info left it (the row path reads with pread) and
         * writes every output row again, or fails: carry on below. */
        imago_png_fast_result fast = imago_reader_is_memory(&d->reader) && out_w == d->width && out_h == d->height
            ? imago_png_fast_decode(d->reader.input->data, d->reader.input->size, out, out_stride, d->fast_mode, control)
            : imago_png_fast_rows_decode(d->reader.input, (uint64_t)d->start, out, out_stride, out_w, out_h,
                                         d->fast_mode, control);
        if (fast == IMAGO_PNG_FAST_DECODED) return IMAGO_OK;
        if (fast == IMAGO_PNG_FAST_CANCELLED) {
            imago_error_set(err, IMAGO_ERR_CANCELLED, "cancelled");
            return IMAGO_ERR_CANCELLED;
        }
    }
    if (setjmp(png_jmpbuf(d->png))) {
        imago_downsampling_release(&d->downsampling);
        *err = d->failure;
        return (imago_status)d->failure.status;
    }
    d->passes = imago_png_set_transforms(d->png, d->info);
    if (png_get_rowbytes(d->png, d->info) != (size_t)d->width * 4) {
        png_error(d->png, "unexpected row layout after transforms");
    }
    imago_status status = imago_png_rows(d, out, out_stride, out_w, out_h, control);
    if (status == IMAGO_OK) {
        png_read_end(d->png, NULL);   /* checks the trailing chunks' CRCs and IEND */
        if (d->missing_data) {
            imago_error_set(&d->failure, IMAGO_ERR_CORRUPT, "image data ends before the last row");
            status = IMAGO_ERR_CORRUPT;
        }
    } else if (status == IMAGO_ERR_CANCELLED) {
        imago_error_set(&d->failure, status, "cancelled");
    } else {
        imago_error_set(&d->failure, status, "out of memory");
    }
    imago_downsampling_release(&d->downsampling);
    if (status != IMAGO_OK) *err = d->failure;
    return status;
}

void imago_png_close(imago_png_decoder *d) {
    if (d == NULL) return;
    imago_downsampling_release(&d->downsampling);
    if (d->png) png_destroy_read_struct(&d->png, d->info ? &d->info : NULL, NULL);
    free(d);
}

const char *imago_png_version(void) {
    return PNG_LIBPNG_VER_STRING;
}
