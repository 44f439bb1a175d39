/* Push JPEG decoding (imago_stream.h) through libjpeg-turbo's suspending data source
 * (jpeg_stream_feed.c): every libjpeg entry point returns a suspension code when the input runs
 * out and is called again on the next push. Previews of a progressive image use buffered-image
 * mode: input is absorbed scan by scan into libjpeg's coefficient arrays and any completed scan
 * can be rendered as an output pass. Errors longjmp back into the entry point that armed the
 * jump buffer (create, push, start, render_preview); nothing jumps past them. */
#include "imago_stream.h"
#include "imago_resizer.h"
#include "jpeg_common.h"
#include "jpeg_stream_feed.h"
#include "jpeg_stream.h"

#include <stdlib.h>
#include <string.h>

/* Most bytes appended to a non-empty tail at a time: once libjpeg has used up the old bytes the
 * rest of the push is read in place, so the tail buffer stays about this small. */
#define IMAGO_JPEG_STREAM_PIECE 4096

typedef enum imago_jpeg_phase {
    PHASE_HEADER,      /* jpeg_read_header */
    PHASE_READY,       /* header read, waiting for start */
    PHASE_STARTING,    /* jpeg_start_decompress (absorbs a multi-scan image unless buffered) */
    PHASE_ROWS,        /* jpeg_read_scanlines into out */
    PHASE_FINISHING,   /* jpeg_finish_decompress: reads on to EOI */
    PHASE_SCANS,       /* buffered: jpeg_consume_input, stopping between scans */
    PHASE_DONE,
    PHASE_FAILED
} imago_jpeg_phase;

struct imago_jpeg_stream {
    struct jpeg_decompress_struct cinfo;
    imago_jpeg_guard guard;
    imago_jpeg_feed feed;
    imago_jpeg_phase phase;
    imago_image_info info;
    int cmyk, buffered, created, pushed;
    int hold;             /* arithmetic coding cannot suspend: keep input until EOI has arrived */
    size_t eoi_scanned;   /* hold: the tail before this offset has no EOI */
    int eoi_seen;
    int scan_done;        /* buffered: last completed scan not yet followed by the next SOS */
    int preview_scan;     /* buffered: the scan a preview may show now (0: no preview stop) */
    int finish_output_pending;
    uint8_t *out;
    size_t out_stride;
    uint32_t out_w, out_h;
    uint8_t *rows;        /* IMAGO_JPEG_BATCH scaled rows while resizing */
    imago_resizer *resizer;           /* scaled output to out */
    imago_resizer *preview_resizer;   /* scaled output to a preview's dst */
};

static void imago_jpeg_stream_failed(imago_jpeg_stream *s, imago_error *err) {
    s->phase = PHASE_FAILED;
    imago_resizer_destroy(s->preview_resizer);
    s->preview_resizer = NULL;
    if (err != NULL) *err = s->guard.failure;
}

static void imago_jpeg_stream_check_cancel(imago_jpeg_stream *s) {
    if (imago_control_cancelled(s->guard.control))
        imago_jpeg_fail((j_common_ptr)&s->cinfo, IMAGO_ERR_CANCELLED, "cancelled");
}

/* jpeg_create_decompress can only fail for lack of memory; 0 then, with err filled. */
static int imago_jpeg_stream_init(imago_jpeg_stream *s, imago_error *err) {
    imago_jpeg_guard_attach(&s->guard, &s->cinfo, NULL);
    if (setjmp(s->guard.jump)) {
        if (err != NULL) *err = s->guard.failure;
        return 0;
    }
    jpeg_create_decompress(&s->cinfo);
    s->created = 1;
    imago_jpeg_guard_watch(&s->guard, &s->cinfo);
    imago_jpeg_feed_init(&s->feed, &s->cinfo);
    jpeg_save_markers(&s->cinfo, JPEG_APP0 + 1, 0xFFFF);
    s->phase = PHASE_HEADER;
    return 1;
}

