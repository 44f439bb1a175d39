#ifndef IMAGO_JPEG_COMMON_H
#define IMAGO_JPEG_COMMON_H
/* What the pull decoder (jpeg_decode.c) and the push decoder (jpeg_stream.c) share: the error
 * and progress hooks libjpeg calls back through cinfo->client_data, the strict warning policy,
 * header facts, DCT scale choice and CMYK conversion. Internal to CImagoCodecs. */
#include "imago_decode.h"

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>

#define IMAGO_JPEG_BATCH 16

/* cinfo->client_data points here. Every entry point that calls into libjpeg arms `jump` first;
 * a fatal error, a warning treated as fatal or a cancel fills `failure` and longjmps back. */
typedef struct imago_jpeg_guard {
    struct jpeg_error_mgr jerr;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    imago_error failure;
    imago_decode_control *control;
    const int *io_errno;   /* the reader's errno for fd inputs; NULL when no read can fail */
} imago_jpeg_guard;

/* Before jpeg_create_decompress: error manager and client_data. */
void imago_jpeg_guard_attach(imago_jpeg_guard *guard, j_decompress_ptr cinfo, const int *io_errno);
/* After jpeg_create_decompress (which clears cinfo): the cancel-polling progress hook. */
void imago_jpeg_guard_watch(imago_jpeg_guard *guard, j_decompress_ptr cinfo);

/* Fills guard->failure and longjmps to the armed entry point. */
void imago_jpeg_fail(j_common_ptr cinfo, imago_status status, const char *message) __attribute__((noreturn));

/* Header facts after jpeg_read_header; returns 1 when the output goes through JCS_CMYK. */
int imago_jpeg_fill_info(j_decompress_ptr cinfo, imago_image_info *info);

/* The largest DCT reduction (1/8, 1/4, 1/2) whose output still covers out_w x out_h. */
void imago_jpeg_choose_scale(j_decompress_ptr cinfo, uint32_t out_w, uint32_t out_h);

/* CMYK (Adobe-inverted or not) to RGBA, in place on 4-byte pixels. */
void imago_jpeg_cmyk_to_rgba(uint8_t *row, uint32_t width, int inverted);

#endif
