#ifndef IMAGO_RESIZER_H
#define IMAGO_RESIZER_H
/* Streaming area-average downscaler: source rows go in top to bottom, finished destination
 * rows come out into the caller's buffer. Memory is O(destination width), so a codec can reduce
 * rows as it decodes them without a full-size intermediate image. */
#include "imago_common.h"

typedef struct imago_resizer imago_resizer;

/* weight_alpha: 1 when the source has transparency (colour is averaged alpha-weighted). */
imago_resizer *imago_resizer_create(uint32_t src_w, uint32_t src_h, uint32_t dst_w, uint32_t dst_h,
                                    uint8_t *dst, size_t dst_stride, int weight_alpha);
/* rgba: one source row of src_w RGBA pixels; rows must arrive in order, exactly src_h of them. */
void imago_resizer_push_row(imago_resizer *resizer, const uint8_t *rgba);
void imago_resizer_destroy(imago_resizer *resizer);

/* What a decoder holds while downsampling: source rows to reduce and the resizer. */
typedef struct imago_downsampling {
    uint8_t *rows;
    imago_resizer *resizer;
} imago_downsampling;

/* Frees both and clears them; safe to call repeatedly and on a zeroed struct. */
void imago_downsampling_release(imago_downsampling *downsampling);

#endif