imago_jpeg_stream *imago_jpeg_stream_create(imago_error *err) {
    imago_jpeg_stream *s = calloc(1, sizeof *s);
    if (s == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    if (!imago_jpeg_stream_init(s, err)) {
        imago_jpeg_stream_destroy(s);
        return NULL;
    }
    return s;
}

/* Scanlines of the current output pass into dst (through resizer when given): 1 once the pass
 * is done, 0 when libjpeg suspended for input. */
static int imago_jpeg_stream_rows(imago_jpeg_stream *s, uint8_t *dst, size_t stride, imago_resizer *resizer,
                                  int publish) {
    j_decompress_ptr c = &s->cinfo;
    uint32_t width = c->output_width;
    JSAMPROW rows[IMAGO_JPEG_BATCH];
    while (c->output_scanline < c->output_height) {
        imago_jpeg_stream_check_cancel(s);
        uint32_t first = c->output_scanline;
        uint32_t batch = c->output_height - first;
        if (batch > IMAGO_JPEG_BATCH) batch = IMAGO_JPEG_BATCH;
        for (uint32_t i = 0; i < batch; i++) {
            rows[i] = resizer != NULL ? s->rows + (size_t)i * width * 4 : dst + (size_t)(first + i) * stride;
        }
        uint32_t got = jpeg_read_scanlines(c, rows, batch);
        if (publish) imago_control_set_rows(s->guard.control, c->output_scanline);
        for (uint32_t i = 0; i < got; i++) {
            if (s->cmyk) imago_jpeg_cmyk_to_rgba(rows[i], width, c->saw_Adobe_marker);
            if (resizer != NULL) imago_resizer_push_row(resizer, rows[i]);
        }
        if (got == 0) return 0;
    }
    return 1;
}

/* Buffered mode: absorbs input; stops when a scan has completed and the next one has begun
 * (so it was not the last), runs the final pass once EOI is in. */
static imago_stream_state imago_jpeg_stream_scans(imago_jpeg_stream *s) {
    j_decompress_ptr c = &s->cinfo;
    if (s->finish_output_pending) {
        if (!jpeg_finish_output(c)) return IMAGO_STREAM_NEEDS_INPUT;
        s->finish_output_pending = 0;
    }
    for (;;) {
        int r = jpeg_consume_input(c);
        if (r == JPEG_SUSPENDED) return IMAGO_STREAM_NEEDS_INPUT;
        if (r == JPEG_REACHED_EOI) break;
        if (r == JPEG_ROW_COMPLETED) imago_jpeg_stream_check_cancel(s);
        if (r == JPEG_SCAN_COMPLETED) s->scan_done = c->input_scan_number;
        if (r == JPEG_REACHED_SOS && s->scan_done > 0) {
            s->preview_scan = s->scan_done;
            s->scan_done = 0;
            return IMAGO_STREAM_PREVIEW_READY;
        }
    }
    if (!jpeg_start_output(c, c->input_scan_number) ||
        !imago_jpeg_stream_rows(s, s->out, s->out_stride, s->resizer, 1) || !jpeg_finish_output(c))
        imago_jpeg_fail((j_common_ptr)c, IMAGO_ERR_CORRUPT, "final output pass suspended");
    return IMAGO_STREAM_COMPLETE;
}

/* Runs libjpeg as far as the presented input allows. */
static imago_stream_state imago_jpeg_stream_step(imago_jpeg_stream *s) {
    j_decompress_ptr c = &s->cinfo;
    for (;;) {
        switch (s->phase) {
        case PHASE_HEADER:
            if (jpeg_read_header(c, TRUE) == JPEG_SUSPENDED) return IMAGO_STREAM_NEEDS_INPUT;
            s->cmyk = imago_jpeg_fill_info(c, &s->info);
            s->phase = PHASE_READY;
            return IMAGO_STREAM_HEADER_READY;
        case PHASE_STARTING:
            if (!jpeg_start_decompress(c)) return IMAGO_STREAM_NEEDS_INPUT;
            s->phase = s->buffered ? PHASE_SCANS : PHASE_ROWS;
            break;
        case PHASE_ROWS:
            if (!imago_jpeg_stream_rows(s, s->out, s->out_stride, s->resizer, 1)) return IMAGO_STREAM_NEEDS_INPUT;
            s->phase = PHASE_FINISHING;
            break;
        case PHASE_SCANS: {
            imago_stream_state state = imago_jpeg_stream_scans(s);
            if (state != IMAGO_STREAM_COMPLETE) return state;
            s->phase = PHASE_FINISHING;
            break;
        }
        case PHASE_FINISHING:
            if (!jpeg_finish_decompress(c)) return IMAGO_STREAM_NEEDS_INPUT;
            s->phase = PHASE_DONE;
            return IMAGO_STREAM_COMPLETE;
        default:
            return s->phase == PHASE_DONE ? IMAGO_STREAM_COMPLETE : IMAGO_STREAM_HEADER_READY;
        }
    }
}

/* Presents the push's bytes to libjpeg and runs it: in place while nothing is left over from
 * earlier pushes, else appended to the tail a piece at a time (and read in place again as soon
 * as the tail holds only this push's bytes). At a stop the push's unconsumed bytes are handed
 * back through *consumed, so the tail keeps only what libjpeg needs to resume. */
static imago_stream_state imago_jpeg_stream_feed(imago_jpeg_stream *s, const uint8_t *data, size_t size,
                                                 size_t *consumed) {
    imago_jpeg_feed *f = &s->feed;
    j_common_ptr common = (j_common_ptr)&s->cinfo;
    size_t off = 0, mine = 0;   /* mine: bytes at the tail's end that are data[off - mine, off) */
    if (s->hold) {              /* arithmetic coding: everything is kept, nothing handed back */
        off = imago_jpeg_feed_take_owed(f, size);
        if (!imago_jpeg_feed_append(f, data + off, size - off)) imago_jpeg_fail(common, IMAGO_ERR_NO_MEMORY, "out of memory");
        *consumed = size;
        if (!s->eoi_seen && !(s->eoi_seen = imago_jpeg_feed_has_eoi(f, &s->eoi_scanned))) return IMAGO_STREAM_NEEDS_INPUT;
        imago_stream_state state = imago_jpeg_stream_step(s);
        if (state == IMAGO_STREAM_COMPLETE) imago_jpeg_feed_release(f);
        else if (!imago_jpeg_feed_keep(f, 0)) imago_jpeg_fail(common, IMAGO_ERR_NO_MEMORY, "out of memory");
        return state;
    }
    for (;;) {
        int direct = f->length == 0;
        if (direct) {
            off += imago_jpeg_feed_take_owed(f, size - off);
            imago_jpeg_feed_present(f, data + off, size - off);
            mine = size - off;
            off = size;
        } else {
            size_t piece = size - off < IMAGO_JPEG_STREAM_PIECE ? size - off : IMAGO_JPEG_STREAM_PIECE;
            if (!imago_jpeg_feed_append(f, data + off, piece)) imago_jpeg_fail(common, IMAGO_ERR_NO_MEMORY, "out of memory");
            off += piece;
            mine += piece;
        }
        imago_stream_state state = imago_jpeg_stream_step(s);
        size_t left = f->pub.bytes_in_buffer;
        if (mine > left) mine = left;
        if (state == IMAGO_STREAM_COMPLETE) {
            imago_jpeg_feed_release(f);   /* whatever follows EOI is ignored */
            *consumed = size;
            return state;
        }
        size_t give_back = state == IMAGO_STREAM_NEEDS_INPUT ? 0 : mine;
        if (!imago_jpeg_feed_keep(f, give_back)) imago_jpeg_fail(common, IMAGO_ERR_NO_MEMORY, "out of memory");
        if (state != IMAGO_STREAM_NEEDS_INPUT || off == size) {
            *consumed = off - give_back;
            return state;
        }
        if (f->length == mine) {   /* the tail is all this push's: read the rest in place */
            f->length = 0;
            off -= mine;
            mine = 0;
        }
    }
}

imago_status imago_jpeg_stream_push(imago_jpeg_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                    imago_stream_state *state, imago_decode_control *control, imago_error *err) {
    *consumed = 0;
    *state = IMAGO_STREAM_NEEDS_INPUT;
    if (s->phase == PHASE_FAILED) {
        if (err != NULL) *err = s->guard.failure;
        return (imago_status)s->guard.failure.status;
    }
    if (data == NULL && size > 0) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "no data for %zu bytes", size);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (s->phase == PHASE_DONE) {
        *consumed = size;
        *state = IMAGO_STREAM_COMPLETE;
        return IMAGO_OK;
    }
    if (s->phase == PHASE_READY) {   /* nothing more is decoded before start */
        *state = IMAGO_STREAM_HEADER_READY;
        return IMAGO_OK;
    }
    if (size > 0) s->pushed = 1;
    s->preview_scan = 0;
    s->guard.control = control;
    if (setjmp(s->guard.jump)) {
        imago_jpeg_stream_failed(s, err);
        return (imago_status)s->guard.failure.status;
    }
    *state = imago_jpeg_stream_feed(s, data, size, consumed);
    return IMAGO_OK;
}

