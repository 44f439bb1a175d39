#ifndef IMAGO_DECODE_H
#define IMAGO_DECODE_H
/* Decoders: open (header only, no pixel memory), then decode into a caller-allocated RGBA
 * buffer of out_w x out_h (straight alpha, 4 bytes per pixel, rows top to bottom), then close.
 * When out_w/out_h are smaller than the image, the decoder downsamples inside the codec where
 * the codec can (JPEG DCT scaling, WebP's scaler, PNG row reduction) and finishes with an
 * exact area-average resize; it never upsamples. */
#include "imago_common.h"

typedef enum imago_color_model {
    IMAGO_COLOR_GRAY = 0,
    IMAGO_COLOR_GRAY_ALPHA = 1,
    IMAGO_COLOR_RGB = 2,
    IMAGO_COLOR_RGBA = 3,
    IMAGO_COLOR_PALETTE = 4,
    IMAGO_COLOR_YCBCR = 5,
    IMAGO_COLOR_CMYK = 6,
    IMAGO_COLOR_YCCK = 7
} imago_color_model;

typedef struct imago_image_info {
    uint32_t width, height;   /* as stored, before any EXIF orientation */
    int32_t bit_depth;        /* bits per sample in the source */
    int32_t color_model;      /* imago_color_model */
    int32_t has_alpha;        /* alpha channel or transparency key (tRNS) present */
    int32_t orientation;      /* EXIF orientation 1...8; 1 when absent */
    int32_t progressive;      /* JPEG progressive, PNG Adam7 interlaced */
    int32_t arithmetic;       /* JPEG arithmetic-coded */
    int32_t lossless;         /* WebP VP8L */
    int32_t animated;         /* WebP animation; only the first frame is decoded */
    int32_t frame_count;      /* 1 for still images */
    /* Bytes the codec library itself allocates for a full decode beyond the output and a few
     * rows: libjpeg's whole-image coefficient arrays for a multi-scan (progressive) JPEG,
     * libwebp's full-size ARGB buffer for lossless and a canvas for an animation's first frame.
     * The decode budget adds it to the output size before admitting the decode. */
    uint64_t working_bytes;
    /* Working bytes added only when the image is decoded at full size: the PNG whole-buffer fast
     * path's inflated rows and joined IDATs (imago_png_fast_working_bytes) for a memory input,
     * which a reduced decode, going row by row, never allocates. 0 for everything else. */
    uint64_t full_size_working_bytes;
    /* Working bytes of the PNG row-by-row fast path at any size (imago_png_fast_rows_working_bytes:
     * ISA-L's state, a read buffer for a file, four rows) when the pull decoder may take it; 0 for
     * everything else, the push decoders included. Like full_size_working_bytes it belongs to one
     * decoder, not to the image, so the push and pull decoders' infos differ only here. */
    uint64_t row_path_working_bytes;
} imago_image_info;

typedef struct imago_png_decoder imago_png_decoder;
typedef struct imago_jpeg_decoder imago_jpeg_decoder;
typedef struct imago_webp_decoder imago_webp_decoder;

/* open: NULL on failure with err filled. The input (memory or fd) must outlive the decoder. */
imago_png_decoder *imago_png_open(const imago_input *input, imago_image_info *info, imago_error *err);
imago_status imago_png_decode(imago_png_decoder *decoder, uint8_t *out, size_t out_stride,
                              uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err);
void imago_png_close(imago_png_decoder *decoder);

imago_jpeg_decoder *imago_jpeg_open(const imago_input *input, imago_image_info *info, imago_error *err);
imago_status imago_jpeg_decode(imago_jpeg_decoder *decoder, uint8_t *out, size_t out_stride,
                               uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err);
void imago_jpeg_close(imago_jpeg_decoder *decoder);

imago_webp_decoder *imago_webp_open(const imago_input *input, imago_image_info *info, imago_error *err);
imago_status imago_webp_decode(imago_webp_decoder *decoder, uint8_t *out, size_t out_stride,
                               uint32_t out_w, uint32_t out_h, imago_decode_control *control, imago_error *err);
void imago_webp_close(imago_webp_decoder *decoder);

/* Library versions, for reports and `imago --version`. */
const char *imago_png_version(void);    /* "1.6.39" */
const char *imago_jpeg_version(void);   /* "libjpeg-turbo 2.1.5" */
int32_t imago_webp_version(void);       /* packed 0xMMmmpp, as WebPGetDecoderVersion */

#endif
