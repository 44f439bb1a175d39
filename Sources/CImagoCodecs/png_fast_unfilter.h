#ifndef IMAGO_PNG_FAST_UNFILTER_H
#define IMAGO_PNG_FAST_UNFILTER_H
/* Undoing PNG's five row filters (None, Sub, Up, Average, Paeth) for the fast path, from a
 * filtered row of 3 or 4 bytes per pixel straight into an RGBA output row (RGB gets alpha 0xff).
 * `above` is the previous output row (RGBA), all zeros for the first row. `src` may be read up
 * to 3 bytes past its last pixel (the caller pads), `dst` is written exactly width * 4 bytes. */
#include <stdint.h>

typedef void (*imago_png_unfilter_fn)(uint8_t *dst, const uint8_t *above, const uint8_t *src, uint32_t width);

typedef struct imago_png_unfilters {
    imago_png_unfilter_fn filter[5];   /* indexed by the row's filter type byte */
} imago_png_unfilters;

/* Plain C for channels 3 or 4; with simd, SSE2 Sub/Up/Average and SSE4.1 Paeth where
 * __builtin_cpu_supports says the CPU has them (x86-64 only; the plain ones elsewhere). */
void imago_png_unfilters_select(imago_png_unfilters *set, int channels, int simd);

/* The plain C ones, which the SIMD file also uses for what it does not specialise. */
void imago_png_unfilters_scalar(imago_png_unfilters *set, int channels);

/* The SIMD ones over set's entries; 0 when this CPU or build has none. */
int imago_png_unfilters_simd(imago_png_unfilters *set, int channels);

#endif
