/* The WebP container rule: every chunk inside the RIFF size (webp_container.h). */
#include "webp_container.h"

#include <string.h>

static uint32_t imago_webp_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

size_t imago_webp_riff_end(const uint8_t *data, size_t size) {
    if (size < 8 || memcmp(data, "RIFF", 4) != 0) return 0;
    return (size_t)imago_webp_le32(data + 4) + 8;
}

/* The 8 gathered header bytes at walk->next: the RIFF header's, or a chunk's. */
static imago_status imago_webp_walk_header(imago_webp_walk *w, imago_error *err) {
    w->have = 0;
    if (w->riff_end == 0) {
        w->riff_end = imago_webp_riff_end(w->header, 8);
        if (w->riff_end < 12) w->done = 1;   /* not a RIFF, or one libwebp refuses by itself */
        w->next = 12;                        /* past "WEBP" */
        if (w->next >= w->riff_end) w->done = 1;
        return IMAGO_OK;
    }
    uint64_t payload = imago_webp_le32(w->header + 4);
    uint64_t end = w->next + 8 + payload + (payload & 1);
    if (end == w->riff_end + 1 && (payload & 1)) end = w->riff_end;   /* the last pad byte left out */
    if (end > w->riff_end) {
        char name[5];
        for (int i = 0; i < 4; i++) name[i] = w->header[i] >= 0x20 && w->header[i] < 0x7f ? (char)w->header[i] : '?';
        name[4] = 0;
        imago_error_set(err, IMAGO_ERR_CORRUPT, "WebP chunk '%s' at offset %llu (%llu bytes) runs past the RIFF size (%llu)",
                        name, (unsigned long long)w->next, (unsigned long long)payload,
                        (unsigned long long)(w->riff_end - 8));
        return IMAGO_ERR_CORRUPT;
    }
    w->next = end;
    if (w->next == w->riff_end) w->done = 1;
    return IMAGO_OK;
}

imago_status imago_webp_walk_feed(imago_webp_walk *w, const uint8_t *data, size_t size, imago_error *err) {
    while (size > 0 && !w->done) {
        if (w->seen < w->next) {   /* inside a chunk's payload */
            uint64_t skip = w->next - w->seen < size ? w->next - w->seen : size;
            w->seen += skip;
            data += skip;
            size -= (size_t)skip;
            continue;
        }
        if (w->riff_end != 0 && w->have == 0 && w->riff_end - w->next < 8) {
            imago_error_set(err, IMAGO_ERR_CORRUPT, "the RIFF size (%llu) ends inside a WebP chunk header",
                            (unsigned long long)(w->riff_end - 8));
            return IMAGO_ERR_CORRUPT;
        }
        size_t take = 8 - w->have < size ? 8 - w->have : size;
        memcpy(w->header + w->have, data, take);
        w->have += (unsigned)take;
        w->seen += take;
        data += take;
        size -= take;
        if (w->have == 8) {
            imago_status status = imago_webp_walk_header(w, err);
            if (status != IMAGO_OK) return status;
        }
    }
    return IMAGO_OK;
}
