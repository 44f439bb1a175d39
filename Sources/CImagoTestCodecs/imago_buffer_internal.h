#ifndef IMAGO_BUFFER_INTERNAL_H
#define IMAGO_BUFFER_INTERNAL_H
/* Private to the encoders: a growable malloc()ed byte buffer that ends up in an imago_buffer,
 * so every encoder hands back memory imago_buffer_free can release with free(). */
#include "imago_encode.h"

typedef struct imago_growable {
    uint8_t *data;
    size_t size;
    size_t capacity;
} imago_growable;

/* Appends count bytes; returns 0 when memory runs out (the buffer is left intact). */
int imago_growable_append(imago_growable *buffer, const uint8_t *bytes, size_t count);

/* Transfers ownership of the bytes to out and empties buffer. */
void imago_growable_finish(imago_growable *buffer, imago_buffer *out);

void imago_growable_release(imago_growable *buffer);

#endif
