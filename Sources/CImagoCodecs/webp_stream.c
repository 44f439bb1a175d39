/* WebP pushed in pieces, through libwebp's incremental decoder (WebPIDecoder), configured as
 * the pull decoder configures it (RGBA straight alpha into the caller's buffer, libwebp's
 * scaler when the output is smaller), so the pixels are the same.
 *
 * Header: the first bytes are kept only until WebPGetFeatures can read them (when the first
 * push already holds enough, nothing is copied and push takes 0 bytes at HEADER_READY).
 * Input: the stream keeps the bitstream (up to the RIFF size) in a buffer grown by doubling and
 * hands libwebp a growing view (WebPIUpdate), in the pull decoder's steps: at least 64 KiB and
 * 1/32 of the RIFF size, because every resumption of a lossless decode redoes rows. So libwebp
 * sees the same calls with the same bytes as in the pull decoder, whatever the pieces: on a
 * damaged bitstream its incremental decoder's pixels depend on where its input was cut (a
 * fuzzed lossy file gave two different images for different WebPIAppend piece sizes). Lossless
 * and alpha bitstreams are kept whole by libwebp anyway; a lossy one is small next to its
 * pixels (a twentieth or less), which is what keeping it costs.
 * An animation is kept whole (up to its RIFF size) before HEADER_READY, so that info is the
 * pull decoder's (frame count, first frame's format), and its first frame decodes at finish. */
#include "imago_stream.h"
#include "webp_container.h"
#include "webp_shared.h"

#include <stdlib.h>
#include <string.h>

#define IMAGO_WEBP_HEADER_RETRY 65536   /* bytes kept while libwebp refuses the header (see header) */

struct imago_webp_stream {
    int any_bytes, header_ready, started, complete, failed;
    VP8StatusCode header_status;   /* what libwebp last said of a header it refused, judged again */
    uint8_t *buf;              /* head bytes; then the animation, or the whole bitstream */
    size_t size, capacity;
    size_t fed;                /* bytes libwebp has seen */
    size_t expected;           /* RIFF size + 8; 0 when unknown */
    WebPBitstreamFeatures features;
    WebPDemuxer *demux;
    WebPIterator frame;
    imago_image_info image;
    WebPDecoderConfig config;  /* libwebp keeps pointers into it */
    WebPIDecoder *idec;
    uint8_t *out;
    size_t stride;
    uint32_t out_w, out_h;
    imago_webp_walk walk;      /* every byte taken, checked against the container rule */
};

imago_webp_stream *imago_webp_stream_create(imago_error *err) {
    imago_webp_stream *s = calloc(1, sizeof *s);
    if (s == NULL) imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
    return s;
}

/* Appends to buf, doubling its capacity (never beyond the RIFF size when known). */
static int imago_webp_stream_keep(imago_webp_stream *s, const uint8_t *data, size_t n) {
    if (n == 0) return 1;
    if (s->size + n > s->capacity) {
        size_t capacity = s->capacity ? s->capacity * 2 : 4096;
        if (s->expected && capacity > s->expected) capacity = s->expected;
        if (capacity < s->size + n) capacity = s->size + n;
        uint8_t *grown = realloc(s->buf, capacity);
        if (grown == NULL) return 0;
        s->buf = grown;
        s->capacity = capacity;
    }
    memcpy(s->buf + s->size, data, n);
    s->size += n;
    return 1;
}

static void imago_webp_stream_drop(imago_webp_stream *s) {
    free(s->buf);
    s->buf = NULL;
    s->size = s->capacity = 0;
}

static imago_status imago_webp_stream_fail(imago_webp_stream *s, imago_error *err, imago_status status, const char *what) {
    if (what != NULL) imago_error_set(err, status, "%s", what);
    s->failed = 1;
    return status;
}

