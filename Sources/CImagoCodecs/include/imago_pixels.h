#ifndef IMAGO_PIXELS_H
#define IMAGO_PIXELS_H
/* Pixel operations on RGBA 8-bit straight-alpha buffers, all caller-allocated. */
#include "imago_common.h"

/* Exact area-average (box filter with fractional pixel coverage) resize to a smaller or equal
 * size; colour is alpha-weighted so transparent pixels do not bleed into their neighbours. */
imago_status imago_resize_rgba(const uint8_t *src, uint32_t src_w, uint32_t src_h, size_t src_stride,
                               uint8_t *dst, uint32_t dst_w, uint32_t dst_h, size_t dst_stride,
                               imago_error *err);

/* Applies EXIF orientation 1...8; dst is h x w for orientations 5...8, w x h otherwise. */
void imago_orient_rgba(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride,
                       uint8_t *dst, size_t dst_stride, int32_t orientation);


#endif
