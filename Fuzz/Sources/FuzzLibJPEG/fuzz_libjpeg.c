/* Plain libjpeg-turbo behind a suspending source (fuzz_libjpeg.h). */
#include "fuzz_libjpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>
#include <jerror.h>

typedef struct witness {
    struct jpeg_error_mgr err;
    jmp_buf jump;
    int damage;
    JSAMPLE *row;   /* here, not a local: a local changed after setjmp is lost by longjmp */
} witness;

typedef struct witness_source {
    struct jpeg_source_mgr pub;
    const uint8_t *data;
    size_t skip;    /* bytes libjpeg asked to skip beyond what was revealed */
} witness_source;

static void witness_error_exit(j_common_ptr cinfo) {
    longjmp(((witness *)cinfo->err)->jump, 1);
}

static void witness_emit(j_common_ptr cinfo, int level) {
    if (level >= 0) return;
    switch (cinfo->err->msg_code) {
    case JWRN_HIT_MARKER: case JWRN_HUFF_BAD_CODE: case JWRN_MUST_RESYNC: case JWRN_NOT_SEQUENTIAL:
    case JWRN_ARITH_BAD_CODE: case JWRN_BOGUS_PROGRESSION: case JWRN_EXTRANEOUS_DATA: case JWRN_JPEG_EOF:
        ((witness *)cinfo->err)->damage++;
        break;
    default:
        break;
    }
}

static boolean witness_fill(j_decompress_ptr cinfo) { (void)cinfo; return FALSE; }   /* suspend */
static void witness_init(j_decompress_ptr cinfo) { (void)cinfo; }
static void witness_term(j_decompress_ptr cinfo) { (void)cinfo; }
static void witness_skip(j_decompress_ptr cinfo, long count) {
    witness_source *src = (witness_source *)cinfo->src;
    if (count <= 0) return;
    size_t n = (size_t)count < src->pub.bytes_in_buffer ? (size_t)count : src->pub.bytes_in_buffer;
    src->pub.next_input_byte += n;
    src->pub.bytes_in_buffer -= n;
    src->skip += (size_t)count - n;
}

/* Reveals the data up to `end`: what was consumed stays consumed, a pending skip is applied. */
static void witness_reveal(witness_source *src, size_t end) {
    size_t used = (size_t)(src->pub.next_input_byte - src->data);
    size_t skip = end > used ? (src->skip < end - used ? src->skip : end - used) : 0;
    src->skip -= skip;
    used += skip;
    src->pub.next_input_byte = src->data + used;
    src->pub.bytes_in_buffer = end > used ? end - used : 0;
}

fuzz_libjpeg_result fuzz_libjpeg_decode(const uint8_t *data, size_t size, const size_t *cuts, size_t count) {
    fuzz_libjpeg_result result = {0, 1469598103934665603ULL, 0, 0};
    struct jpeg_decompress_struct cinfo;
    witness w = {0};
    witness_source src = {{0}, data, 0};
    size_t next = 1, stride = 0;
    cinfo.err = jpeg_std_error(&w.err);
    w.err.error_exit = witness_error_exit;
    w.err.emit_message = witness_emit;
    if (setjmp(w.jump)) goto done;
    jpeg_create_decompress(&cinfo);
    src.pub.init_source = witness_init;
    src.pub.fill_input_buffer = witness_fill;
    src.pub.skip_input_data = witness_skip;
    src.pub.resync_to_restart = jpeg_resync_to_restart;
    src.pub.term_source = witness_term;
    src.pub.next_input_byte = data;
    cinfo.src = &src.pub;
    witness_reveal(&src, count > 0 ? cuts[0] : size);
    /* A call that suspends reveals the next cut and runs again; one that suspends with
     * everything revealed never finishes (truncated input). */
#define WITNESS_RETRY(call, suspended)                                   \
    while ((call) == (suspended)) {                                      \
        if (next > count) goto done;                                     \
        witness_reveal(&src, next < count ? cuts[next] : size);         \
        next++;                                                          \
    }
    WITNESS_RETRY(jpeg_read_header(&cinfo, TRUE), JPEG_SUSPENDED)
    result.arithmetic = cinfo.arith_code ? 1 : 0;
    if (cinfo.num_components == 4) cinfo.out_color_space = JCS_CMYK;
    WITNESS_RETRY(jpeg_start_decompress(&cinfo), FALSE)
    stride = (size_t)cinfo.output_width * (size_t)cinfo.output_components;
    w.row = malloc(stride ? stride : 1);
    if (w.row == NULL) goto done;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW rows[1] = {w.row};
        WITNESS_RETRY(jpeg_read_scanlines(&cinfo, rows, 1), 0)
        for (size_t i = 0; i < stride; i++) result.hash = (result.hash ^ w.row[i]) * 1099511628211ULL;
    }
    WITNESS_RETRY(jpeg_finish_decompress(&cinfo), FALSE)
#undef WITNESS_RETRY
    result.decoded = 1;
done:
    free(w.row);
    jpeg_destroy_decompress(&cinfo);
    result.damage_warnings = w.damage;
    return result;
}
