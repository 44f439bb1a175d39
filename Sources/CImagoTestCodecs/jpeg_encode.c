/* JPEG encoder over libjpeg's classic compress API, for the corpus generator. It writes to its
 * own growable destination (not jpeg_mem_dest, whose buffer would leak on a longjmp), and
 * confines setjmp/longjmp to jpeg_encode_run. */
#include "imago_encode.h"
#include "imago_buffer_internal.h"

#include <stdio.h> /* jpeglib.h needs FILE and size_t declared first */
#include <jpeglib.h>
#include <jerror.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#define JPEG_DEST_CHUNK 65536

typedef struct jpeg_encode_error {
    struct jpeg_error_mgr pub;   /* first member: libjpeg sees only this part */
    jmp_buf jump;
    imago_error *err;
} jpeg_encode_error;

typedef struct jpeg_encode_dest {
    struct jpeg_destination_mgr pub;   /* first member */
    imago_growable output;
    JOCTET chunk[JPEG_DEST_CHUNK];
} jpeg_encode_dest;

static void jpeg_encode_error_exit(j_common_ptr cinfo) {
    jpeg_encode_error *error = (jpeg_encode_error *)cinfo->err;
    char message[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, message);
    int status = cinfo->err->msg_code == JERR_OUT_OF_MEMORY ? IMAGO_ERR_NO_MEMORY : IMAGO_ERR_INVALID_ARGUMENT;
    imago_error_set(error->err, (imago_status)status, "libjpeg: %s", message);
    longjmp(error->jump, 1);
}

static void jpeg_encode_output_message(j_common_ptr cinfo) {
    (void)cinfo; /* the encoder's warnings must not reach stderr */
}

static void jpeg_dest_init(j_compress_ptr cinfo) {
    jpeg_encode_dest *dest = (jpeg_encode_dest *)cinfo->dest;
    dest->pub.next_output_byte = dest->chunk;
    dest->pub.free_in_buffer = JPEG_DEST_CHUNK;
}

static boolean jpeg_dest_empty(j_compress_ptr cinfo) {
    jpeg_encode_dest *dest = (jpeg_encode_dest *)cinfo->dest;
    if (!imago_growable_append(&dest->output, dest->chunk, JPEG_DEST_CHUNK)) {
        ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    }
    dest->pub.next_output_byte = dest->chunk;
    dest->pub.free_in_buffer = JPEG_DEST_CHUNK;
    return TRUE;
}

static void jpeg_dest_term(j_compress_ptr cinfo) {
    jpeg_encode_dest *dest = (jpeg_encode_dest *)cinfo->dest;
    size_t pending = JPEG_DEST_CHUNK - dest->pub.free_in_buffer;
    if (!imago_growable_append(&dest->output, dest->chunk, pending)) {
        ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 0);
    }
}

/* APP1 "Exif\0\0" + little-endian TIFF header + IFD0 with the single Orientation tag. */
static void jpeg_write_exif_orientation(j_compress_ptr cinfo, int orientation) {
    static const uint8_t prefix[] = {
        'E', 'x', 'i', 'f', 0, 0,
        'I', 'I', 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, /* TIFF header, IFD0 at offset 8 */
        0x01, 0x00,                                     /* one entry */
        0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, /* tag 0x0112, SHORT, count 1 */
    };
    uint8_t marker[sizeof prefix + 8];
    memcpy(marker, prefix, sizeof prefix);
    uint8_t *tail = marker + sizeof prefix;
    tail[0] = (uint8_t)orientation; tail[1] = 0; tail[2] = 0; tail[3] = 0; /* value, padded */
    tail[4] = 0; tail[5] = 0; tail[6] = 0; tail[7] = 0;                    /* no next IFD */
    jpeg_write_marker(cinfo, JPEG_APP0 + 1, marker, (unsigned int)sizeof marker);
}

static int jpeg_validate(const imago_jpeg_encode_params *p, imago_error *err) {
    int components = p->input_kind == IMAGO_JPEG_IN_RGB ? 3 : p->input_kind == IMAGO_JPEG_IN_GRAY ? 1
                   : p->input_kind == IMAGO_JPEG_IN_CMYK ? 4 : 0;
    const char *problem = NULL;
    if (components == 0) problem = "unknown input kind";
    else if (p->width == 0 || p->height == 0 || p->width > JPEG_MAX_DIMENSION || p->height > JPEG_MAX_DIMENSION) problem = "bad size";
    else if (p->pixels == NULL || p->stride < (size_t)p->width * (size_t)components) problem = "pixels missing or stride too small";
    else if (p->quality < 1 || p->quality > 100) problem = "quality outside 1-100";
    else if (p->h_samp < 0 || p->h_samp > 4 || p->v_samp < 0 || p->v_samp > 4) problem = "sampling factor outside 1-4";
    else if (p->restart_interval < 0 || p->restart_interval > 65535) problem = "restart interval outside 0-65535";
    else if (p->exif_orientation < 0 || p->exif_orientation > 8) problem = "EXIF orientation outside 0-8";
    else if (p->cmyk_store != IMAGO_JPEG_STORE_NATIVE && p->cmyk_store != IMAGO_JPEG_STORE_YCCK) problem = "unknown CMYK storage";
    if (problem == NULL) return 1;
    imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "jpeg encode: %s", problem);
    return 0;
}