imago_status imago_jpeg_stream_info(const imago_jpeg_stream *s, imago_image_info *info) {
    if (s->phase == PHASE_HEADER || (s->phase == PHASE_FAILED && s->info.width == 0)) return IMAGO_ERR_INVALID_ARGUMENT;
    *info = s->info;
    return IMAGO_OK;
}

static int imago_jpeg_stream_geometry(uint32_t limit_w, uint32_t limit_h, const uint8_t *dst, size_t stride,
                                      uint32_t w, uint32_t h, imago_error *err) {
    if (dst != NULL && w > 0 && h > 0 && w <= limit_w && h <= limit_h && stride >= (size_t)w * 4) return 1;
    imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", w, h);
    return 0;
}

imago_status imago_jpeg_stream_start(imago_jpeg_stream *s, uint8_t *out, size_t out_stride, uint32_t out_w,
                                     uint32_t out_h, int32_t previews, imago_error *err) {
    j_decompress_ptr c = &s->cinfo;
    if (s->phase != PHASE_READY) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "start needs HEADER_READY, once");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (!imago_jpeg_stream_geometry(c->image_width, c->image_height, out, out_stride, out_w, out_h, err))
        return IMAGO_ERR_INVALID_ARGUMENT;
    s->guard.control = NULL;
    if (setjmp(s->guard.jump)) {
        imago_jpeg_stream_failed(s, err);
        return (imago_status)s->guard.failure.status;
    }
    c->out_color_space = s->cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    imago_jpeg_choose_scale(c, out_w, out_h);
    s->buffered = previews != 0 && c->progressive_mode;
    c->buffered_image = s->buffered ? TRUE : FALSE;
    jpeg_calc_output_dimensions(c);
    s->out = out;
    s->out_stride = out_stride;
    s->out_w = out_w;
    s->out_h = out_h;
    int resizing = c->output_width != out_w || c->output_height != out_h;
    if (resizing || s->buffered) {
        s->rows = malloc((size_t)c->output_width * 4 * IMAGO_JPEG_BATCH);
        if (s->rows == NULL) imago_jpeg_fail((j_common_ptr)c, IMAGO_ERR_NO_MEMORY, "out of memory");
    }
    if (resizing) {
        s->resizer = imago_resizer_create(c->output_width, c->output_height, out_w, out_h, out, out_stride, 0);
        if (s->resizer == NULL) imago_jpeg_fail((j_common_ptr)c, IMAGO_ERR_NO_MEMORY, "out of memory");
    }
    s->hold = c->arith_code;
    s->phase = PHASE_STARTING;
    return IMAGO_OK;
}

