/* Umbrella header of the test-only C surface: the encoders the corpus generator and the tests
 * make images with, and the plain library decoders the bench compares Imago against. Linked by
 * ImagoCorpus, ImagoBench and test targets only, never by Imago. */
#include "imago_encode.h"
#include "imago_reference.h"
#include "imago_bench_affinity.h"
#include "imago_bench_counted.h"
