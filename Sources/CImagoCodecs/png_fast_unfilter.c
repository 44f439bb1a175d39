/* Plain C unfiltering for the PNG fast path, and the choice between it and the SIMD functions.
 * Each function is written once for a channel count CH (3 or 4) so the compiler sees constant
 * strides; reconstruction follows the PNG specification's section 9 byte for byte. */
#include "png_fast_unfilter.h"

#include <stdlib.h>
#include <string.h>

static inline uint8_t imago_paeth(int a, int b, int c) {
    int p = b - c, q = a - c;
    int pa = abs(p), pb = abs(q), pc = abs(p + q);
    return (uint8_t)((pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c));
}

/* RGB output carries opaque alpha, as libpng's filler (png_set_filler 0xff, after) gives. */
#define IMAGO_ALPHA(CH, dst, x) do { if ((CH) == 3) (dst)[(size_t)(x) * 4 + 3] = 0xff; } while (0)

#define IMAGO_UNFILTERS(CH)                                                                                   \
    static void none_##CH(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t w) {               \
        (void)above;                                                                                           \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            for (int c = 0; c < (CH); c++) dst[(size_t)x * 4 + c] = src[(size_t)x * (CH) + c];                 \
            IMAGO_ALPHA(CH, dst, x);                                                                           \
        }                                                                                                      \
    }                                                                                                          \
    static void sub_##CH(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t w) {                \
        (void)above;                                                                                           \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            for (int c = 0; c < (CH); c++) {                                                                   \
                int a = x ? dst[(size_t)(x - 1) * 4 + c] : 0;                                                  \
                dst[(size_t)x * 4 + c] = (uint8_t)(src[(size_t)x * (CH) + c] + a);                             \
            }                                                                                                  \
            IMAGO_ALPHA(CH, dst, x);                                                                           \
        }                                                                                                      \
    }                                                                                                          \
    static void up_##CH(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t w) {                 \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            for (int c = 0; c < (CH); c++)                                                                     \
                dst[(size_t)x * 4 + c] = (uint8_t)(src[(size_t)x * (CH) + c] + above[(size_t)x * 4 + c]);     \
            IMAGO_ALPHA(CH, dst, x);                                                                           \
        }                                                                                                      \
    }                                                                                                          \
    static void avg_##CH(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t w) {                \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            for (int c = 0; c < (CH); c++) {                                                                   \
                int a = x ? dst[(size_t)(x - 1) * 4 + c] : 0, b = above[(size_t)x * 4 + c];                    \
                dst[(size_t)x * 4 + c] = (uint8_t)(src[(size_t)x * (CH) + c] + ((a + b) >> 1));                \
            }                                                                                                  \
            IMAGO_ALPHA(CH, dst, x);                                                                           \
        }                                                                                                      \
    }                                                                                                          \
    static void paeth_##CH(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t w) {              \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            for (int c = 0; c < (CH); c++) {                                                                   \
                int a = x ? dst[(size_t)(x - 1) * 4 + c] : 0, b = above[(size_t)x * 4 + c];                    \
                int cc = x ? above[(size_t)(x - 1) * 4 + c] : 0;                                               \
                dst[(size_t)x * 4 + c] = (uint8_t)(src[(size_t)x * (CH) + c] + imago_paeth(a, b, cc));         \
            }                                                                                                  \
            IMAGO_ALPHA(CH, dst, x);                                                                           \
        }                                                                                                      \
    }

IMAGO_UNFILTERS(3)
IMAGO_UNFILTERS(4)

/* Unfiltered RGBA rows need no per-byte work at all. */
static void none_copy_4(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t w) {
    (void)above;
    memcpy(dst, src, (size_t)w * 4);
}

void imago_png_unfilters_scalar(imago_png_unfilters *set, int channels) {
    if (channels == 3) {
        *set = (imago_png_unfilters){{none_3, sub_3, up_3, avg_3, paeth_3}};
    } else {
        (void)none_4;
        *set = (imago_png_unfilters){{none_copy_4, sub_4, up_4, avg_4, paeth_4}};
    }
}

void imago_png_unfilters_select(imago_png_unfilters *set, int channels, int simd) {
    imago_png_unfilters_scalar(set, channels);
    if (simd) (void)imago_png_unfilters_simd(set, channels);
}
