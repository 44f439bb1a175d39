#!/bin/sh
# Builds the PNG/WebP push-decoder check without SwiftPM. Usage (from the package root):
#   Scripts/stream-check/build.sh [OUT] [CFLAGS...]     default: /tmp/pngwebp_stream_check, ASan + UBSan
#   /tmp/pngwebp_stream_check Corpus [BIG_FILE...]      (ONLY=png|webp limits the corpus part)
set -e
out=${1:-/tmp/pngwebp_stream_check}
[ $# -gt 0 ] && shift
flags=${*:--O1 -g -fsanitize=address,undefined}
cc $flags -I Sources/CImagoCodecs/include -I Sources/CImagoCodecs Sources/CImagoCodecs/*.c \
    Scripts/stream-check/pngwebp_stream_check.c \
    $(pkg-config --cflags --libs libjpeg libpng libwebp libwebpdemux libwebpmux zlib libdeflate libisal) -o "$out"