imago_status imago_jpeg_stream_render_preview(imago_jpeg_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                              uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                              imago_error *err) {
    j_decompress_ptr c = &s->cinfo;
    if (s->phase == PHASE_FAILED) {
        if (err != NULL) *err = s->guard.failure;
        return (imago_status)s->guard.failure.status;
    }
    if (s->phase != PHASE_SCANS || s->preview_scan == 0 || s->finish_output_pending) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "no preview ready");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (dst == s->out || !imago_jpeg_stream_geometry(s->out_w, s->out_h, dst, dst_stride, dst_w, dst_h, err)) {
        if (dst == s->out) imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "a preview cannot go into out");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    s->guard.control = control;
    if (setjmp(s->guard.jump)) {
        imago_jpeg_stream_failed(s, err);
        return (imago_status)s->guard.failure.status;
    }
    if (dst_w != c->output_width || dst_h != c->output_height) {
        s->preview_resizer = imago_resizer_create(c->output_width, c->output_height, dst_w, dst_h, dst, dst_stride, 0);
        if (s->preview_resizer == NULL) imago_jpeg_fail((j_common_ptr)c, IMAGO_ERR_NO_MEMORY, "out of memory");
    }
    /* The scan shown is complete and the next has begun, so the pass never waits for input. */
    if (!jpeg_start_output(c, s->preview_scan) || !imago_jpeg_stream_rows(s, dst, dst_stride, s->preview_resizer, 0))
        imago_jpeg_fail((j_common_ptr)c, IMAGO_ERR_CORRUPT, "preview pass suspended");
    if (!jpeg_finish_output(c)) s->finish_output_pending = 1;   /* resumed by the next push */
    imago_resizer_destroy(s->preview_resizer);
    s->preview_resizer = NULL;
    *detail = s->preview_scan;
    return IMAGO_OK;
}

imago_status imago_jpeg_stream_finish(imago_jpeg_stream *s, imago_error *err) {
    if (s->phase == PHASE_DONE) return IMAGO_OK;
    if (s->phase == PHASE_FAILED) {
        if (err != NULL) *err = s->guard.failure;
        return (imago_status)s->guard.failure.status;
    }
    if (!s->pushed) {
        imago_error_set(err, IMAGO_ERR_EMPTY, "no data");
        return IMAGO_ERR_EMPTY;
    }
    imago_error_set(err, IMAGO_ERR_TRUNCATED, "premature end of JPEG data");
    return IMAGO_ERR_TRUNCATED;
}

void imago_jpeg_stream_destroy(imago_jpeg_stream *s) {
    if (s == NULL) return;
    if (s->created) jpeg_destroy_decompress(&s->cinfo);
    imago_jpeg_feed_release(&s->feed);
    imago_resizer_destroy(s->resizer);
    imago_resizer_destroy(s->preview_resizer);
    free(s->rows);
    free(s);
}

void imago_jpeg_stream_input_peaks(const imago_jpeg_stream *s, size_t *kept, size_t *allocated) {
    *kept = s->feed.peak_length;
    *allocated = s->feed.peak_capacity;
}
