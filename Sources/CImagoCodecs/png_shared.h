#ifndef IMAGO_PNG_SHARED_H
#define IMAGO_PNG_SHARED_H
/* What the PNG pull decoder (png_decode.c) and push decoder (png_stream.c) share. */
#include "imago_decode.h"

#include <png.h>

/* Fills info from the header chunks libpng has read (IHDR, tRNS, ...). */
void imago_png_describe(png_structp png, png_infop pi, imago_image_info *info);

/* Ask libpng for 8-bit RGBA whatever the source: palette and low-bit gray expand, tRNS
 * becomes alpha, 16-bit samples are scaled with rounding (not truncated), gray replicates.
 * Returns the number of passes (7 for Adam7, 1 otherwise). May longjmp. */
int imago_png_set_transforms(png_structp png, png_infop info);

/* Adam7, without previews: writes only the pixels pass (0...6) carries in image row y into dst
 * (as png_read_row's "sparkle" row does for the pull decoder). libpng hands each pass row
 * expanded to full width, pixel k of the pass replicated over [k*dx, (k+1)*dx), and repeats it
 * for the rows below it in its block; those repeats are skipped. */
void imago_adam7_scatter(uint8_t *dst, const uint8_t *row, uint32_t width, uint32_t y, int pass);

/* src (w x h RGBA) copied into dst, area-averaged when dst is smaller. 0 when out of memory. */
int imago_png_copy_reduced(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h, int has_alpha,
                           uint8_t *dst, size_t dst_stride, uint32_t dst_w, uint32_t dst_h);

#endif
