#include "png_shared.h"
#include "imago_resizer.h"

#include <string.h>

void imago_png_describe(png_structp png, png_infop pi, imago_image_info *info) {
    int color_type = png_get_color_type(png, pi);
    int has_trns = png_get_valid(png, pi, PNG_INFO_tRNS) != 0;
    memset(info, 0, sizeof *info);
    info->width = png_get_image_width(png, pi);
    info->height = png_get_image_height(png, pi);
    info->bit_depth = png_get_bit_depth(png, pi);
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: info->color_model = IMAGO_COLOR_GRAY; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: info->color_model = IMAGO_COLOR_GRAY_ALPHA; break;
    case PNG_COLOR_TYPE_PALETTE: info->color_model = IMAGO_COLOR_PALETTE; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: info->color_model = IMAGO_COLOR_RGBA; break;
    default: info->color_model = IMAGO_COLOR_RGB; break;
    }
    info->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || has_trns;
    info->orientation = 1;
    info->progressive = png_get_interlace_type(png, pi) != PNG_INTERLACE_NONE;
    info->frame_count = 1;
}

int imago_png_set_transforms(png_structp png, png_infop info) {
    png_set_expand(png);
    png_set_scale_16(png);
    png_set_gray_to_rgb(png);
    png_set_filler(png, 0xff, PNG_FILLER_AFTER);
    int passes = png_set_interlace_handling(png);
    png_read_update_info(png, info);
    return passes;
}

/* Adam7: where each pass starts and how far it steps, across and down. */
static const uint8_t imago_adam7_x0[7] = {0, 4, 0, 2, 0, 1, 0}, imago_adam7_dx[7] = {8, 8, 4, 4, 2, 2, 1};
static const uint8_t imago_adam7_y0[7] = {0, 0, 4, 0, 2, 0, 1}, imago_adam7_dy[7] = {8, 8, 8, 4, 4, 2, 2};

void imago_adam7_scatter(uint8_t *dst, const uint8_t *row, uint32_t width, uint32_t y, int pass) {
    if (y % imago_adam7_dy[pass] != imago_adam7_y0[pass]) return;
    if (pass == 6) {
        memcpy(dst, row, (size_t)width * 4);
        return;
    }
    for (uint32_t x = imago_adam7_x0[pass]; x < width; x += imago_adam7_dx[pass]) {
        memcpy(dst + (size_t)x * 4, row + (size_t)x * 4, 4);
    }
}

int imago_png_copy_reduced(const uint8_t *src, size_t src_stride, uint32_t w, uint32_t h, int has_alpha,
                           uint8_t *dst, size_t dst_stride, uint32_t dst_w, uint32_t dst_h) {
    if (dst_w == w && dst_h == h) {
        for (uint32_t y = 0; y < h; y++) memcpy(dst + (size_t)y * dst_stride, src + (size_t)y * src_stride, (size_t)w * 4);
        return 1;
    }
    imago_resizer *r = imago_resizer_create(w, h, dst_w, dst_h, dst, dst_stride, has_alpha);
    if (r == NULL) return 0;
    for (uint32_t y = 0; y < h; y++) imago_resizer_push_row(r, src + (size_t)y * src_stride);
    imago_resizer_destroy(r);
    return 1;
}
