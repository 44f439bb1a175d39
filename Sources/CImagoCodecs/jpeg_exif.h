#ifndef IMAGO_JPEG_EXIF_H
#define IMAGO_JPEG_EXIF_H
#include <stddef.h>
#include <stdint.h>

/* The EXIF orientation tag (0x0112) from an APP1 payload that starts with "Exif\0\0";
 * 1 when absent, malformed or out of range. Every read is bounds-checked. */
int32_t imago_exif_orientation(const uint8_t *payload, size_t length);

#endif
