/* JPEG through libjpeg-turbo's classic scanline API (row-level control for cancellation and
 * DCT scaling). libjpeg reports fatal errors through error_exit, which longjmps back into the
 * entry point that armed the jump buffer; nothing jumps past this file. */
#include "imago_decode.h"
#include "imago_reader.h"
#include "imago_resizer.h"
#include "jpeg_exif.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

#define IMAGO_JPEG_CHUNK 65536
#define IMAGO_JPEG_BATCH 16

typedef struct imago_jpeg_source {
    struct jpeg_source_mgr pub;
    imago_reader *reader;
    JOCTET buffer[IMAGO_JPEG_CHUNK];
} imago_jpeg_source;

struct imago_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jpeg_error_mgr jerr;
    struct jpeg_progress_mgr progress;
    jmp_buf jump;
    imago_error failure;
    imago_reader reader;
    imago_jpeg_source *source;   /* file descriptors only; memory uses jpeg_mem_src */
    imago_decode_control *control;
    int cmyk;                    /* output through JCS_CMYK and convert here */
    imago_downsampling downsampling;   /* rows and resizer while scaling down */
};

static void imago_jpeg_fail(j_common_ptr cinfo, imago_status status, const char *message) {
    imago_jpeg_decoder *d = (imago_jpeg_decoder *)cinfo->client_data;
    imago_error_set(&d->failure, status, "%s", message);
    longjmp(d->jump, 1);
}

static void imago_jpeg_error_exit(j_common_ptr cinfo) {
    imago_jpeg_decoder *d = (imago_jpeg_decoder *)cinfo->client_data;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    imago_status status = d->reader.io_errno ? IMAGO_ERR_IO
                        : cinfo->err->msg_code == JERR_INPUT_EMPTY ? IMAGO_ERR_TRUNCATED
                        : cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? IMAGO_ERR_NO_MEMORY
                        : IMAGO_ERR_CORRUPT;
    imago_jpeg_fail(cinfo, status, message);
}

/* libjpeg only warns about damaged data and then invents pixels; a strict decoder refuses. */
static void imago_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    int code = cinfo->err->msg_code;
    char message[JMSG_LENGTH_MAX];
    if (code == JWRN_JPEG_EOF) {
        imago_jpeg_decoder *d = (imago_jpeg_decoder *)cinfo->client_data;
        imago_jpeg_fail(cinfo, d->reader.io_errno ? IMAGO_ERR_IO : IMAGO_ERR_TRUNCATED,
                        "premature end of JPEG data");
    }
    if (code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC ||
        code == JWRN_NOT_SEQUENTIAL || code == JWRN_ARITH_BAD_CODE || code == JWRN_BOGUS_PROGRESSION) {
        (*cinfo->err->format_message)(cinfo, message);
        imago_jpeg_fail(cinfo, IMAGO_ERR_CORRUPT, message);
    }
}

static void imago_jpeg_progress(j_common_ptr cinfo) {
    imago_jpeg_decoder *d = (imago_jpeg_decoder *)cinfo->client_data;
    if (imago_control_cancelled(d->control)) imago_jpeg_fail(cinfo, IMAGO_ERR_CANCELLED, "cancelled");
}

static void imago_jpeg_source_init(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean imago_jpeg_source_fill(j_decompress_ptr cinfo) {
    imago_jpeg_source *src = (imago_jpeg_source *)cinfo->src;
    size_t got = imago_reader_read(src->reader, src->buffer, IMAGO_JPEG_CHUNK);
    if (got == 0) {
        WARNMS(cinfo, JWRN_JPEG_EOF);   /* becomes a truncation (or I/O) error above */
        src->buffer[0] = 0xFF;
        src->buffer[1] = JPEG_EOI;
        got = 2;
    }
    src->pub.next_input_byte = src->buffer;
    src->pub.bytes_in_buffer = got;
    return TRUE;
}

static void imago_jpeg_source_skip(j_decompress_ptr cinfo, long count) {
    struct jpeg_source_mgr *src = cinfo->src;
    while (count > (long)src->bytes_in_buffer) {
        count -= (long)src->bytes_in_buffer;
        (void)(*src->fill_input_buffer)(cinfo);
    }
    src->next_input_byte += count;
    src->bytes_in_buffer -= (size_t)count;
}

static void imago_jpeg_source_term(j_decompress_ptr cinfo) { (void)cinfo; }

static int imago_jpeg_attach_source(imago_jpeg_decoder *d, const imago_input *input) {
    if (input->data != NULL) {
        jpeg_mem_src(&d->cinfo, input->data, (unsigned long)input->size);
        return 1;
    }
    d->source = calloc(1, sizeof *d->source);
    if (d->source == NULL) return 0;
    d->source->reader = &d->reader;
    d->source->pub.init_source = imago_jpeg_source_init;
    d->source->pub.fill_input_buffer = imago_jpeg_source_fill;
    d->source->pub.skip_input_data = imago_jpeg_source_skip;
    d->source->pub.resync_to_restart = jpeg_resync_to_restart;
    d->source->pub.term_source = imago_jpeg_source_term;
    d->cinfo.src = &d->source->pub;
    return 1;
}

static int32_t imago_jpeg_orientation(j_decompress_ptr cinfo) {
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m != NULL; m = m->next) {
        if (m->marker == JPEG_APP0 + 1) {
            int32_t orientation = imago_exif_orientation(m->data, m->data_length);
            if (orientation != 1) return orientation;
        }
    }
    return 1;
}

