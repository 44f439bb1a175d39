/* The libraries called directly, the way their manuals show: the baseline column of the bench. */
#include "imago_reference.h"

#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <jpeglib.h>
#include <webp/decode.h>

imago_status imago_reference_png(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height) {
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_memory(&image, data, size)) return IMAGO_ERR_CORRUPT;
    image.format = PNG_FORMAT_RGBA;
    if (image.width != width || image.height != height) {
        png_image_free(&image);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    int ok = png_image_finish_read(&image, NULL, out, (png_int_32)(width * 4), NULL);
    png_image_free(&image);
    return ok ? IMAGO_OK : IMAGO_ERR_CORRUPT;
}

typedef struct imago_reference_jerr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} imago_reference_jerr;

static void imago_reference_jpeg_exit(j_common_ptr cinfo) {
    longjmp(((imago_reference_jerr *)cinfo->err)->jump, 1);
}

imago_status imago_reference_jpeg(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height) {
    struct jpeg_decompress_struct cinfo;
    imago_reference_jerr jerr;
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = imago_reference_jpeg_exit;
    if (setjmp(jerr.jump)) {
        jpeg_destroy_decompress(&cinfo);
        return IMAGO_ERR_CORRUPT;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = JCS_EXT_RGBA;
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != width || cinfo.output_height != height) {
        jpeg_destroy_decompress(&cinfo);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = out + (size_t)cinfo.output_scanline * width * 4;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    return IMAGO_OK;
}

imago_status imago_reference_webp(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height) {
    size_t stride = (size_t)width * 4;
    return WebPDecodeRGBAInto(data, size, out, stride * height, (int)stride) != NULL ? IMAGO_OK : IMAGO_ERR_CORRUPT;
}

imago_status imago_reference_decode(const uint8_t *data, size_t size, uint8_t *out, uint32_t width, uint32_t height) {
    static const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    if (size >= 8 && memcmp(data, png, 8) == 0) return imago_reference_png(data, size, out, width, height);
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return imago_reference_jpeg(data, size, out, width, height);
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0)
        return imago_reference_webp(data, size, out, width, height);
    return IMAGO_ERR_UNSUPPORTED;
}
