#ifndef IMAGO_ENCODE_H
#define IMAGO_ENCODE_H
/* Encoders used by the corpus generator. Output is returned in a buffer the encoder
 * malloc()s; release it with imago_buffer_free. */
#include "imago_common.h"

typedef struct imago_buffer {
    uint8_t *data;
    size_t size;
} imago_buffer;

void imago_buffer_free(imago_buffer *buffer);

/* PNG color types as in the PNG spec. */
enum {
    IMAGO_PNG_GRAY = 0, IMAGO_PNG_RGB = 2, IMAGO_PNG_PALETTE = 3,
    IMAGO_PNG_GRAY_ALPHA = 4, IMAGO_PNG_RGBA = 6
};

typedef struct imago_png_encode_params {
    uint32_t width, height;
    int32_t color_type;          /* IMAGO_PNG_* */
    int32_t bit_depth;           /* 1, 2, 4, 8, 16 as the color type allows */
    int32_t interlaced;          /* 1 = Adam7 */
    /* Samples: packed big-endian rows exactly as the PNG stores them after unfiltering
     * (bit-packed for depth < 8, 2 bytes per sample for 16). rows * stride bytes. */
    const uint8_t *samples;
    size_t stride;
    const uint8_t *palette_rgb;  /* palette_count * 3 bytes, palette type only */
    int32_t palette_count;
    const uint8_t *trns_alpha;   /* palette: trns_count alpha bytes */
    int32_t trns_count;
    int32_t has_trns_color;      /* gray/RGB: a transparent key colour */
    uint16_t trns_gray, trns_red, trns_green, trns_blue;
    int32_t compression_level;   /* zlib 0-9 */
} imago_png_encode_params;

imago_status imago_png_encode(const imago_png_encode_params *params, imago_buffer *out, imago_error *err);

enum { IMAGO_JPEG_IN_RGB = 0, IMAGO_JPEG_IN_GRAY = 1, IMAGO_JPEG_IN_CMYK = 2 };
enum { IMAGO_JPEG_STORE_NATIVE = 0, IMAGO_JPEG_STORE_YCCK = 1 };

typedef struct imago_jpeg_encode_params {
    uint32_t width, height;
    int32_t input_kind;          /* IMAGO_JPEG_IN_*: 3, 1 or 4 bytes per pixel */
    const uint8_t *pixels;
    size_t stride;
    int32_t quality;             /* 1-100 */
    int32_t h_samp, v_samp;      /* luma sampling factors: 1x1 = 4:4:4, 2x1 = 4:2:2, 2x2 = 4:2:0 */
    int32_t progressive;
    int32_t arithmetic;
    int32_t restart_interval;    /* MCUs between restart markers, 0 = none */
    int32_t cmyk_store;          /* IMAGO_JPEG_STORE_* for CMYK input; writes an Adobe marker */
    int32_t exif_orientation;    /* 0 = no EXIF, 1..8 writes an APP1 Exif with that tag */
} imago_jpeg_encode_params;

imago_status imago_jpeg_encode(const imago_jpeg_encode_params *params, imago_buffer *out, imago_error *err);

typedef struct imago_webp_encode_params {
    uint32_t width, height;
    const uint8_t *rgba;         /* straight alpha */
    size_t stride;
    int32_t lossless;
    float quality;               /* 0-100 */
    int32_t keep_alpha;          /* 0: encode as opaque (alpha ignored) */
} imago_webp_encode_params;

imago_status imago_webp_encode(const imago_webp_encode_params *params, imago_buffer *out, imago_error *err);

/* Animated WebP from frame_count full-canvas RGBA frames (each height*stride bytes, back to back). */
imago_status imago_webp_encode_animated(uint32_t width, uint32_t height, const uint8_t *frames,
                                        size_t stride, int32_t frame_count, int32_t frame_duration_ms,
                                        int32_t lossless, float quality, imago_buffer *out, imago_error *err);

#endif
