/* Umbrella header: everything Swift may call across the C boundary. */
#include "imago_common.h"
#include "imago_decode.h"
#include "imago_stream.h"
#include "imago_encode.h"
#include "imago_heap.h"
#include "imago_inflate.h"
#include "imago_pixels.h"
#include "imago_reference.h"