static void imago_jpeg_fill_info(imago_jpeg_decoder *d, imago_image_info *info) {
    j_decompress_ptr c = &d->cinfo;
    memset(info, 0, sizeof *info);
    info->width = c->image_width;
    info->height = c->image_height;
    info->bit_depth = c->data_precision;
    switch (c->jpeg_color_space) {
    case JCS_GRAYSCALE: info->color_model = IMAGO_COLOR_GRAY; break;
    case JCS_RGB: info->color_model = IMAGO_COLOR_RGB; break;
    case JCS_CMYK: info->color_model = IMAGO_COLOR_CMYK; break;
    case JCS_YCCK: info->color_model = IMAGO_COLOR_YCCK; break;
    default: info->color_model = IMAGO_COLOR_YCBCR; break;
    }
    info->orientation = imago_jpeg_orientation(c);
    info->progressive = c->progressive_mode ? 1 : 0;
    info->arithmetic = c->arith_code ? 1 : 0;
    info->frame_count = 1;
    if (jpeg_has_multiple_scans(c)) {
        /* A multi-scan image is decoded through full-size coefficient arrays (64 JCOEFs per
         * block of every component), even when DCT scaling shrinks the output. */
        uint64_t blocks = 0;
        for (int ci = 0; ci < c->num_components; ci++) {
            blocks += (uint64_t)c->comp_info[ci].width_in_blocks * c->comp_info[ci].height_in_blocks;
        }
        info->working_bytes = blocks * DCTSIZE2 * sizeof(JCOEF);
    }
    d->cmyk = c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK;
}

