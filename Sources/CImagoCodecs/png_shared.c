#include "png_shared.h"

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
