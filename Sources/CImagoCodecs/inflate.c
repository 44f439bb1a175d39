#include "imago_inflate.h"

#include <limits.h>
#include <stdlib.h>
#include <zlib.h>

struct imago_inflate {
    z_stream stream;
    /* The stream (or its last gzip member) is complete; another member may follow. */
    int complete;
    /* Bytes after the end that do not begin a gzip member: ignored from then on. */
    int ignoring;
};

imago_inflate *imago_inflate_create(void) {
    imago_inflate *inflater = calloc(1, sizeof *inflater);
    if (inflater == NULL) return NULL;
    /* 15 + 32: the largest window, and a gzip or zlib header detected automatically (a server's
     * "deflate" is the zlib format, RFC 9110 §8.4.1.2). */
    if (inflateInit2(&inflater->stream, 15 + 32) != Z_OK) {
        free(inflater);
        return NULL;
    }
    return inflater;
}

imago_inflate_status imago_inflate_step(imago_inflate *inflater, const uint8_t *input, size_t input_length,
                                        size_t *consumed, uint8_t *output, size_t output_capacity,
                                        size_t *produced) {
    *consumed = 0;
    *produced = 0;
    if (inflater->ignoring) {
        *consumed = input_length;
        return IMAGO_INFLATE_END;
    }
    if (inflater->complete) {
        if (input_length == 0) return IMAGO_INFLATE_END;
        /* A gzip body may hold several members, one after the other (RFC 1952 §2.2). */
        if (input[0] == 0x1f && (input_length < 2 || input[1] == 0x8b)) {
            if (inflateReset(&inflater->stream) != Z_OK) return IMAGO_INFLATE_CORRUPT;
            inflater->complete = 0;
        } else {
            inflater->ignoring = 1;
            *consumed = input_length;
            return IMAGO_INFLATE_END;
        }
    }
    uInt input_step = input_length > UINT_MAX ? UINT_MAX : (uInt)input_length;
    uInt output_step = output_capacity > UINT_MAX ? UINT_MAX : (uInt)output_capacity;
    inflater->stream.next_in = (Bytef *)input;
    inflater->stream.avail_in = input_step;
    inflater->stream.next_out = output;
    inflater->stream.avail_out = output_step;
    int result = inflate(&inflater->stream, Z_NO_FLUSH);
    *consumed = input_step - inflater->stream.avail_in;
    *produced = output_step - inflater->stream.avail_out;
    switch (result) {
    case Z_OK:
    case Z_BUF_ERROR: /* no progress possible without more input or room: not an error */
        return IMAGO_INFLATE_MORE;
    case Z_STREAM_END:
        inflater->complete = 1;
        return IMAGO_INFLATE_END;
    case Z_MEM_ERROR:
        return IMAGO_INFLATE_NO_MEMORY;
    default: /* Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
        return IMAGO_INFLATE_CORRUPT;
    }
}

void imago_inflate_destroy(imago_inflate *inflater) {
    if (inflater == NULL) return;
    inflateEnd(&inflater->stream);
    free(inflater);
}
