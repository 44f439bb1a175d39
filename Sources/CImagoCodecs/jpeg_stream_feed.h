#ifndef IMAGO_JPEG_STREAM_FEED_H
#define IMAGO_JPEG_STREAM_FEED_H
/* The push JPEG decoder's suspending data source. fill_input_buffer always answers FALSE, so
 * libjpeg suspends where its input runs out and backs up to the last point it can resume from
 * (a marker's start, an MCU's start). Between pushes the feed keeps exactly the bytes libjpeg
 * has not consumed (the tail); a push's bytes are read in place when the tail is empty and
 * appended to it otherwise. Internal to CImagoCodecs. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <jpeglib.h>

typedef struct imago_jpeg_feed {
    struct jpeg_source_mgr pub;   /* first member: cinfo->src points here */
    uint8_t *tail;                /* unconsumed input kept between pushes */
    size_t length, capacity;
    size_t owed;                  /* bytes skip_input_data must still drop from input to come */
    size_t peak_length;           /* the most ever kept between pushes */
    size_t peak_capacity;         /* the largest tail allocation */
} imago_jpeg_feed;

void imago_jpeg_feed_init(imago_jpeg_feed *feed, j_decompress_ptr cinfo);
/* libjpeg reads data[0..size) in place (the tail must be empty). */
void imago_jpeg_feed_present(imago_jpeg_feed *feed, const uint8_t *data, size_t size);
/* libjpeg reads the tail. */
void imago_jpeg_feed_present_tail(imago_jpeg_feed *feed);
/* How many of `available` new bytes an earlier skip still owes (drop them before presenting). */
size_t imago_jpeg_feed_take_owed(imago_jpeg_feed *feed, size_t available);
/* Appends to the tail; 0 when out of memory. */
int imago_jpeg_feed_append(imago_jpeg_feed *feed, const uint8_t *data, size_t size);
/* After libjpeg ran: the bytes it left unconsumed become the tail (minus the last `give_back`
 * of them, which the caller hands back to its own caller); 0 when out of memory. */
int imago_jpeg_feed_keep(imago_jpeg_feed *feed, size_t give_back);
/* Whether the tail holds an EOI marker (FF D9) at or after *scanned; advances *scanned. */
int imago_jpeg_feed_has_eoi(const imago_jpeg_feed *feed, size_t *scanned);
void imago_jpeg_feed_release(imago_jpeg_feed *feed);

#endif
