#ifndef IMAGO_WEBP_SHARED_H
#define IMAGO_WEBP_SHARED_H
/* What the WebP pull decoder (webp_decode.c) and push decoder (webp_stream.c) share. */
#include "imago_decode.h"

#include <webp/decode.h>
#include <webp/demux.h>

/* Maps a libwebp status to imago's and fills err; returns the imago status. */
imago_status imago_webp_fail(imago_error *err, VP8StatusCode code);

/* What open reports, from the encoded bytes (all of them for an animation): the container's
 * features, and for an animation a demuxer over data (which must outlive it) with its first
 * frame (released by the caller: WebPDemuxReleaseIterator, WebPDemuxDelete); *demux stays NULL
 * otherwise and on failure. held_bytes: input bytes the decoder itself holds (working_bytes). */
imago_status imago_webp_describe(const uint8_t *data, size_t size, uint64_t held_bytes,
                                 WebPBitstreamFeatures *features, WebPDemuxer **demux, WebPIterator *frame,
                                 imago_image_info *info, imago_error *err);

/* How much more of the bitstream each WebPIUpdate call of both decoders sees: 1/32 of the
 * image's size (its RIFF end; `whole` when it has none), at least 64 KiB. Between calls
 * cancellation is polled, and every resumption of a lossless decode redoes rows from its last
 * checkpoint. One rule for both, so that libwebp sees the same calls with the same bytes
 * whatever pieces a stream arrived in (on a damaged bitstream its pixels depend on the cuts). */
size_t imago_webp_update_step(size_t riff_end, size_t whole);

/* RGBA straight alpha into out (external memory), libwebp's scaler when the sizes differ. */
void imago_webp_configure(WebPDecoderConfig *config, uint8_t *out, size_t stride,
                          uint32_t out_w, uint32_t out_h, int src_w, int src_h);

/* First frame of an animation, composited on a transparent canvas when it does not cover it. */
imago_status imago_webp_decode_first_frame(const WebPBitstreamFeatures *features, const WebPIterator *first,
                                           uint8_t *out, size_t stride, uint32_t out_w, uint32_t out_h,
                                           imago_decode_control *control, imago_error *err);

#endif
