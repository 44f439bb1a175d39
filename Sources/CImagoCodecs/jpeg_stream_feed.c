#include "jpeg_stream_feed.h"

#include <stdlib.h>
#include <string.h>

static void imago_feed_init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void imago_feed_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

/* Never more data now: libjpeg suspends and the push returns for more. */
static boolean imago_feed_fill(j_decompress_ptr cinfo) {
    (void)cinfo;
    return FALSE;
}

/* A skipped marker segment may extend past what has arrived: the rest is owed. */
static void imago_feed_skip(j_decompress_ptr cinfo, long count) {
    imago_jpeg_feed *f = (imago_jpeg_feed *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= f->pub.bytes_in_buffer) {
        f->pub.next_input_byte += count;
        f->pub.bytes_in_buffer -= (size_t)count;
    } else {
        f->owed += (size_t)count - f->pub.bytes_in_buffer;
        f->pub.next_input_byte += f->pub.bytes_in_buffer;
        f->pub.bytes_in_buffer = 0;
    }
}

void imago_jpeg_feed_init(imago_jpeg_feed *f, j_decompress_ptr cinfo) {
    memset(f, 0, sizeof *f);
    f->pub.init_source = imago_feed_init_source;
    f->pub.fill_input_buffer = imago_feed_fill;
    f->pub.skip_input_data = imago_feed_skip;
    f->pub.resync_to_restart = jpeg_resync_to_restart;
    f->pub.term_source = imago_feed_term_source;
    cinfo->src = &f->pub;
}

void imago_jpeg_feed_present(imago_jpeg_feed *f, const uint8_t *data, size_t size) {
    f->pub.next_input_byte = data;
    f->pub.bytes_in_buffer = size;
}

void imago_jpeg_feed_present_tail(imago_jpeg_feed *f) {
    imago_jpeg_feed_present(f, f->tail, f->length);
}

size_t imago_jpeg_feed_take_owed(imago_jpeg_feed *f, size_t available) {
    size_t n = f->owed < available ? f->owed : available;
    f->owed -= n;
    return n;
}

static int imago_feed_reserve(imago_jpeg_feed *f, size_t needed) {
    if (needed <= f->capacity) return 1;
    size_t capacity = f->capacity < 4096 ? 4096 : f->capacity;
    while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? needed : capacity * 2;
    uint8_t *tail = realloc(f->tail, capacity);
    if (tail == NULL) return 0;
    f->tail = tail;
    f->capacity = capacity;
    if (capacity > f->peak_capacity) f->peak_capacity = capacity;
    return 1;
}

int imago_jpeg_feed_append(imago_jpeg_feed *f, const uint8_t *data, size_t size) {
    if (size == 0) return 1;
    if (size > SIZE_MAX - f->length || !imago_feed_reserve(f, f->length + size)) return 0;
    memcpy(f->tail + f->length, data, size);
    f->length += size;
    imago_jpeg_feed_present_tail(f);
    return 1;
}

int imago_jpeg_feed_keep(imago_jpeg_feed *f, size_t give_back) {
    const uint8_t *left = f->pub.next_input_byte;
    size_t n = f->pub.bytes_in_buffer;
    n = give_back < n ? n - give_back : 0;
    int inside = f->tail != NULL && left >= f->tail && left <= f->tail + f->length;
    if (inside) {
        if (n > 0 && left != f->tail) memmove(f->tail, left, n);
    } else if (n > 0) {
        if (!imago_feed_reserve(f, n)) return 0;
        memcpy(f->tail, left, n);
    }
    f->length = n;
    if (n > f->peak_length) f->peak_length = n;
    imago_jpeg_feed_present_tail(f);
    return 1;
}

int imago_jpeg_feed_has_eoi(const imago_jpeg_feed *f, size_t *scanned) {
    for (size_t i = *scanned; i + 1 < f->length; i++) {
        if (f->tail[i] == 0xFF && f->tail[i + 1] == JPEG_EOI) return 1;
    }
    *scanned = f->length > 0 ? f->length - 1 : 0;
    return 0;
}

void imago_jpeg_feed_release(imago_jpeg_feed *f) {
    free(f->tail);
    f->tail = NULL;
    f->length = f->capacity = 0;
    imago_jpeg_feed_present(f, NULL, 0);
}
