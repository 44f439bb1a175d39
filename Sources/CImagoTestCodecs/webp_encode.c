/* WebP encoders over libwebp (still images) and libwebpmux's WebPAnimEncoder (animations), for
 * the corpus generator. Output is copied into a malloc()ed buffer so that imago_buffer_free
 * releases every encoder's output the same way. */
#include "imago_encode.h"
#include "imago_buffer_internal.h"

#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>
#include <webp/mux.h>

static int webp_copy_out(const uint8_t *bytes, size_t size, imago_buffer *out, imago_error *err) {
    imago_growable copy = { 0 };
    if (!imago_growable_append(&copy, bytes, size)) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "webp encode: no memory for the output");
        return 0;
    }
    imago_growable_finish(&copy, out);
    return 1;
}

static int webp_check_size(uint32_t width, uint32_t height, const uint8_t *pixels, size_t stride, imago_error *err) {
    if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: bad size %ux%u", width, height);
        return 0;
    }
    if (pixels == NULL || stride < (size_t)width * 4 || stride > INT32_MAX) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: pixels missing or bad stride %zu", stride);
        return 0;
    }
    return 1;
}

/* lossless => exact = 1 so RGB under fully transparent pixels survives (the corpus compares
 * lossless output byte for byte). */
static int webp_make_config(WebPConfig *config, int32_t lossless, float quality, imago_error *err) {
    if (!WebPConfigInit(config)) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: libwebp version mismatch");
        return 0;
    }
    config->lossless = lossless ? 1 : 0;
    config->quality = quality;
    config->exact = lossless ? 1 : 0;
    if (!WebPValidateConfig(config)) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: invalid configuration (quality %g)", (double)quality);
        return 0;
    }
    return 1;
}

static int webp_import(WebPPicture *picture, uint32_t width, uint32_t height, const uint8_t *rgba,
                       size_t stride, int32_t lossless, int32_t keep_alpha, imago_error *err) {
    if (!WebPPictureInit(picture)) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: libwebp version mismatch");
        return 0;
    }
    picture->width = (int)width;
    picture->height = (int)height;
    picture->use_argb = lossless ? 1 : 0;
    int ok = keep_alpha ? WebPPictureImportRGBA(picture, rgba, (int)stride)
                        : WebPPictureImportRGBX(picture, rgba, (int)stride);
    if (!ok) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "webp encode: cannot import pixels");
        WebPPictureFree(picture);
        return 0;
    }
    return 1;
}

static const char *webp_error_name(WebPEncodingError code) {
    switch (code) {
    case VP8_ENC_ERROR_OUT_OF_MEMORY: return "out of memory";
    case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: return "bitstream out of memory";
    case VP8_ENC_ERROR_NULL_PARAMETER: return "null parameter";
    case VP8_ENC_ERROR_INVALID_CONFIGURATION: return "invalid configuration";
    case VP8_ENC_ERROR_BAD_DIMENSION: return "bad dimension";
    case VP8_ENC_ERROR_PARTITION0_OVERFLOW: return "partition 0 overflow";
    case VP8_ENC_ERROR_PARTITION_OVERFLOW: return "partition overflow";
    case VP8_ENC_ERROR_BAD_WRITE: return "bad write";
    case VP8_ENC_ERROR_FILE_TOO_BIG: return "file too big";
    case VP8_ENC_ERROR_USER_ABORT: return "user abort";
    default: return "unknown error";
    }
}

imago_status imago_webp_encode(const imago_webp_encode_params *params, imago_buffer *out, imago_error *err) {
    if (params == NULL || out == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: NULL params or output");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    out->data = NULL;
    out->size = 0;
    imago_error local_err = { 0 };
    if (err == NULL) err = &local_err;
    WebPConfig config;
    if (!webp_check_size(params->width, params->height, params->rgba, params->stride, err)) return IMAGO_ERR_INVALID_ARGUMENT;
    if (!webp_make_config(&config, params->lossless, params->quality, err)) return IMAGO_ERR_INVALID_ARGUMENT;

    WebPPicture picture;
    if (!webp_import(&picture, params->width, params->height, params->rgba, params->stride,
                     params->lossless, params->keep_alpha, err)) {
        return (imago_status)err->status;
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int ok = WebPEncode(&config, &picture);
    imago_status status = IMAGO_OK;
    if (!ok) {
        status = picture.error_code == VP8_ENC_ERROR_OUT_OF_MEMORY ? IMAGO_ERR_NO_MEMORY : IMAGO_ERR_INVALID_ARGUMENT;
        imago_error_set(err, status, "libwebp: %s", webp_error_name(picture.error_code));
    } else if (!webp_copy_out(writer.mem, writer.size, out, err)) {
        status = IMAGO_ERR_NO_MEMORY;
    }
    WebPPictureFree(&picture);
    WebPMemoryWriterClear(&writer);
    return status;
}

imago_status imago_webp_encode_animated(uint32_t width, uint32_t height, const uint8_t *frames,
                                        size_t stride, int32_t frame_count, int32_t frame_duration_ms,
                                        int32_t lossless, float quality, imago_buffer *out, imago_error *err) {
    if (out == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: NULL output");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    out->data = NULL;
    out->size = 0;
    imago_error local_err = { 0 };
    if (err == NULL) err = &local_err;
    if (!webp_check_size(width, height, frames, stride, err)) return IMAGO_ERR_INVALID_ARGUMENT;
    if (frame_count < 1 || frame_duration_ms < 1) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: %d frames of %d ms", frame_count, frame_duration_ms);
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    WebPConfig config;
    if (!webp_make_config(&config, lossless, quality, err)) return IMAGO_ERR_INVALID_ARGUMENT;
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options)) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "webp encode: libwebpmux version mismatch");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    options.anim_params.loop_count = 0; /* loop forever, like most animated images */
    WebPAnimEncoder *encoder = WebPAnimEncoderNew((int)width, (int)height, &options);
    if (encoder == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "webp encode: cannot create the animation encoder");
        return IMAGO_ERR_NO_MEMORY;
    }
    imago_status status = IMAGO_OK;
    size_t frame_bytes = (size_t)height * stride;
    for (int32_t i = 0; i < frame_count && status == IMAGO_OK; i++) {
        WebPPicture picture;
        if (!webp_import(&picture, width, height, frames + (size_t)i * frame_bytes, stride, lossless, 1, err)) {
            status = IMAGO_ERR_NO_MEMORY;
            break;
        }
        if (!WebPAnimEncoderAdd(encoder, &picture, i * frame_duration_ms, &config)) {
            status = IMAGO_ERR_INVALID_ARGUMENT;
            imago_error_set(err, status, "libwebpmux: frame %d: %s", i, WebPAnimEncoderGetError(encoder));
        }
        WebPPictureFree(&picture);
    }
    WebPData assembled;
    WebPDataInit(&assembled);
    if (status == IMAGO_OK) {
        if (!WebPAnimEncoderAdd(encoder, NULL, frame_count * frame_duration_ms, NULL)
            || !WebPAnimEncoderAssemble(encoder, &assembled)) {
            status = IMAGO_ERR_INVALID_ARGUMENT;
            imago_error_set(err, status, "libwebpmux: %s", WebPAnimEncoderGetError(encoder));
        } else if (!webp_copy_out(assembled.bytes, assembled.size, out, err)) {
            status = IMAGO_ERR_NO_MEMORY;
        }
    }
    WebPDataClear(&assembled);
    WebPAnimEncoderDelete(encoder);
    return status;
}
