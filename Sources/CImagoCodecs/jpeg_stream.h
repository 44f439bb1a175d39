#ifndef IMAGO_JPEG_STREAM_H
#define IMAGO_JPEG_STREAM_H
/* Internal to CImagoCodecs (tests and benchmarks): how much input a push JPEG decoder has held. */
#include "imago_stream.h"

/* kept: the most unconsumed bytes held between two pushes; allocated: the largest tail buffer. */
void imago_jpeg_stream_input_peaks(const imago_jpeg_stream *s, size_t *kept, size_t *allocated);

#endif