/* Luma (and YCCK's K) get h_samp x v_samp, chroma 1x1; 0 keeps libjpeg's default.
 * Gray and stored-as-is CMYK are always 1x1: subsampling them would only lose data. */
static void jpeg_apply_sampling(j_compress_ptr cinfo, const imago_jpeg_encode_params *p) {
    if (p->h_samp == 0 || p->v_samp == 0) return;
    if (cinfo->jpeg_color_space == JCS_YCbCr || cinfo->jpeg_color_space == JCS_YCCK) {
        cinfo->comp_info[0].h_samp_factor = p->h_samp;
        cinfo->comp_info[0].v_samp_factor = p->v_samp;
        for (int c = 1; c < 3; c++) {
            cinfo->comp_info[c].h_samp_factor = 1;
            cinfo->comp_info[c].v_samp_factor = 1;
        }
        if (cinfo->jpeg_color_space == JCS_YCCK) {
            cinfo->comp_info[3].h_samp_factor = p->h_samp;
            cinfo->comp_info[3].v_samp_factor = p->v_samp;
        }
    }
}

/* setjmp lives here; the caller owns everything that must survive a longjmp. */
static int jpeg_encode_run(struct jpeg_compress_struct *cinfo, jpeg_encode_error *error,
                           jpeg_encode_dest *dest, const imago_jpeg_encode_params *p) {
    cinfo->err = jpeg_std_error(&error->pub);
    error->pub.error_exit = jpeg_encode_error_exit;
    error->pub.output_message = jpeg_encode_output_message;
    if (setjmp(error->jump)) {
        jpeg_destroy_compress(cinfo);
        return 0;
    }
    jpeg_create_compress(cinfo);
    dest->pub.init_destination = jpeg_dest_init;
    dest->pub.empty_output_buffer = jpeg_dest_empty;
    dest->pub.term_destination = jpeg_dest_term;
    cinfo->dest = &dest->pub;

    cinfo->image_width = p->width;
    cinfo->image_height = p->height;
    switch (p->input_kind) {
    case IMAGO_JPEG_IN_GRAY: cinfo->input_components = 1; cinfo->in_color_space = JCS_GRAYSCALE; break;
    case IMAGO_JPEG_IN_CMYK: cinfo->input_components = 4; cinfo->in_color_space = JCS_CMYK; break;
    default: cinfo->input_components = 3; cinfo->in_color_space = JCS_RGB; break;
    }
    jpeg_set_defaults(cinfo);
    if (p->input_kind == IMAGO_JPEG_IN_CMYK) {
        /* Values are already Adobe-inverted (as Photoshop writes them); stored as given. */
        jpeg_set_colorspace(cinfo, p->cmyk_store == IMAGO_JPEG_STORE_YCCK ? JCS_YCCK : JCS_CMYK);
        cinfo->write_Adobe_marker = TRUE;
    }
    jpeg_set_quality(cinfo, p->quality, TRUE);
    jpeg_apply_sampling(cinfo, p);
    if (p->progressive) jpeg_simple_progression(cinfo);
    cinfo->arith_code = p->arithmetic ? TRUE : FALSE;
    cinfo->restart_interval = (unsigned int)p->restart_interval;
    if (p->exif_orientation > 0) cinfo->write_JFIF_header = FALSE; /* camera style: APP1 right after SOI */

    jpeg_start_compress(cinfo, TRUE);
    if (p->exif_orientation > 0) jpeg_write_exif_orientation(cinfo, p->exif_orientation);
    while (cinfo->next_scanline < cinfo->image_height) {
        JSAMPROW row = (JSAMPROW)(p->pixels + (size_t)cinfo->next_scanline * p->stride);
        jpeg_write_scanlines(cinfo, &row, 1);
    }
    jpeg_finish_compress(cinfo);
    jpeg_destroy_compress(cinfo);
    return 1;
}

imago_status imago_jpeg_encode(const imago_jpeg_encode_params *params, imago_buffer *out, imago_error *err) {
    if (params == NULL || out == NULL) {
        imago_error_set(err, IMAGO_ERR_INVALID_ARGUMENT, "jpeg encode: NULL params or output");
        return IMAGO_ERR_INVALID_ARGUMENT;
    }
    out->data = NULL;
    out->size = 0;
    imago_error local_err = { 0 };
    if (err == NULL) err = &local_err;
    if (!jpeg_validate(params, err)) return IMAGO_ERR_INVALID_ARGUMENT;

    struct jpeg_compress_struct cinfo;
    memset(&cinfo, 0, sizeof cinfo);
    jpeg_encode_error error;
    memset(&error, 0, sizeof error);
    error.err = err;
    jpeg_encode_dest *dest = calloc(1, sizeof *dest); /* 64 KiB chunk: keep it off the stack */
    if (dest == NULL) {
        imago_error_set(err, IMAGO_ERR_NO_MEMORY, "jpeg encode: no memory for the destination");
        return IMAGO_ERR_NO_MEMORY;
    }
    int ok = jpeg_encode_run(&cinfo, &error, dest, params);
    if (ok) imago_growable_finish(&dest->output, out);
    else imago_growable_release(&dest->output);
    free(dest);
    return ok ? IMAGO_OK : (imago_status)err->status;
}
