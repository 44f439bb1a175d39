#include "imago_buffer_internal.h"

#include <stdlib.h>
#include <string.h>

void imago_buffer_free(imago_buffer *buffer) {
    if (buffer == NULL) return;
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
}

int imago_growable_append(imago_growable *buffer, const uint8_t *bytes, size_t count) {
    if (count == 0) return 1;
    if (count > SIZE_MAX - buffer->size) return 0;
    size_t needed = buffer->size + count;
    if (needed > buffer->capacity) {
        /* Doubling keeps appends amortised O(1); 64 KiB start avoids many tiny reallocs. */
        size_t capacity = buffer->capacity < 65536 ? 65536 : buffer->capacity;
        while (capacity < needed) {
            if (capacity > SIZE_MAX / 2) { capacity = needed; break; }
            capacity *= 2;
        }
        uint8_t *grown = realloc(buffer->data, capacity);
        if (grown == NULL) return 0;
        buffer->data = grown;
        buffer->capacity = capacity;
    }
    memcpy(buffer->data + buffer->size, bytes, count);
    buffer->size = needed;
    return 1;
}

void imago_growable_finish(imago_growable *buffer, imago_buffer *out) {
    out->data = buffer->data;
    out->size = buffer->size;
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}

void imago_growable_release(imago_growable *buffer) {
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
    buffer->capacity = 0;
}
