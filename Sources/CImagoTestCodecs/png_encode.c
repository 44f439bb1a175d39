/* PNG encoder over libpng's write API, for the corpus generator. Samples arrive exactly as the
 * PNG stores them (packed, big-endian), so no libpng transforms are set: what the caller gives
 * is what lands in IDAT, which is what makes the corpus references exact. */
#include "imago_encode.h"
#include "imago_buffer_internal.h"

#include <png.h>
#include <stdlib.h>

typedef struct png_write_context {
    imago_error *err;
    imago_growable output;
    int out_of_memory;
} png_write_context;

static void png_encode_error(png_structp png, png_const_charp message) {
    png_write_context *context = png_get_error_ptr(png);
    imago_error_set(context->err,
                    context->out_of_memory ? IMAGO_ERR_NO_MEMORY : IMAGO_ERR_INVALID_ARGUMENT,
                    "libpng: %s", message);
    png_longjmp(png, 1);
}

static void png_encode_warning(png_structp png, png_const_charp message) {
    (void)png; (void)message; /* warnings never fail an encode and must not reach stderr */
}

static void png_encode_write(png_structp png, png_bytep data, png_size_t length) {
    png_write_context *context = png_get_io_ptr(png);
    if (!imago_growable_append(&context->output, data, length)) {
        context->out_of_memory = 1;
        png_error(png, "out of memory growing the output buffer");
    }
}

static void png_encode_flush(png_structp png) { (void)png; }

/* Checks the colour type / bit depth pair against the PNG spec; returns channels or 0. */
static int png_channels_for(int32_t color_type, int32_t bit_depth) {
    switch (color_type) {
    case IMAGO_PNG_GRAY:
        return (bit_depth == 1 || bit_depth == 2 || bit_depth == 4 || bit_depth == 8 || bit_depth == 16) ? 1 : 0;
    case IMAGO_PNG_PALETTE:
        return (bit_depth == 1 || bit_depth == 2 || bit_depth == 4 || bit_depth == 8) ? 1 : 0;
    case IMAGO_PNG_RGB:
        return (bit_depth == 8 || bit_depth == 16) ? 3 : 0;
    case IMAGO_PNG_GRAY_ALPHA:
        return (bit_depth == 8 || bit_depth == 16) ? 2 : 0;
    case IMAGO_PNG_RGBA:
        return (bit_depth == 8 || bit_depth == 16) ? 4 : 0;
    default:
        return 0;
    }
}

static int png_validate(const imago_png_encode_params *p, imago_error *err) {
    if (p->width == 0 || p->height == 0 || p->width > PNG_USER_WIDTH_MAX || p->height > PNG_USER_HEIGHT_MAX) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: bad size %ux%u", p->width, p->height);
        return 0;
    }
    int channels = png_channels_for(p->color_type, p->bit_depth);
    if (channels == 0) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: colour type %d does not allow bit depth %d",
                        p->color_type, p->bit_depth);
        return 0;
    }
    size_t row_bits = (size_t)p->width * (size_t)channels * (size_t)p->bit_depth;
    if (p->samples == NULL || p->stride < (row_bits + 7) / 8) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: samples missing or stride %zu too small", p->stride);
        return 0;
    }
    if (p->color_type == IMAGO_PNG_PALETTE) {
        if (p->palette_rgb == NULL || p->palette_count < 1 || p->palette_count > (1 << p->bit_depth)) {
            imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: palette of %d entries at depth %d",
                            p->palette_count, p->bit_depth);
            return 0;
        }
        if (p->trns_count < 0 || p->trns_count > p->palette_count || (p->trns_count > 0 && p->trns_alpha == NULL)) {
            imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: %d tRNS entries for %d palette entries",
                            p->trns_count, p->palette_count);
            return 0;
        }
    }
    if (p->has_trns_color && p->color_type != IMAGO_PNG_GRAY && p->color_type != IMAGO_PNG_RGB) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: a tRNS key colour needs gray or RGB");
        return 0;
    }
    if (p->compression_level < 0 || p->compression_level > 9) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: compression level %d", p->compression_level);
        return 0;
    }
    return 1;
}

/* Runs libpng with setjmp confined here. Everything that must survive the longjmp (the output
 * buffer, the error) lives in the caller's frame behind `context`, so no local of this function
 * is modified between setjmp and longjmp. Returns 1 on success. */
static int png_encode_run(png_write_context *context, const imago_png_encode_params *params, png_bytep *rows) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, context, png_encode_error, png_encode_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (png == NULL || info == NULL) {
        png_destroy_write_struct(&png, &info);
        imago_error_set(context->err, IMAGO_ERR_NO_MEMORY, "png encode: cannot create libpng structures");
        return 0;
    }
    if (setjmp(png_jmpbuf(png))) {
        /* The error was filled by png_encode_error before the jump. */
        png_destroy_write_struct(&png, &info);
        return 0;
    }
    png_set_write_fn(png, context, png_encode_write, png_encode_flush);
    png_set_compression_level(png, params->compression_level);
    png_set_IHDR(png, info, params->width, params->height, params->bit_depth, params->color_type,
                 params->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (params->color_type == IMAGO_PNG_PALETTE) {
        png_color palette[256];
        for (int32_t i = 0; i < params->palette_count; i++) {
            palette[i].red = params->palette_rgb[3 * i];
            palette[i].green = params->palette_rgb[3 * i + 1];
            palette[i].blue = params->palette_rgb[3 * i + 2];
        }
        png_set_PLTE(png, info, palette, params->palette_count);
        if (params->trns_count > 0) {
            png_set_tRNS(png, info, params->trns_alpha, params->trns_count, NULL);
        }
    } else if (params->has_trns_color) {
        png_color_16 key = { 0 };
        key.gray = params->trns_gray;
        key.red = params->trns_red;
        key.green = params->trns_green;
        key.blue = params->trns_blue;
        png_set_tRNS(png, info, NULL, 0, &key);
    }
    png_write_info(png, info);
    png_write_image(png, rows); /* runs the Adam7 passes itself when interlaced */
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 1;
}

imago_status imago_png_encode(const imago_png_encode_params *params, imago_buffer *out, imago_error *err) {
    if (params == NULL || out == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "png encode: NULL params or output");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    out->data = NULL;
    out->size = 0;
    imago_error local_err = { 0 };
    if (err == NULL) err = &local_err;
    if (!png_validate(params, err)) return IMAGO_ERR_INVALID_ARGUMENT;

    png_bytep *rows = malloc(sizeof(png_bytep) * params->height);
    if (rows == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "png encode: no memory for row pointers");
        return IMAGO_ERR_NO_MEMORY;
    }
    for (uint32_t y = 0; y < params->height; y++) {
        /* libpng copies each row before filtering; with no transforms it never writes to it. */
        rows[y] = (png_bytep)(params->samples + (size_t)y * params->stride);
    }
    png_write_context context = { .err = err, .output = { 0 }, .out_of_memory = 0 };
    int ok = png_encode_run(&context, params, rows);
    free(rows);
    if (!ok) {
        imago_growable_release(&context.output);
        return (imago_status)err->status;
    }
    imago_growable_finish(&context.output, out);
    return IMAGO_OK;
}
