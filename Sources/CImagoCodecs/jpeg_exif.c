#include "jpeg_exif.h"

#include <string.h>

static uint32_t imago_exif_u16(const uint8_t *p, int little_endian) {
    return little_endian ? (uint32_t)(p[0] | p[1] << 8) : (uint32_t)(p[0] << 8 | p[1]);
}

static uint32_t imago_exif_u32(const uint8_t *p, int little_endian) {
    return little_endian ? ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24)
                         : ((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3]);
}

int32_t imago_exif_orientation(const uint8_t *payload, size_t length) {
    if (length < 6 + 8 || memcmp(payload, "Exif\0\0", 6) != 0) return 1;
    const uint8_t *tiff = payload + 6;
    size_t size = length - 6;
    int little_endian;
    if (memcmp(tiff, "II*\0", 4) == 0) little_endian = 1;
    else if (memcmp(tiff, "MM\0*", 4) == 0) little_endian = 0;
    else return 1;
    uint32_t ifd = imago_exif_u32(tiff + 4, little_endian);
    if (ifd > size || size - ifd < 2) return 1;
    uint32_t count = imago_exif_u16(tiff + ifd, little_endian);
    size_t entries = ifd + 2;
    for (uint32_t i = 0; i < count; i++) {
        size_t at = entries + (size_t)i * 12;
        if (at > size || size - at < 12) return 1;
        const uint8_t *entry = tiff + at;
        if (imago_exif_u16(entry, little_endian) != 0x0112) continue;
        uint32_t type = imago_exif_u16(entry + 2, little_endian);
        if (type != 3 || imago_exif_u32(entry + 4, little_endian) < 1) return 1;
        uint32_t value = imago_exif_u16(entry + 8, little_endian);
        return value >= 1 && value <= 8 ? (int32_t)value : 1;
    }
    return 1;
}
