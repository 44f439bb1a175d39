#include "imago_pixels.h"

#include <string.h>

/* EXIF orientation says how the stored pixels must be transformed for display:
 * 1 identity, 2 mirror horizontally, 3 rotate 180, 4 mirror vertically, 5 transpose,
 * 6 rotate 90 clockwise, 7 transverse, 8 rotate 90 counter-clockwise.
 * For each destination pixel (dx, dy) we compute the stored pixel it shows. */
void imago_orient_rgba(const uint8_t *src, uint32_t w, uint32_t h, size_t src_stride,
                       uint8_t *dst, size_t dst_stride, int32_t orientation) {
    int swap = orientation >= 5 && orientation <= 8;
    uint32_t dw = swap ? h : w, dh = swap ? w : h;
    for (uint32_t dy = 0; dy < dh; dy++) {
        uint32_t *out = (uint32_t *)(void *)(dst + (size_t)dy * dst_stride);
        for (uint32_t dx = 0; dx < dw; dx++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = w - 1 - dx; sy = dy; break;
            case 3: sx = w - 1 - dx; sy = h - 1 - dy; break;
            case 4: sx = dx; sy = h - 1 - dy; break;
            case 5: sx = dy; sy = dx; break;
            case 6: sx = dy; sy = h - 1 - dx; break;
            case 7: sx = w - 1 - dy; sy = h - 1 - dx; break;
            case 8: sx = w - 1 - dy; sy = dx; break;
            default: sx = dx; sy = dy; break;
            }
            memcpy(&out[dx], src + (size_t)sy * src_stride + (size_t)sx * 4, 4);
        }
    }
}
