#ifndef IMAGO_STREAM_H
#define IMAGO_STREAM_H
/* Push decoders: the encoded bytes arrive in pieces, as a network delivers them, and each piece
 * is decoded as far as it allows before push returns (libpng's progressive reader, libjpeg's
 * suspending data source, libwebp's WebPIDecoder). Same rules as the pull decoders: prefixed
 * names, caller-allocated RGBA output (straight alpha, 4 bytes per pixel, rows top to bottom),
 * downsampling inside the codec where it can, then an exact area-average resize, never an
 * upsample; setjmp/longjmp confined to the call that armed them; no global state.
 *
 * Life of one decode:
 *   create → push... until HEADER_READY → info → start(out, out_w, out_h) → push... until
 *   COMPLETE → destroy. finish() says whether the input ended early (IMAGO_ERR_TRUNCATED).
 * With previews on, push may also stop at PREVIEW_READY (a progressive JPEG scan or an Adam7
 * PNG pass completed); the caller may then render_preview into a buffer of its own, or just
 * push on. A push stops early only at HEADER_READY or PREVIEW_READY: *consumed then says how
 * many bytes it took, and the caller pushes the rest afterwards. Otherwise it takes them all.
 * Bytes after the image's end (COMPLETE) are ignored, as the pull decoders ignore them.
 *
 * What each keeps: the unconsumed tail of the input it needs to resume (a marker segment, a
 * chunk header; never the whole body: libjpeg resumes from its last restart point, PNG ancillary chunks are skipped as
 * they arrive and a kept non-IDAT chunk over 1 MiB is refused as corrupt), the codec's own working memory
 * (imago_image_info.working_bytes), and while downsampling some source rows and a resizer
 * (a full-size intermediate only for an Adam7 PNG, as in the pull decoder).
 * Exceptions, where the codec cannot resume mid-way: an animated WebP (its first frame is decoded,
 * as by the pull decoder) keeps the bytes it is pushed and decodes at finish, which then completes
 * it (push never reports COMPLETE for it); a still WebP keeps its bitstream whole (libwebp's
 * incremental decoder needs it for lossless and alpha, and it is fed in the pull decoder's steps
 * so that a damaged bitstream decodes the same); an arithmetic-coded JPEG keeps its
 * input from start until an end-of-image marker arrives and decodes in that push (libjpeg's
 * arithmetic decoder cannot suspend mid-scan). */
#include "imago_common.h"
#include "imago_decode.h"

typedef enum imago_stream_state {
    IMAGO_STREAM_NEEDS_INPUT = 0,   /* took every byte; push more (or finish at end of input) */
    IMAGO_STREAM_HEADER_READY = 1,  /* the header is read: call info, then start, then push on */
    IMAGO_STREAM_PREVIEW_READY = 2, /* previews on: more detail can be shown; render_preview may run now */
    IMAGO_STREAM_COMPLETE = 3       /* out holds the whole image; later pushes take and ignore bytes */
} imago_stream_state;

typedef struct imago_png_stream imago_png_stream;
typedef struct imago_jpeg_stream imago_jpeg_stream;
typedef struct imago_webp_stream imago_webp_stream;

/* create: NULL (err filled) only when out of memory.
 * push: IMAGO_OK with *state and *consumed, or an error (err filled: CORRUPT, UNSUPPORTED,
 *   NO_MEMORY, CANCELLED when control's flag is raised, checked between row batches). After an
 *   error, only destroy may be called. Pushing zero bytes is allowed (it returns NEEDS_INPUT
 *   unless an earlier stop left work to do).
 * info: valid from HEADER_READY on (IMAGO_ERR_INVALID_ARGUMENT before).
 * start: once, after HEADER_READY, with out_w x out_h no larger than the image (as stored, before
 *   any EXIF orientation) and out_stride >= out_w * 4. previews non-zero asks for PREVIEW_READY
 *   stops (progressive JPEG: after each completed scan but the last; Adam7 PNG: after each
 *   pass but the last; never for baseline JPEG, non-interlaced PNG or WebP). out must stay valid
 *   until COMPLETE or destroy.
 * render_preview: right after a PREVIEW_READY stop, writes the image as far as it is known into
 *   dst (dst_w x dst_h, at most out_w x out_h, dst never out) and sets *detail to the scan or
 *   pass number shown (1-based; more detail is a higher number).
 * finish: the input has ended. IMAGO_OK once COMPLETE (an animated WebP decodes here);
 *   IMAGO_ERR_TRUNCATED otherwise, also before HEADER_READY (no byte at all: IMAGO_ERR_EMPTY).
 * destroy: frees everything, at any point; NULL is a no-op. */
imago_png_stream *imago_png_stream_create(imago_error *err);
imago_status imago_png_stream_push(imago_png_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                   imago_stream_state *state, imago_decode_control *control, imago_error *err);
imago_status imago_png_stream_info(const imago_png_stream *s, imago_image_info *info);
imago_status imago_png_stream_start(imago_png_stream *s, uint8_t *out, size_t out_stride, uint32_t out_w,
                                    uint32_t out_h, int32_t previews, imago_error *err);
imago_status imago_png_stream_render_preview(imago_png_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                             uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                             imago_error *err);
imago_status imago_png_stream_finish(imago_png_stream *s, imago_error *err);
void imago_png_stream_destroy(imago_png_stream *s);

imago_jpeg_stream *imago_jpeg_stream_create(imago_error *err);
imago_status imago_jpeg_stream_push(imago_jpeg_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                    imago_stream_state *state, imago_decode_control *control, imago_error *err);
imago_status imago_jpeg_stream_info(const imago_jpeg_stream *s, imago_image_info *info);
imago_status imago_jpeg_stream_start(imago_jpeg_stream *s, uint8_t *out, size_t out_stride, uint32_t out_w,
                                     uint32_t out_h, int32_t previews, imago_error *err);
imago_status imago_jpeg_stream_render_preview(imago_jpeg_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                              uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                              imago_error *err);
imago_status imago_jpeg_stream_finish(imago_jpeg_stream *s, imago_error *err);
void imago_jpeg_stream_destroy(imago_jpeg_stream *s);

imago_webp_stream *imago_webp_stream_create(imago_error *err);
imago_status imago_webp_stream_push(imago_webp_stream *s, const uint8_t *data, size_t size, size_t *consumed,
                                    imago_stream_state *state, imago_decode_control *control, imago_error *err);
imago_status imago_webp_stream_info(const imago_webp_stream *s, imago_image_info *info);
imago_status imago_webp_stream_start(imago_webp_stream *s, uint8_t *out, size_t out_stride, uint32_t out_w,
                                     uint32_t out_h, int32_t previews, imago_error *err);
imago_status imago_webp_stream_render_preview(imago_webp_stream *s, uint8_t *dst, size_t dst_stride, uint32_t dst_w,
                                              uint32_t dst_h, int32_t *detail, imago_decode_control *control,
                                              imago_error *err);
imago_status imago_webp_stream_finish(imago_webp_stream *s, imago_error *err);
void imago_webp_stream_destroy(imago_webp_stream *s);

#endif
