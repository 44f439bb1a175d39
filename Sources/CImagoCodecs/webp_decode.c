/* WebP through libwebp's incremental decoder: input is fed in chunks so that cancellation is
 * polled between them, and scaling happens in libwebp's own rescaler. An animation decodes its
 * first frame, composited on a transparent canvas.
 *
 * A file is read whole before decoding: libwebp needs the complete bitstream in memory (VP8
 * reads its token partitions in parallel, VP8L may rewind), and its append mode re-copies the
 * accumulated buffer on every chunk, which made a 12 MP lossless decode 3x slower. Reading
 * first and then feeding one growing view (WebPIUpdate) copies nothing. */
#include "imago_decode.h"
#include "imago_reader.h"
#include "imago_pixels.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

#define IMAGO_WEBP_READ_CHUNK 65536
/* Fed between cancellation checks: at least this much, and at least 1/IMAGO_WEBP_STEPS of the
 * file, because every resumption of a lossless decode re-decodes from its last checkpoint. */
#define IMAGO_WEBP_MIN_STEP 65536
#define IMAGO_WEBP_STEPS 32

struct imago_webp_decoder {
    imago_reader reader;
    uint8_t *owned;        /* a file descriptor input, read whole */
    size_t owned_size;
    size_t owned_capacity;   /* bytes allocated for `owned` (it grows by doubling) */
    const uint8_t *head;   /* the complete encoded bytes (caller's memory or `owned`) */
    size_t head_size;
    WebPBitstreamFeatures features;
    WebPDemuxer *demux;    /* animations: opened once in open, its first frame kept for decode */
    WebPIterator frame;
};

static imago_status imago_webp_status(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OK: return IMAGO_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return IMAGO_ERR_NO_MEMORY;
    case VP8_STATUS_UNSUPPORTED_FEATURE: return IMAGO_ERR_UNSUPPORTED;
    case VP8_STATUS_NOT_ENOUGH_DATA:
    case VP8_STATUS_SUSPENDED: return IMAGO_ERR_TRUNCATED;
    default: return IMAGO_ERR_CORRUPT;
    }
}

static const char *imago_webp_message(VP8StatusCode code) {
    switch (code) {
    case VP8_STATUS_OUT_OF_MEMORY: return "out of memory";
    case VP8_STATUS_INVALID_PARAM: return "invalid parameter";
    case VP8_STATUS_BITSTREAM_ERROR: return "bitstream error";
    case VP8_STATUS_UNSUPPORTED_FEATURE: return "unsupported feature";
    case VP8_STATUS_SUSPENDED:
    case VP8_STATUS_NOT_ENOUGH_DATA: return "unexpected end of WebP data";
    case VP8_STATUS_USER_ABORT: return "aborted";
    default: return "ok";
    }
}

static imago_status imago_webp_fail(imago_error *err, VP8StatusCode code) {
    imago_status status = imago_webp_status(code);
    imago_error_set(err, status, "%s", imago_webp_message(code));
    return status;
}

/* Reads the rest of a file descriptor input into `owned`, doubling the buffer as it goes. */
static imago_status imago_webp_read_all(imago_webp_decoder *d, imago_error *err) {
    size_t capacity = IMAGO_WEBP_READ_CHUNK;
    for (;;) {
        uint8_t *grown = realloc(d->owned, capacity);
        if (grown == NULL) {
            imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
            return IMAGO_ERR_NO_MEMORY;
        }
        d->owned = grown;
        d->owned_capacity = capacity;
        size_t want = capacity - d->owned_size;
        size_t got = imago_reader_read(&d->reader, d->owned + d->owned_size, want);
        d->owned_size += got;
        if (d->reader.io_errno) {
            imago_error_set(err, IMAGO_ERR_IO, "read failed (errno %d)", d->reader.io_errno);
            return IMAGO_ERR_IO;
        }
        if (got < want) break;
        capacity *= 2;
    }
    d->head = d->owned;
    d->head_size = d->owned_size;
    return IMAGO_OK;
}

