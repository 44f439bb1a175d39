/* Push JPEG decoding (imago_stream.h) through libjpeg-turbo's suspending data source
 * (jpeg_stream_feed.c): every libjpeg entry point returns a suspension code when the input runs
 * out and is called again on the next push. Previews of a progressive image use buffered-image
 * mode: input is absorbed scan by scan into libjpeg's coefficient arrays and any completed scan
 * can be rendered as an output pass. Errors longjmp back into the entry point that armed the
 * jump buffer (create, push, start, render_preview); nothing jumps past them.
 * The one exception to "keep only the unconsumed tail": libjpeg's arithmetic decoder cannot
 * suspend inside a scan (JERR_CANT_SUSPEND), so an arithmetic-coded image keeps its input from
 * start on until an EOI marker (FF D9) has arrived, then decodes it all in that push. */
#include "jpeg_stream.h"
#include "jpeg_stream_internal.h"

#include <stdlib.h>
#include <string.h>

/* Most bytes appended to a non-empty tail at a time: once libjpeg has used up the old bytes the
 * rest of the push is read in place, so the tail buffer stays about this small. */
#define IMAGO_JPEG_STREAM_PIECE 4096

static void imago_jpeg_stream_failed(imago_jpeg_stream *s, imago_error *err) {
    s->phase = IMAGO_JPEG_PHASE_FAILED;
    imago_resizer_destroy(s->preview_resizer);
    s->preview_resizer = NULL;
    if (err != NULL) *err = s->guard.failure;
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
    s->phase = IMAGO_JPEG_PHASE_HEADER;
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
        if (imago_control_cancelled(s->guard.control)) imago_jpeg_fail(common, IMAGO_ERR_CANCELLED, "cancelled");
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
    if (s->phase == IMAGO_JPEG_PHASE_FAILED) {
        if (err != NULL) *err = s->guard.failure;
        return (imago_status)s->guard.failure.status;
    }
    if (data == NULL && size > 0) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "no data for %zu bytes", size);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (s->phase == IMAGO_JPEG_PHASE_DONE) {
        *consumed = size;
        *state = IMAGO_STREAM_COMPLETE;
        return IMAGO_OK;
    }
    if (s->phase == IMAGO_JPEG_PHASE_READY) {   /* nothing more is decoded before start */
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
    if (s->phase == IMAGO_JPEG_PHASE_HEADER || (s->phase == IMAGO_JPEG_PHASE_FAILED && s->info.width == 0)) return IMAGO_ERR_INVALID_ARGUMENT;
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
    if (s->phase != IMAGO_JPEG_PHASE_READY) {
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
    s->phase = IMAGO_JPEG_PHASE_STARTING;
    return IMAGO_OK;
}

imago_status imago_jpeg_stream_render_preview(imago_jpeg_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                              uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                              imago_error *err) {
    j_decompress_ptr c = &s->cinfo;
    if (s->phase == IMAGO_JPEG_PHASE_FAILED) {
        if (err != NULL) *err = s->guard.failure;
        return (imago_status)s->guard.failure.status;
    }
    if (s->phase != IMAGO_JPEG_PHASE_SCANS || s->preview_scan == 0 || s->finish_output_pending) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "no preview ready");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (dst == s->out || !imago_jpeg_stream_geometry(s->out_w, s->out_h, dst, dst_stride, dst_w, dst_h, err)) {
        if (dst == s->out) imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "a preview cannot go into out");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    /* A preview is optional: one that cannot even start leaves the decode as it was. Only a
     * failure inside the output pass (libjpeg's state then is mid-pass) ends the decode. */
    if (dst_w != c->output_width || dst_h != c->output_height) {
        s->preview_resizer = imago_resizer_create(c->output_width, c->output_height, dst_w, dst_h, dst, dst_stride, 0);
        if (s->preview_resizer == NULL) {
            imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory for a preview");
            return IMAGO_ERR_NO_MEMORY;
        }
    }
    s->guard.control = control;
    if (setjmp(s->guard.jump)) {
        imago_jpeg_stream_failed(s, err);
        return (imago_status)s->guard.failure.status;
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
    if (s->phase == IMAGO_JPEG_PHASE_DONE) return IMAGO_OK;
    if (s->phase == IMAGO_JPEG_PHASE_FAILED) {
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
