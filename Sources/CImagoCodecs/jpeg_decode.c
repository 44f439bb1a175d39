/* JPEG through libjpeg-turbo's classic scanline API (row-level control for cancellation and
 * DCT scaling). libjpeg reports fatal errors through error_exit (jpeg_common.c), which longjmps
 * back into the entry point here that armed the jump buffer; nothing jumps past these entry points. */
#include "imago_decode.h"
#include "imago_reader.h"
#include "imago_resizer.h"
#include "jpeg_common.h"

#include <stdlib.h>
#include <string.h>
#include <jerror.h>

#define IMAGO_JPEG_CHUNK 65536

typedef struct imago_jpeg_source {
    struct jpeg_source_mgr pub;
    imago_reader *reader;
    JOCTET buffer[IMAGO_JPEG_CHUNK];
} imago_jpeg_source;

struct imago_jpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    imago_jpeg_guard guard;      /* error/progress hooks, jump buffer, failure, control */
    imago_reader reader;
    imago_jpeg_source *source;   /* file descriptors only; memory uses jpeg_mem_src */
    int cmyk;                    /* output through JCS_CMYK and convert here */
    imago_downsampling downsampling;   /* rows and resizer while scaling down */
};

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
    imago_jpeg_guard_attach(&d->guard, &d->cinfo, &d->reader.io_errno);
    if (setjmp(d->guard.jump)) {
        *err = d->guard.failure;
        imago_jpeg_close(d);
        return NULL;
    }
    jpeg_create_decompress(&d->cinfo);
    imago_jpeg_guard_watch(&d->guard, &d->cinfo);
    if (!imago_jpeg_attach_source(d, input)) imago_jpeg_fail((j_common_ptr)&d->cinfo, IMAGO_ERR_NO_MEMORY, "out of memory");
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&d->cinfo, TRUE);
    d->cmyk = imago_jpeg_fill_info(&d->cinfo, info);
    return d;
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
        if (imago_control_cancelled(d->guard.control)) return IMAGO_ERR_CANCELLED;
        uint32_t first = c->output_scanline;
        uint32_t batch = c->output_height - first;
        if (batch > IMAGO_JPEG_BATCH) batch = IMAGO_JPEG_BATCH;
        for (uint32_t i = 0; i < batch; i++) {
            rows[i] = resizing ? d->downsampling.rows + (size_t)i * width * 4 : out + (size_t)(first + i) * stride;
        }
        uint32_t got = jpeg_read_scanlines(c, rows, batch);
        imago_control_set_rows(d->guard.control, c->output_scanline);
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
    d->guard.control = control;
    if (setjmp(d->guard.jump)) {
        imago_downsampling_release(&d->downsampling);
        jpeg_abort_decompress(c);
        *err = d->guard.failure;
        return (imago_status)d->guard.failure.status;
    }
    c->out_color_space = d->cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    imago_jpeg_choose_scale(c, out_w, out_h);
    jpeg_start_decompress(c);
    imago_status status = imago_jpeg_rows(d, out, out_stride, out_w, out_h);
    if (status == IMAGO_OK) {
        jpeg_finish_decompress(c);   /* reads on to EOI, so a cut-off tail is caught */
    } else {
        imago_error_set(&d->guard.failure, status, status == IMAGO_ERR_CANCELLED ? "cancelled" : "out of memory");
        jpeg_abort_decompress(c);
        *err = d->guard.failure;
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