imago_jpeg_decoder *imago_jpeg_open(const imago_input *input, imago_image_info *info, imago_error *err) {
    if (input->data != NULL && input->size == 0) {
        imago_error_set(err, IMAGO_ERR_EMPTY, "no data");
        return NULL;
    }
    imago_jpeg_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    imago_reader_init(&d->reader, input);
    d->cinfo.err = jpeg_std_error(&d->jerr);
    d->jerr.error_exit = imago_jpeg_error_exit;
    d->jerr.emit_message = imago_jpeg_emit_message;
    d->cinfo.client_data = d;
    if (setjmp(d->jump)) {
        *err = d->failure;
        imago_jpeg_close(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    d->progress.progress_monitor = imago_jpeg_progress;
    d->cinfo.progress = &d->progress;
    if (!imago_jpeg_attach_source(d, input)) imago_jpeg_fail((j_common_ptr)&d->cinfo, IMAGO_ERR_NO_MEMORY, "out of memory");
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    imago_jpeg_fill_info(d, info);
    return d;
}

/* Adobe-inverted CMYK (what Photoshop writes, flagged by the Adobe marker) stores 255 - ink;
 * either way the result is R = (1 - C)(1 - K) in ink terms, done in place on 4-byte pixels. */
static void imago_jpeg_cmyk_to_rgba(uint8_t *row, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++, row += 4) {
        uint32_t c = row[0], m = row[1], y = row[2], k = row[3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        row[0] = (uint8_t)((c * k + 127) / 255);
        row[1] = (uint8_t)((m * k + 127) / 255);
        row[2] = (uint8_t)((y * k + 127) / 255);
        row[3] = 255;
    }
}

/* The largest DCT reduction (1/8, 1/4, 1/2) whose output still covers the requested size;
 * an exact area-average resize finishes the job. */
static void imago_jpeg_choose_scale(j_decompress_ptr c, uint32_t out_w, uint32_t out_h) {
    static const unsigned int denominators[] = {8, 4, 2};
    c->scale_num = 1;
    c->scale_denom = 1;
    for (size_t i = 0; i < sizeof denominators / sizeof denominators[0]; i++) {
        unsigned int d = denominators[i];
        if ((c->image_width + d - 1) / d >= out_w && (c->image_height + d - 1) / d >= out_h) {
            c->scale_denom = d;
            return;
        }
    }
}

static imago_status imago_jpeg_rows(imago_jpeg_decoder *d, uint8_t *out, size_t stride,
                                    uint32_t out_w, uint32_t out_h) {
    j_decompress_ptr c = &d->cinfo;
    uint32_t width = c->output_width;
    int resizing = width != out_w || c->output_height != out_h;
    if (resizing) {
        d->downsampling.rows = malloc((size_t)width * 4 * IMAGO_JPEG_BATCH);
        d->downsampling.resizer = imago_resizer_create(width, c->output_height, out_w, out_h, out, stride, 0);
        if (d->downsampling.rows == NULL || d->downsampling.resizer == NULL) return IMAGO_ERR_NO_MEMORY;
    }
    JSAMPROW rows[IMAGO_JPEG_BATCH];
    while (c->output_scanline < c->output_height) {
        if (imago_control_cancelled(d->control)) return IMAGO_ERR_CANCELLED;
        uint32_t first = c->output_scanline;
        uint32_t batch = c->output_height - first;
        if (batch > IMAGO_JPEG_BATCH) batch = IMAGO_JPEG_BATCH;
        for (uint32_t i = 0; i < batch; i++) {
            rows[i] = resizing ? d->downsampling.rows + (size_t)i * width * 4 : out + (size_t)(first + i) * stride;
        }
        uint32_t got = jpeg_read_scanlines(c, rows, batch);
        imago_control_set_rows(d->control, c->output_scanline);
        for (uint32_t i = 0; i < got; i++) {
            if (d->cmyk) imago_jpeg_cmyk_to_rgba(rows[i], width, c->saw_Adobe_marker);
            if (resizing) imago_resizer_push_row(d->downsampling.resizer, rows[i]);
        }
    }
    return IMAGO_OK;
}

imago_status imago_jpeg_decode(imago_jpeg_decoder *d, uint8_t *out, size_t out_stride,
                               uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err) {
    j_decompress_ptr c = &d->cinfo;
    if (out_w == 0 || out_h == 0 || out_w > c->image_width || out_h > c->image_height ||
        out_stride < (size_t)out_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", out_w, out_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    d->control = control;
    if (setjmp(d->jump)) {
        imago_downsampling_release(&d->downsampling);
        jpeg_abort_decompress(c);
        *err = d->failure;
        return (imago_status)d->failure.status;
    }
    c->out_color_space = d->cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    imago_jpeg_choose_scale(c, out_w, out_h);
    jpeg_start_decompress(c);
    imago_status status = imago_jpeg_rows(d, out, out_stride, out_w, out_h);
    if (status == IMAGO_OK) {
        jpeg_finish_decompress(c);   /* reads on to EOI, so a cut-off tail is caught */
    } else {
        imago_error_set(&d->failure, status, status == IMAGO_ERR_CANCELLED ? "cancelled" : "out of memory");
        jpeg_abort_decompress(c);
        *err = d->failure;
    }
    imago_downsampling_release(&d->downsampling);
    return status;
}

void imago_jpeg_close(imago_jpeg_decoder *d) {
    if (d == NULL) return;
    imago_downsampling_release(&d->downsampling);
    jpeg_destroy_decompress(&d->cinfo);
    free(d->source);
    free(d);
}

const char *imago_jpeg_version(void) {
#define IMAGO_STRINGIFY_(x) #x
#define IMAGO_STRINGIFY(x) IMAGO_STRINGIFY_(x)
#ifdef LIBJPEG_TURBO_VERSION
    return "libjpeg-turbo " IMAGO_STRINGIFY(LIBJPEG_TURBO_VERSION);
#else
    return "libjpeg " IMAGO_STRINGIFY(JPEG_LIB_VERSION);
#endif
}
