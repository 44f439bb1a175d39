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

#endif
