#ifndef KURONEKO_CZLIB_SHIM_H
#define KURONEKO_CZLIB_SHIM_H

#include <string.h>
#include <zlib.h>

/// The most bytes gzip can turn `length` bytes into (deflate's bound plus the gzip header and trailer).
static inline size_t kuroneko_gzip_bound(size_t length) {
    return (size_t)compressBound((uLong)length) + 18;
}

/// Compresses `input` into `output` as one gzip member; returns the compressed length, or 0 on failure
/// (including `capacity` too small). deflateInit2 is a macro, so Swift reaches it through this wrapper.
static inline size_t kuroneko_gzip(const void *input, size_t length, void *output, size_t capacity, int level) {
    z_stream stream;
    memset(&stream, 0, sizeof stream);
    if (deflateInit2(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (Bytef *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = (Bytef *)output;
    stream.avail_out = (uInt)capacity;
    int result = deflate(&stream, Z_FINISH);
    size_t written = capacity - stream.avail_out;
    deflateEnd(&stream);
    return result == Z_STREAM_END ? written : 0;
}

#endif