imago_webp_decoder *imago_webp_open(const imago_input *input, imago_image_info *info, imago_error *err) {
    imago_webp_decoder *d = calloc(1, sizeof *d);
    if (d == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "out of memory");
        return NULL;
    }
    imago_reader_init(&d->reader, input);
    if (imago_reader_is_memory(&d->reader)) {
        d->head = imago_reader_peek(&d->reader, &d->head_size);
    } else if (imago_webp_read_all(d, err) != IMAGO_OK) {
        imago_webp_close(d);
        return NULL;
    }
    if (d->head_size == 0) {
        imago_error_set(err, IMAGO_ERR_EMPTY, "no data");
        imago_webp_close(d);
        return NULL;
    }
    VP8StatusCode code = WebPGetFeatures(d->head, d->head_size, &d->features);
    if (code != VP8_STATUS_OK) {
        imago_webp_fail(err, code);
        imago_webp_close(d);
        return NULL;
    }
    /* An animation's container says "mixed"; the first frame's bitstream says what it is. */
    WebPBitstreamFeatures bitstream = d->features;
    int32_t frame_count = 1;
    if (d->features.has_animation) {
        WebPData data = {d->head, d->head_size};
        d->demux = WebPDemux(&data);
        int ok = d->demux != NULL && WebPDemuxGetFrame(d->demux, 1, &d->frame);
        if (ok) {
            frame_count = (int32_t)WebPDemuxGetI(d->demux, WEBP_FF_FRAME_COUNT);
            ok = WebPGetFeatures(d->frame.fragment.bytes, d->frame.fragment.size, &bitstream) == VP8_STATUS_OK;
        } else if (d->demux != NULL) {
            WebPDemuxDelete(d->demux);   /* no frame: close must not release an iterator */
            d->demux = NULL;
        }
        if (!ok) {
            imago_error_set(err, IMAGO_ERR_CORRUPT, "invalid animated WebP container");
            imago_webp_close(d);
            return NULL;
        }
    }
    memset(info, 0, sizeof *info);
    info->width = (uint32_t)d->features.width;
    info->height = (uint32_t)d->features.height;
    info->bit_depth = 8;
    info->has_alpha = d->features.has_alpha;
    info->lossless = bitstream.format == 2;
    info->color_model = info->lossless ? (info->has_alpha ? IMAGO_COLOR_RGBA : IMAGO_COLOR_RGB) : IMAGO_COLOR_YCBCR;
    info->orientation = 1;
    info->animated = d->features.has_animation;
    info->frame_count = frame_count;
    /* libwebp decodes lossless into a full-size ARGB buffer of its own, and lossy alpha into a
     * full-size alpha plane; an animation's first frame may need a full canvas; a file's
     * bitstream is held whole while decoding (in a buffer grown by doubling). */
    uint64_t pixels = (uint64_t)d->features.width * (uint64_t)d->features.height;
    uint64_t alpha_plane = !info->lossless && info->has_alpha ? pixels : 0;
    info->working_bytes = (info->lossless ? pixels * 4 : 0) + alpha_plane + (info->animated ? pixels * 4 : 0) +
                          d->owned_capacity;
    return d;
}

static void imago_webp_configure(WebPDecoderConfig *config, uint8_t *out, size_t stride,
                                 uint32_t out_w, uint32_t out_h, int src_w, int src_h) {
    config->output.colorspace = MODE_RGBA;
    config->output.is_external_memory = 1;
    config->output.u.RGBA.rgba = out;
    config->output.u.RGBA.stride = (int)stride;
    config->output.u.RGBA.size = stride * out_h;
    if ((int)out_w != src_w || (int)out_h != src_h) {
        config->options.use_scaling = 1;
        config->options.scaled_width = (int)out_w;
        config->options.scaled_height = (int)out_h;
    }
}

