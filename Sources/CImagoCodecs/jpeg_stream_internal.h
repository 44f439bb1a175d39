#ifndef IMAGO_JPEG_STREAM_INTERNAL_H
#define IMAGO_JPEG_STREAM_INTERNAL_H
/* The push JPEG decoder's state, shared by jpeg_stream.c (the API and input feeding) and
 * jpeg_stream_passes.c (what libjpeg is asked to do next). Internal to CImagoCodecs. */
#include "imago_stream.h"
#include "imago_resizer.h"
#include "jpeg_common.h"
#include "jpeg_stream_feed.h"

typedef enum imago_jpeg_phase {
    IMAGO_JPEG_PHASE_HEADER,      /* jpeg_read_header */
    IMAGO_JPEG_PHASE_READY,       /* header read, waiting for start */
    IMAGO_JPEG_PHASE_STARTING,    /* jpeg_start_decompress (absorbs a multi-scan image unless buffered) */
    IMAGO_JPEG_PHASE_ROWS,        /* jpeg_read_scanlines into out */
    IMAGO_JPEG_PHASE_FINISHING,   /* jpeg_finish_decompress: reads on to EOI */
    IMAGO_JPEG_PHASE_SCANS,       /* buffered: jpeg_consume_input, stopping between scans */
    IMAGO_JPEG_PHASE_DONE,
    IMAGO_JPEG_PHASE_FAILED
} imago_jpeg_phase;

struct imago_jpeg_stream {
    struct jpeg_decompress_struct cinfo;
    imago_jpeg_guard guard;
    imago_jpeg_feed feed;
    imago_jpeg_phase phase;
    imago_image_info info;
    int cmyk, buffered, created, pushed;
    int hold;             /* arithmetic coding cannot suspend: keep input until EOI has arrived */
    size_t eoi_scanned;   /* hold: the tail before this offset has no EOI */
    int eoi_seen;
    int scan_done;        /* buffered: last completed scan not yet followed by the next SOS */
    int preview_scan;     /* buffered: the scan a preview may show now (0: no preview stop) */
    int finish_output_pending;
    uint8_t *out;
    size_t out_stride;
    uint32_t out_w, out_h;
    uint8_t *rows;        /* IMAGO_JPEG_BATCH scaled rows while resizing */
    imago_resizer *resizer;           /* scaled output to out */
    imago_resizer *preview_resizer;   /* scaled output to a preview's dst */
};

/* Runs libjpeg as far as the presented input allows; errors longjmp to the armed entry point. */
imago_stream_state imago_jpeg_stream_step(imago_jpeg_stream *s);

/* Scanlines of the current output pass into dst (through resizer when given): 1 once the pass
 * is done, 0 when libjpeg suspended for input. */
int imago_jpeg_stream_rows(imago_jpeg_stream *s, uint8_t *dst, size_t stride, imago_resizer *resizer, int publish);

#endif
