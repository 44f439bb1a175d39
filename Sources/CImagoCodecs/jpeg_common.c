/* Helpers shared by the pull and push JPEG decoders; see jpeg_common.h. */
#include "jpeg_common.h"
#include "jpeg_exif.h"

#include <string.h>
#include <jerror.h>

void imago_jpeg_fail(j_common_ptr cinfo, imago_status status, const char *message) {
    imago_jpeg_guard *g = (imago_jpeg_guard *)cinfo->client_data;
    imago_error_set(&g->failure, status, "%s", message);
    longjmp(g->jump, 1);
}

static int imago_jpeg_io_failed(j_common_ptr cinfo) {
    imago_jpeg_guard *g = (imago_jpeg_guard *)cinfo->client_data;
    return g->io_errno != NULL && *g->io_errno != 0;
}

static void imago_jpeg_error_exit(j_common_ptr cinfo) {
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    imago_status status = imago_jpeg_io_failed(cinfo) ? IMAGO_ERR_IO
                        : cinfo->err->msg_code == JERR_INPUT_EMPTY ? IMAGO_ERR_TRUNCATED
                        : cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? IMAGO_ERR_NO_MEMORY
                        : IMAGO_ERR_CORRUPT;
    imago_jpeg_fail(cinfo, status, message);
}

/* libjpeg only warns about damaged data and then invents pixels; a strict decoder refuses.
 * Extraneous bytes before a marker are not refused: junk before EOI after a complete scan is
 * common in real camera and webcam files and costs no pixel. (When the junk is a scan that
 * lost sync, libjpeg-turbo's pixels depend on how its input was buffered; see
 * Reports/fuzz-findings.) */
static void imago_jpeg_emit_message(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    int code = cinfo->err->msg_code;
    char message[JMSG_LENGTH_MAX];
    if (code == JWRN_JPEG_EOF) {
        imago_jpeg_fail(cinfo, imago_jpeg_io_failed(cinfo) ? IMAGO_ERR_IO : IMAGO_ERR_TRUNCATED,
                        "premature end of JPEG data");
    }
    if (code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE || code == JWRN_MUST_RESYNC ||
        code == JWRN_NOT_SEQUENTIAL || code == JWRN_ARITH_BAD_CODE || code == JWRN_BOGUS_PROGRESSION) {
        (*cinfo->err->format_message)(cinfo, message);
        imago_jpeg_fail(cinfo, IMAGO_ERR_CORRUPT, message);
    }
}

static void imago_jpeg_progress(j_common_ptr cinfo) {
    imago_jpeg_guard *g = (imago_jpeg_guard *)cinfo->client_data;
    if (imago_control_cancelled(g->control)) imago_jpeg_fail(cinfo, IMAGO_ERR_CANCELLED, "cancelled");
}

void imago_jpeg_guard_attach(imago_jpeg_guard *g, j_decompress_ptr cinfo, const int *io_errno) {
    g->io_errno = io_errno;
    cinfo->err = jpeg_std_error(&g->jerr);
    g->jerr.error_exit = imago_jpeg_error_exit;
    g->jerr.emit_message = imago_jpeg_emit_message;
    cinfo->client_data = g;
}

void imago_jpeg_guard_watch(imago_jpeg_guard *g, j_decompress_ptr cinfo) {
    g->progress.progress_monitor = imago_jpeg_progress;
    cinfo->progress = &g->progress;
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

int imago_jpeg_fill_info(j_decompress_ptr c, imago_image_info *info) {
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
    return c->jpeg_color_space == JCS_CMYK || c->jpeg_color_space == JCS_YCCK;
}

/* Adobe-inverted CMYK (what Photoshop writes, flagged by the Adobe marker) stores 255 - ink;
 * either way the result is R = (1 - C)(1 - K) in ink terms, done in place on 4-byte pixels. */
void imago_jpeg_cmyk_to_rgba(uint8_t *row, uint32_t width, int inverted) {
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
void imago_jpeg_choose_scale(j_decompress_ptr c, uint32_t out_w, uint32_t out_h) {
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