static imago_status imago_webp_decode_still(imago_webp_decoder *d, uint8_t *out, size_t stride,
                                            uint32_t out_w, uint32_t out_h, imago_decode_control *control,
                                            imago_error *err) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return imago_webp_fail(err, VP8_STATUS_INVALID_PARAM);
    imago_webp_configure(&config, out, stride, out_w, out_h, d->features.width, d->features.height);
    WebPIDecoder *idec = WebPIDecode(NULL, 0, &config);
    if (idec == NULL) return imago_webp_fail(err, VP8_STATUS_OUT_OF_MEMORY);
    size_t step = d->head_size / IMAGO_WEBP_STEPS;
    if (step < IMAGO_WEBP_MIN_STEP) step = IMAGO_WEBP_MIN_STEP;
    size_t fed = 0;
    VP8StatusCode code = VP8_STATUS_SUSPENDED;
    imago_status status = IMAGO_OK;
    while (code == VP8_STATUS_SUSPENDED) {
        if (imago_control_cancelled(control)) {
            imago_error_set(err, IMAGO_ERR_CANCELLED, "cancelled");
            status = IMAGO_ERR_CANCELLED;
            break;
        }
        if (fed == d->head_size) {
            status = imago_webp_fail(err, VP8_STATUS_NOT_ENOUGH_DATA);
            break;
        }
        fed = d->head_size - fed > step ? fed + step : d->head_size;
        code = WebPIUpdate(idec, d->head, fed);   /* one growing view of the same bytes */
        int last_y = 0;
        if (WebPIDecGetRGB(idec, &last_y, NULL, NULL, NULL) != NULL) imago_control_set_rows(control, last_y);
    }
    if (status == IMAGO_OK && code != VP8_STATUS_OK) status = imago_webp_fail(err, code);
    WebPIDelete(idec);
    return status;
}

/* First frame of an animation: decoded into a transparent canvas when it does not cover it. */
static imago_status imago_webp_decode_first_frame(imago_webp_decoder *d, uint8_t *out, size_t stride,
                                                  uint32_t out_w, uint32_t out_h, imago_decode_control *control,
                                                  imago_error *err) {
    if (imago_control_cancelled(control)) {
        imago_error_set(err, IMAGO_ERR_CANCELLED, "cancelled");
        return IMAGO_ERR_CANCELLED;
    }
    const WebPIterator frame = d->frame;
    uint32_t canvas_w = (uint32_t)d->features.width, canvas_h = (uint32_t)d->features.height;
    int covers = frame.x_offset == 0 && frame.y_offset == 0 &&
                 (uint32_t)frame.width == canvas_w && (uint32_t)frame.height == canvas_h;
    int direct = covers || (out_w == canvas_w && out_h == canvas_h);
    size_t canvas_stride = (size_t)canvas_w * 4;
    uint8_t *canvas = direct ? out : calloc((size_t)canvas_h, canvas_stride);
    imago_status status = IMAGO_OK;
    if (canvas == NULL) {
        status = imago_webp_fail(err, VP8_STATUS_OUT_OF_MEMORY);
    } else {
        size_t cstride = direct ? stride : canvas_stride;
        if (direct && !covers) {
            for (uint32_t y = 0; y < canvas_h; y++) memset(out + (size_t)y * stride, 0, canvas_stride);
        }
        WebPDecoderConfig config;
        WebPInitDecoderConfig(&config);
        uint8_t *origin = canvas + (size_t)frame.y_offset * cstride + (size_t)frame.x_offset * 4;
        if (covers) {
            imago_webp_configure(&config, origin, cstride, out_w, out_h, frame.width, frame.height);
        } else {
            imago_webp_configure(&config, origin, cstride, (uint32_t)frame.width, (uint32_t)frame.height,
                                 frame.width, frame.height);
        }
        VP8StatusCode code = WebPDecode(frame.fragment.bytes, frame.fragment.size, &config);
        if (code != VP8_STATUS_OK) status = imago_webp_fail(err, code);
        if (status == IMAGO_OK) imago_control_set_rows(control, frame.height);
        if (status == IMAGO_OK && !direct) {
            status = imago_resize_rgba(canvas, canvas_w, canvas_h, canvas_stride, out, out_w, out_h, stride, err);
        }
        if (!direct) free(canvas);
    }
    return status;
}

imago_status imago_webp_decode(imago_webp_decoder *d, uint8_t *out, size_t out_stride,
                               uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err) {
    if (out_w == 0 || out_h == 0 || out_w > (uint32_t)d->features.width ||
        out_h > (uint32_t)d->features.height || out_stride < (size_t)out_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", out_w, out_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (d->features.has_animation) return imago_webp_decode_first_frame(d, out, out_stride, out_w, out_h, control, err);
    return imago_webp_decode_still(d, out, out_stride, out_w, out_h, control, err);
}

void imago_webp_close(imago_webp_decoder *d) {
    if (d == NULL) return;
    if (d->demux != NULL) {
        WebPDemuxReleaseIterator(&d->frame);
        WebPDemuxDelete(d->demux);
    }
    free(d->owned);
    free(d);
}

int32_t imago_webp_version(void) {
    return (int32_t)WebPGetDecoderVersion();
}