/* Before HEADER_READY. */
static imago_status imago_webp_stream_header(imago_webp_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                             imago_stream_state *state, imago_error *err) {
    if (s->size == 0 && WebPGetFeatures(data, size, &s->features) == VP8_STATUS_OK && !s->features.has_animation) {
        s->expected = imago_webp_riff_end(data, size);   /* read from the caller's bytes, pushed again later */
    } else {
        size_t take = size;
        if (s->expected && take > s->expected - s->size) take = s->expected - s->size;   /* an animation's end */
        if (!imago_webp_stream_keep(s, data, take)) return imago_webp_stream_fail(s, err, IMAGO_ERR_NO_MEMORY, "out of memory");
        *consumed = size;
        if (s->expected == 0) {
            VP8StatusCode code = WebPGetFeatures(s->buf, s->size, &s->features);
            if (code == VP8_STATUS_NOT_ENOUGH_DATA) return IMAGO_OK;
            if (code != VP8_STATUS_OK) {
                /* libwebp can refuse a prefix of a damaged header that it accepts whole (a fuzzed
                 * file with a bare VP8 frame after "WEBP"): judged again with more bytes, up to
                 * the RIFF end or IMAGO_WEBP_HEADER_RETRY, as the pull decoder judges the file. */
                size_t riff_end = imago_webp_riff_end(s->buf, s->size);
                if (s->size < IMAGO_WEBP_HEADER_RETRY && (riff_end < 12 || s->size < riff_end)) {
                    s->header_status = code;
                    return IMAGO_OK;
                }
                return imago_webp_stream_fail(s, err, imago_webp_fail(err, code), NULL);
            }
            s->expected = imago_webp_riff_end(s->buf, s->size);
            if (s->features.has_animation && s->expected == 0) {
                return imago_webp_stream_fail(s, err, IMAGO_ERR_CORRUPT, "invalid animated WebP container");
            }
            if (s->expected >= 12 && s->size > s->expected) s->size = s->expected;   /* the image ends there */
        }
        if (s->features.has_animation && s->size < s->expected) return IMAGO_OK;   /* the whole animation first */
    }
    const uint8_t *whole = s->size ? s->buf : data;
    size_t whole_size = s->size ? s->size : size;
    if (s->expected >= 12 && whole_size > s->expected) whole_size = s->expected;   /* the image ends there */
    imago_status status = imago_webp_describe(whole, whole_size, 0, &s->features, &s->demux, &s->frame, &s->image, err);
    if (status != IMAGO_OK) return imago_webp_stream_fail(s, err, status, NULL);
    s->header_ready = 1;
    *state = IMAGO_STREAM_HEADER_READY;
    return IMAGO_OK;
}

static void imago_webp_stream_done(imago_webp_stream *s, imago_decode_control *control) {
    s->complete = 1;
    WebPIDelete(s->idec);   /* the pixels are in out; nothing of the input is needed any more */
    s->idec = NULL;
    imago_webp_stream_drop(s);
    imago_control_set_rows(control, s->out_h);
}

static imago_status imago_webp_stream_step(imago_webp_stream *s, VP8StatusCode code, imago_decode_control *control,
                                           imago_error *err) {
    if (code == VP8_STATUS_OK) {
        imago_webp_stream_done(s, control);
        return IMAGO_OK;
    }
    if (code != VP8_STATUS_SUSPENDED) return imago_webp_stream_fail(s, err, imago_webp_fail(err, code), NULL);
    int last_y = 0;
    if (WebPIDecGetRGB(s->idec, &last_y, NULL, NULL, NULL) != NULL) imago_control_set_rows(control, last_y);
    return IMAGO_OK;
}

/* A growing view of buf, in steps; all of it when the input is known to have ended. */
static imago_status imago_webp_stream_update(imago_webp_stream *s, int ended, imago_decode_control *control,
                                             imago_error *err) {
    size_t step = imago_webp_update_step(s->expected, 0);   /* no RIFF end: the total is unknown */
    if (s->expected && s->size >= s->expected) ended = 1;
    while (s->fed < s->size && !s->complete && (ended || s->size - s->fed >= step)) {
        if (imago_control_cancelled(control)) return imago_webp_stream_fail(s, err, IMAGO_ERR_CANCELLED, "cancelled");
        s->fed = s->size - s->fed > step ? s->fed + step : s->size;
        imago_status status = imago_webp_stream_step(s, WebPIUpdate(s->idec, s->buf, s->fed), control, err);
        if (status != IMAGO_OK) return status;
    }
    return IMAGO_OK;
}

static imago_status imago_webp_stream_take(imago_webp_stream *s, const uint8_t *data, size_t size, size_t *consumed,
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
    if (s->complete) {   /* the pixels are done; what is left of the container is only walked */
        *consumed = size;
        return IMAGO_OK;
    }
    if (size > 0) s->any_bytes = 1;
    if (imago_control_cancelled(control) && (size > 0 || s->started)) {
        return imago_webp_stream_fail(s, err, IMAGO_ERR_CANCELLED, "cancelled");
    }
    if (!s->header_ready) return size ? imago_webp_stream_header(s, data, size, consumed, state, err) : IMAGO_OK;
    *consumed = size;
    imago_status status = IMAGO_OK;
    if (s->features.has_animation) {
        /* kept whole before HEADER_READY; what follows the RIFF size is ignored */
    } else {
        size_t take = size;   /* bytes after the RIFF size are not kept */
        if (s->expected) take = s->size >= s->expected ? 0 : s->expected - s->size < size ? s->expected - s->size : size;
        if (!imago_webp_stream_keep(s, data, take)) return imago_webp_stream_fail(s, err, IMAGO_ERR_NO_MEMORY, "out of memory");
        status = imago_webp_stream_update(s, 0, control, err);
    }
    return status;
}

