#ifndef KURONEKO_CCURL_SHIM_H
#define KURONEKO_CCURL_SHIM_H

#include <curl/curl.h>
#include <string.h>
#include <sys/socket.h>

// curl_easy_setopt and curl_easy_getinfo are variadic; each kind of argument gets a wrapper.

static inline CURLcode kuroneko_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kuroneko_curl_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kuroneko_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*kuroneko_curl_data_callback)(char *bytes, size_t size, size_t count, void *context);
typedef int (*kuroneko_curl_progress_callback)(
    void *context, curl_off_t download_total, curl_off_t downloaded, curl_off_t upload_total, curl_off_t uploaded);

static inline CURLcode kuroneko_curl_set_write(CURL *handle, kuroneko_curl_data_callback callback, void *context) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
    return result != CURLE_OK ? result : curl_easy_setopt(handle, CURLOPT_WRITEDATA, context);
}

static inline CURLcode kuroneko_curl_set_read(CURL *handle, kuroneko_curl_data_callback callback, void *context) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_READFUNCTION, callback);
    return result != CURLE_OK ? result : curl_easy_setopt(handle, CURLOPT_READDATA, context);
}

static inline CURLcode kuroneko_curl_set_header(CURL *handle, kuroneko_curl_data_callback callback, void *context) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
    return result != CURLE_OK ? result : curl_easy_setopt(handle, CURLOPT_HEADERDATA, context);
}

static inline CURLcode kuroneko_curl_set_progress(
    CURL *handle, kuroneko_curl_progress_callback callback, void *context) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
    if (result == CURLE_OK) result = curl_easy_setopt(handle, CURLOPT_XFERINFODATA, context);
    return result != CURLE_OK ? result : curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

typedef curl_socket_t (*kuroneko_curl_open_socket_callback)(
    void *context, curlsocktype purpose, struct curl_sockaddr *address);

static inline CURLcode kuroneko_curl_set_open_socket(
    CURL *handle, kuroneko_curl_open_socket_callback callback, void *context) {
    CURLcode result = curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
    return result != CURLE_OK ? result : curl_easy_setopt(handle, CURLOPT_OPENSOCKETDATA, context);
}

// The address libcurl is about to connect to, copied whole (an IPv6 address is longer than `struct sockaddr`).
static inline void kuroneko_curl_address(const struct curl_sockaddr *address, struct sockaddr_storage *copy) {
    memset(copy, 0, sizeof *copy);
    size_t length = address->addrlen < sizeof *copy ? address->addrlen : sizeof *copy;
    memcpy(copy, &address->addr, length);
}

static inline long kuroneko_curl_response_code(CURL *handle) {
    long code = 0;
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code) == CURLE_OK ? code : 0;
}

#endif
