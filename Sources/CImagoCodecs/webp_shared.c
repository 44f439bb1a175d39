/* What the WebP pull decoder (webp_decode.c) and push decoder (webp_stream.c) share. */
#include "webp_shared.h"
#include "imago_pixels.h"

#include <stdlib.h>
#include <string.h>

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

imago_status imago_webp_fail(imago_error *err, VP8StatusCode code) {
    imago_status status = imago_webp_status(code);
    imago_error_set(err, status, "%s", imago_webp_message(code));
    return status;
}

size_t imago_webp_update_step(size_t riff_end, size_t whole) {
    size_t step = (riff_end >= 12 ? riff_end : whole) / 32;
    return step < 65536 ? 65536 : step;
}

imago_status imago_webp_describe(const uint8_t *data, size_t size, uint64_t held_bytes,
                                 WebPBitstreamFeatures *features, WebPDemuxer **demux, WebPIterator *frame,
                                 imago_image_info *info, imago_error *err) {
    *demux = NULL;
    VP8StatusCode code = WebPGetFeatures(data, size, features);
    if (code != VP8_STATUS_OK) {
        return imago_webp_fail(err, code);
    }
    /* An animation's container says "mixed"; the first frame's bitstream says what it is. */
    WebPBitstreamFeatures bitstream = *features;
    int32_t frame_count = 1;
    if (features->has_animation) {
        WebPData whole = {data, size};
        *demux = WebPDemux(&whole);
        int ok = *demux != NULL && WebPDemuxGetFrame(*demux, 1, frame);
        if (ok) {
            frame_count = (int32_t)WebPDemuxGetI(*demux, WEBP_FF_FRAME_COUNT);
            ok = WebPGetFeatures(frame->fragment.bytes, frame->fragment.size, &bitstream) == VP8_STATUS_OK;
        } else if (*demux != NULL) {
            WebPDemuxDelete(*demux);   /* no frame: close must not release an iterator */
            *demux = NULL;
        }
        if (!ok) {
            if (*demux != NULL) {   /* a frame without its bitstream's features */
                WebPDemuxReleaseIterator(frame);
                WebPDemuxDelete(*demux);
                *demux = NULL;
            }
            imago_error_set(err, IMAGO_ERR_CORRUPT, "invalid animated WebP container");
            return IMAGO_ERR_CORRUPT;
        }
    }
    memset(info, 0, sizeof *info);
    info->width = (uint32_t)features->width;
    info->height = (uint32_t)features->height;
    info->bit_depth = 8;
    info->has_alpha = features->has_alpha;
    info->lossless = bitstream.format == 2;
    info->color_model = info->lossless ? (info->has_alpha ? IMAGO_COLOR_RGBA : IMAGO_COLOR_RGB) : IMAGO_COLOR_YCBCR;
    info->orientation = 1;
    info->animated = features->has_animation;
    info->frame_count = frame_count;
    /* libwebp decodes lossless into a full-size ARGB buffer of its own, and lossy alpha into a
     * full-size alpha plane; an animation's first frame may need a full canvas; a file's
     * bitstream is held whole while decoding (in a buffer grown by doubling). */
    uint64_t pixels = (uint64_t)features->width * (uint64_t)features->height;
    uint64_t alpha_plane = !info->lossless && info->has_alpha ? pixels : 0;
    info->working_bytes = (info->lossless ? pixels * 4 : 0) + alpha_plane + (info->animated ? pixels * 4 : 0) +
                          held_bytes;
    return IMAGO_OK;
}

void imago_webp_configure(WebPDecoderConfig *config, uint8_t *out, size_t stride,
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

/* First frame of an animation: decoded into a transparent canvas when it does not cover it. */
imago_status imago_webp_decode_first_frame(const WebPBitstreamFeatures *features, const WebPIterator *first,
                                           uint8_t *out, size_t stride, uint32_t out_w, uint32_t out_h,
                                           imago_decode_control *control, imago_error *err) {
    if (imago_control_cancelled(control)) {
        imago_error_set(err, IMAGO_ERR_CANCELLED, "cancelled");
        return IMAGO_ERR_CANCELLED;
    }
    const WebPIterator frame = *first;
    uint32_t canvas_w = (uint32_t)features->width, canvas_h = (uint32_t)features->height;
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