/* COMPLETE once the pixels are done and the container is walked to its end (the chunks after
 * the bitstream, metadata say, must obey the container rule as they do for the pull decoder). */
imago_status imago_webp_stream_push(imago_webp_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                    imago_stream_state *state, imago_decode_control *control, imago_error *err) {
    imago_status status = imago_webp_stream_take(s, data, size, consumed, state, control, err);
    if (status != IMAGO_OK) return status;
    status = imago_webp_walk_feed(&s->walk, data, *consumed, err);
    if (status != IMAGO_OK) return imago_webp_stream_fail(s, err, status, NULL);
    if (s->complete) *state = s->walk.done ? IMAGO_STREAM_COMPLETE : IMAGO_STREAM_NEEDS_INPUT;
    return IMAGO_OK;
}

imago_status imago_webp_stream_info(const imago_webp_stream *s, imago_image_info *info) {
    if (!s->header_ready) return IMAGO_ERR_INVALID_ARGUMENT;
    *info = s->image;
    return IMAGO_OK;
}

imago_status imago_webp_stream_start(imago_webp_stream *s, uint8_t *out, size_t out_stride, uint32_t out_w,
                                     uint32_t out_h, int32_t previews, imago_error *err) {
    (void)previews;   /* WebP never stops for a preview */
    if (!s->header_ready || s->started || s->failed || out == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "start without a header, or twice");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (out_w == 0 || out_h == 0 || out_w > s->image.width || out_h > s->image.height || out_stride < (size_t)out_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", out_w, out_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    s->out = out;
    s->stride = out_stride;
    s->out_w = out_w;
    s->out_h = out_h;
    if (!s->features.has_animation) {
        if (!WebPInitDecoderConfig(&s->config)) return imago_webp_fail(err, VP8_STATUS_INVALID_PARAM);
        imago_webp_configure(&s->config, out, out_stride, out_w, out_h, s->features.width, s->features.height);
        s->idec = WebPIDecode(NULL, 0, &s->config);
        if (s->idec == NULL) return imago_webp_fail(err, VP8_STATUS_OUT_OF_MEMORY);
    }
    s->started = 1;
    return IMAGO_OK;
}

imago_status imago_webp_stream_render_preview(imago_webp_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                              uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                              imago_error *err) {
    (void)s; (void)dst; (void)dst_stride; (void)dst_w; (void)dst_h; (void)detail; (void)control;
    imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "WebP has no previews");
    return IMAGO_ERR_INVALID_ARGUMENT;
}

imago_status imago_webp_stream_finish(imago_webp_stream *s, imago_error *err) {
    if (s->complete) return IMAGO_OK;
    if (s->failed) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "finish after an error");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (!s->any_bytes) {
        imago_error_set(err, IMAGO_ERR_EMPTY, "no data");
        return IMAGO_ERR_EMPTY;
    }
    if (s->started && s->features.has_animation) {
        imago_status status = imago_webp_decode_first_frame(&s->features, &s->frame, s->out, s->stride, s->out_w,
                                                            s->out_h, NULL, err);
        if (status != IMAGO_OK) return imago_webp_stream_fail(s, err, status, NULL);
        s->complete = 1;
        return IMAGO_OK;
    }
    if (!s->header_ready && s->header_status != VP8_STATUS_OK) {
        return imago_webp_stream_fail(s, err, imago_webp_fail(err, s->header_status), NULL);
    }
    if (s->started) {   /* the last bytes, held back below a step */
        imago_status status = imago_webp_stream_update(s, 1, NULL, err);
        if (status != IMAGO_OK) return status;
        if (s->complete) return IMAGO_OK;
    }
    imago_error_set(err, IMAGO_ERR_TRUNCATED, "unexpected end of WebP data");
    return IMAGO_ERR_TRUNCATED;
}

void imago_webp_stream_destroy(imago_webp_stream *s) {
    if (s == NULL) return;
    if (s->demux != NULL) {
        WebPDemuxReleaseIterator(&s->frame);
        WebPDemuxDelete(s->demux);
    }
    WebPIDelete(s->idec);
    free(s->buf);
    free(s);
}
