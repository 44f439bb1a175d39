/* Umbrella header: everything Imago's Swift code may call across the C boundary. Only what
 * decoding needs lives here; the encoders and the bench's reference decoders are test code
 * (CImagoTestCodecs), so they are not compiled into what an app links. */
#include "imago_common.h"
#include "imago_decode.h"
#include "imago_stream.h"
#include "imago_heap.h"
#include "imago_inflate.h"
#include "imago_pixels.h"
#include "imago_png_fast.h"
