/* What the push JPEG decoder asks libjpeg to do next, by phase (jpeg_stream_internal.h). Each
 * call returns a suspension code when the input runs out and is simply repeated on the next push. */
#include "jpeg_stream_internal.h"

static void imago_jpeg_stream_check_cancel(imago_jpeg_stream *s) {
    if (imago_control_cancelled(s->guard.control))
        imago_jpeg_fail((j_common_ptr)&s->cinfo, IMAGO_ERR_CANCELLED, "cancelled");
}

int imago_jpeg_stream_rows(imago_jpeg_stream *s, uint8_t *dst, size_t stride, imago_resizer *resizer,
                                  int publish) {
    j_decompress_ptr c = &s->cinfo;
    uint32_t width = c->output_width;
    JSAMPROW rows[IMAGO_JPEG_BATCH];
    while (c->output_scanline < c->output_height) {
        imago_jpeg_stream_check_cancel(s);
        uint32_t first = c->output_scanline;
        uint32_t batch = c->output_height - first;
        if (batch > IMAGO_JPEG_BATCH) batch = IMAGO_JPEG_BATCH;
        for (uint32_t i = 0; i < batch; i++) {
            rows[i] = resizer != NULL ? s->rows + (size_t)i * width * 4 : dst + (size_t)(first + i) * stride;
        }
        uint32_t got = jpeg_read_scanlines(c, rows, batch);
        if (publish) imago_control_set_rows(s->guard.control, c->output_scanline);
        for (uint32_t i = 0; i < got; i++) {
            if (s->cmyk) imago_jpeg_cmyk_to_rgba(rows[i], width, c->saw_Adobe_marker);
            if (resizer != NULL) imago_resizer_push_row(resizer, rows[i]);
        }
        if (got == 0) return 0;
    }
    return 1;
}

/* Buffered mode: absorbs input; stops when a scan has completed and the next one has begun
 * (so it was not the last), runs the final pass once EOI is in. */
static imago_stream_state imago_jpeg_stream_scans(imago_jpeg_stream *s) {
    j_decompress_ptr c = &s->cinfo;
    if (s->finish_output_pending) {
        if (!jpeg_finish_output(c)) return IMAGO_STREAM_NEEDS_INPUT;
        s->finish_output_pending = 0;
    }
    for (;;) {
        int r = jpeg_consume_input(c);
        if (r == JPEG_SUSPENDED) return IMAGO_STREAM_NEEDS_INPUT;
        if (r == JPEG_REACHED_EOI) break;
        if (r == JPEG_ROW_COMPLETED) imago_jpeg_stream_check_cancel(s);
        if (r == JPEG_SCAN_COMPLETED) s->scan_done = c->input_scan_number;
        if (r == JPEG_REACHED_SOS && s->scan_done > 0) {
            s->preview_scan = s->scan_done;
            s->scan_done = 0;
            return IMAGO_STREAM_PREVIEW_READY;
        }
    }
    if (!jpeg_start_output(c, c->input_scan_number) ||
        !imago_jpeg_stream_rows(s, s->out, s->out_stride, s->resizer, 1) || !jpeg_finish_output(c))
        imago_jpeg_fail((j_common_ptr)c, IMAGO_ERR_CORRUPT, "final output pass suspended");
    return IMAGO_STREAM_COMPLETE;
}

imago_stream_state imago_jpeg_stream_step(imago_jpeg_stream *s) {
    j_decompress_ptr c = &s->cinfo;
    for (;;) {
        switch (s->phase) {
        case IMAGO_JPEG_PHASE_HEADER:
            if (jpeg_read_header(c, TRUE) == JPEG_SUSPENDED) return IMAGO_STREAM_NEEDS_INPUT;
            s->cmyk = imago_jpeg_fill_info(c, &s->info);
            s->phase = IMAGO_JPEG_PHASE_READY;
            return IMAGO_STREAM_HEADER_READY;
        case IMAGO_JPEG_PHASE_STARTING:
            if (!jpeg_start_decompress(c)) return IMAGO_STREAM_NEEDS_INPUT;
            s->phase = s->buffered ? IMAGO_JPEG_PHASE_SCANS : IMAGO_JPEG_PHASE_ROWS;
            break;
        case IMAGO_JPEG_PHASE_ROWS:
            if (!imago_jpeg_stream_rows(s, s->out, s->out_stride, s->resizer, 1)) return IMAGO_STREAM_NEEDS_INPUT;
            s->phase = IMAGO_JPEG_PHASE_FINISHING;
            break;
        case IMAGO_JPEG_PHASE_SCANS: {
            imago_stream_state state = imago_jpeg_stream_scans(s);
            if (state != IMAGO_STREAM_COMPLETE) return state;
            s->phase = IMAGO_JPEG_PHASE_FINISHING;
            break;
        }
        case IMAGO_JPEG_PHASE_FINISHING:
            if (!jpeg_finish_decompress(c)) return IMAGO_STREAM_NEEDS_INPUT;
            s->phase = IMAGO_JPEG_PHASE_DONE;
            return IMAGO_STREAM_COMPLETE;
        default:
            return s->phase == IMAGO_JPEG_PHASE_DONE ? IMAGO_STREAM_COMPLETE : IMAGO_STREAM_HEADER_READY;
        }
    }
}

