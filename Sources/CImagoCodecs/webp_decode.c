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
#include "webp_container.h"
#include "webp_shared.h"

#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

#define IMAGO_WEBP_READ_CHUNK 65536

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
    /* The image ends at its RIFF size, as it does for the push decoder; its chunks must lie inside. */
    size_t riff_end = imago_webp_riff_end(d->head, d->head_size);
    if (riff_end >= 12 && riff_end < d->head_size) d->head_size = riff_end;
    imago_webp_walk walk = {0};
    if (imago_webp_walk_feed(&walk, d->head, d->head_size, err) != IMAGO_OK) {
        imago_webp_close(d);
        return NULL;
    }
    if (imago_webp_describe(d->head, d->head_size, d->owned_capacity, &d->features, &d->demux, &d->frame, info,
                            err) != IMAGO_OK) {
        imago_webp_close(d);
        return NULL;
    }
    return d;
}

static imago_status imago_webp_decode_still(imago_webp_decoder *d, uint8_t *out, size_t stride,
                                            uint32_t out_w, uint32_t out_h, imago_decode_control *control,
                                            imago_error *err) {
    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return imago_webp_fail(err, VP8_STATUS_INVALID_PARAM);
    imago_webp_configure(&config, out, stride, out_w, out_h, d->features.width, d->features.height);
    WebPIDecoder *idec = WebPIDecode(NULL, 0, &config);
    if (idec == NULL) return imago_webp_fail(err, VP8_STATUS_OUT_OF_MEMORY);
    /* Steps of the RIFF size (the file's size when it is shorter is not known to a stream). */
    size_t step = imago_webp_update_step(imago_webp_riff_end(d->head, d->head_size), d->head_size);
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

imago_status imago_webp_decode(imago_webp_decoder *d, uint8_t *out, size_t out_stride,
                               uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err) {
    if (out_w == 0 || out_h == 0 || out_w > (uint32_t)d->features.width ||
        out_h > (uint32_t)d->features.height || out_stride < (size_t)out_w * 4) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "bad output geometry %ux%u", out_w, out_h);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    if (d->features.has_animation) return imago_webp_decode_first_frame(&d->features, &d->frame, out, out_stride, out_w, out_h, control, err);
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
