#ifndef KURONEKO_CCRYPTO_SHIM_H
#define KURONEKO_CCRYPTO_SHIM_H

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/// HMAC-SHA256 of `message` under `key` into `output` (32 bytes); 1 on success.
static inline int kuroneko_hmac_sha256(const void *key, int keyLength, const unsigned char *message, size_t length,
                                       unsigned char *output) {
    unsigned int written = 0;
    return HMAC(EVP_sha256(), key, keyLength, message, length, output, &written) != NULL && written == 32;
}

/// SHA-256 of `message` into `output` (32 bytes).
static inline void kuroneko_sha256(const unsigned char *message, size_t length, unsigned char *output) {
    SHA256(message, length, output);
}

/// SSL_set_tlsext_host_name is a macro: the server name sent in the TLS handshake (SNI).
static inline int kuroneko_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

#endif
