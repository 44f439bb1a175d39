/* SIMD unfiltering for the PNG fast path. Sub, Average and Paeth depend on the pixel to the left,
 * so they go one pixel (4 lanes) at a time, as libpng's own SSE2 code does; the speed comes from
 * doing the whole pixel's arithmetic at once. Up has no such dependency and goes 16 bytes at a
 * time for RGBA. Each function carries its own target attribute: the build keeps its baseline
 * flags, and imago_png_unfilters_simd picks only what __builtin_cpu_supports reports.
 * For RGB the fourth lane of each 4-byte load is the next pixel's first byte (or the caller's
 * padding); lanes never mix, so it only affects the alpha lane, which the store sets to 0xff. */
#include "png_fast_unfilter.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

static inline __m128i imago_load_px(const uint8_t *p) {
    int32_t v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}

static inline void imago_store_px(uint8_t *p, __m128i v, uint32_t alpha) {
    uint32_t r = (uint32_t)_mm_cvtsi128_si32(v) | alpha;
    memcpy(p, &r, 4);
}

#define IMAGO_SIMD_SUB_UP_AVG(CH)                                                                              \
    __attribute__((target("sse2"))) static void sub_sse2_##CH(uint8_t *dst, const uint8_t *above,            \
                                                               const uint8_t *src, uint32_t w) {              \
        (void)above;                                                                                           \
        __m128i a = _mm_setzero_si128();                                                                       \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            a = _mm_add_epi8(a, imago_load_px(src + (size_t)x * (CH)));                                        \
            imago_store_px(dst + (size_t)x * 4, a, (CH) == 3 ? 0xff000000u : 0);                               \
        }                                                                                                      \
    }                                                                                                          \
    __attribute__((target("sse2"))) static void up_sse2_##CH(uint8_t *dst, const uint8_t *above,             \
                                                              const uint8_t *src, uint32_t w) {               \
        uint32_t x = 0;                                                                                        \
        if ((CH) == 4) {                                                                                       \
            for (; x + 4 <= w; x += 4) {                                                                       \
                __m128i s = _mm_loadu_si128((const __m128i *)(src + (size_t)x * 4));                           \
                __m128i b = _mm_loadu_si128((const __m128i *)(above + (size_t)x * 4));                         \
                _mm_storeu_si128((__m128i *)(dst + (size_t)x * 4), _mm_add_epi8(s, b));                        \
            }                                                                                                  \
        }                                                                                                      \
        for (; x < w; x++) {                                                                                   \
            __m128i v = _mm_add_epi8(imago_load_px(src + (size_t)x * (CH)), imago_load_px(above + (size_t)x * 4)); \
            imago_store_px(dst + (size_t)x * 4, v, (CH) == 3 ? 0xff000000u : 0);                               \
        }                                                                                                      \
    }                                                                                                          \
    __attribute__((target("sse2"))) static void avg_sse2_##CH(uint8_t *dst, const uint8_t *above,            \
                                                               const uint8_t *src, uint32_t w) {              \
        const __m128i one = _mm_set1_epi8(1);                                                                  \
        __m128i a = _mm_setzero_si128();                                                                       \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            __m128i b = imago_load_px(above + (size_t)x * 4);                                                  \
            /* pavgb rounds up; (a + b) >> 1 rounds down: take the odd bit back off. */                        \
            __m128i mean = _mm_sub_epi8(_mm_avg_epu8(a, b), _mm_and_si128(_mm_xor_si128(a, b), one));          \
            a = _mm_add_epi8(mean, imago_load_px(src + (size_t)x * (CH)));                                     \
            imago_store_px(dst + (size_t)x * 4, a, (CH) == 3 ? 0xff000000u : 0);                               \
        }                                                                                                      \
    }

/* Paeth in 16-bit lanes: p = b - c, q = a - c, so pa = |p|, pb = |q|, pc = |p + q|, and the
 * predictor is a when pa is smallest, else b when pb is, else c (the specification's order). */
#define IMAGO_SIMD_PAETH(CH)                                                                                   \
    __attribute__((target("sse4.1"))) static void paeth_sse41_##CH(uint8_t *dst, const uint8_t *above,       \
                                                                    const uint8_t *src, uint32_t w) {         \
        const __m128i zero = _mm_setzero_si128(), low = _mm_set1_epi16(0xff);                                  \
        __m128i a = zero, c = zero;                                                                            \
        for (uint32_t x = 0; x < w; x++) {                                                                     \
            __m128i b = _mm_unpacklo_epi8(imago_load_px(above + (size_t)x * 4), zero);                         \
            __m128i filtered = _mm_unpacklo_epi8(imago_load_px(src + (size_t)x * (CH)), zero);                 \
            __m128i p = _mm_sub_epi16(b, c), q = _mm_sub_epi16(a, c);                                          \
            __m128i pa = _mm_abs_epi16(p), pb = _mm_abs_epi16(q), pc = _mm_abs_epi16(_mm_add_epi16(p, q));     \
            __m128i smallest = _mm_min_epi16(pc, _mm_min_epi16(pa, pb));                                       \
            __m128i b_or_c = _mm_blendv_epi8(c, b, _mm_cmpeq_epi16(smallest, pb));                             \
            __m128i nearest = _mm_blendv_epi8(b_or_c, a, _mm_cmpeq_epi16(smallest, pa));                       \
            a = _mm_and_si128(_mm_add_epi16(nearest, filtered), low);                                          \
            imago_store_px(dst + (size_t)x * 4, _mm_packus_epi16(a, a), (CH) == 3 ? 0xff000000u : 0);          \
            c = b;                                                                                             \
        }                                                                                                      \
    }

IMAGO_SIMD_SUB_UP_AVG(3)
IMAGO_SIMD_SUB_UP_AVG(4)
IMAGO_SIMD_PAETH(3)
IMAGO_SIMD_PAETH(4)

int imago_png_unfilters_simd(imago_png_unfilters *set, int channels) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("sse2")) return 0;
    set->filter[1] = channels == 3 ? sub_sse2_3 : sub_sse2_4;
    set->filter[2] = channels == 3 ? up_sse2_3 : up_sse2_4;
    set->filter[3] = channels == 3 ? avg_sse2_3 : avg_sse2_4;
    if (__builtin_cpu_supports("sse4.1")) set->filter[4] = channels == 3 ? paeth_sse41_3 : paeth_sse41_4;
    return 1;
}

#else

int imago_png_unfilters_simd(imago_png_unfilters *set, int channels) {
    (void)set;
    (void)channels;
    return 0;
}

#endif
