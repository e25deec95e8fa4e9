#ifndef KURONEKO_CCRYPTO_SHIM_H
#define KURONEKO_CCRYPTO_SHIM_H

// The P-256 helpers below use OpenSSL's EC_KEY calls, kept (deprecated) in OpenSSL 3: the compatibility level
// is stated so they compile without warnings.
#define OPENSSL_API_COMPAT 0x10100000L

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/err.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/obj_mac.h>
#include <openssl/bn.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

/// TLS 1.2 at least (SSL_CTX_set_min_proto_version is a macro); 1 on success.
static inline int kuroneko_ssl_require_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

/// SNI: the host name sent in the TLS handshake (SSL_set_tlsext_host_name is a macro); 1 on success.
static inline int kuroneko_ssl_set_server_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

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

// P-256 for Web Push (RFC 8291) and VAPID (RFC 8292). Keys cross as raw bytes: a 32-byte private scalar and a
// 65-byte uncompressed public point (0x04 || x || y). Each call makes and frees its own OpenSSL objects.

/// The P-256 key of a 32-byte private scalar, with its public point; NULL when the scalar is not a valid key.
static inline EC_KEY *kuroneko_p256_key(const unsigned char *privateKey) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    BIGNUM *scalar = BN_bin2bn(privateKey, 32, NULL);
    EC_POINT *point = key ? EC_POINT_new(EC_KEY_get0_group(key)) : NULL;
    int ok = key && scalar && point && EC_KEY_set_private_key(key, scalar) == 1 &&
             EC_POINT_mul(EC_KEY_get0_group(key), point, scalar, NULL, NULL, NULL) == 1 &&
             EC_KEY_set_public_key(key, point) == 1 && EC_KEY_check_key(key) == 1;
    EC_POINT_free(point);
    BN_clear_free(scalar);
    if (!ok) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

/// Writes the public point of `key` (65 bytes); 1 on success.
static inline int kuroneko_p256_write_public(const EC_KEY *key, unsigned char *publicKey) {
    return EC_POINT_point2oct(EC_KEY_get0_group(key), EC_KEY_get0_public_key(key), POINT_CONVERSION_UNCOMPRESSED,
                              publicKey, 65, NULL) == 65;
}

/// A new key pair: the private scalar (32 bytes) and the public point (65 bytes); 1 on success.
static inline int kuroneko_p256_generate(unsigned char *privateKey, unsigned char *publicKey) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    int ok = key && EC_KEY_generate_key(key) == 1 &&
             BN_bn2binpad(EC_KEY_get0_private_key(key), privateKey, 32) == 32 &&
             kuroneko_p256_write_public(key, publicKey);
    EC_KEY_free(key);
    return ok;
}

/// The public point of a private scalar; 1 on success.
static inline int kuroneko_p256_public(const unsigned char *privateKey, unsigned char *publicKey) {
    EC_KEY *key = kuroneko_p256_key(privateKey);
    int ok = key && kuroneko_p256_write_public(key, publicKey);
    EC_KEY_free(key);
    return ok;
}

/// The public key of a 65-byte point; NULL when it is not a point of the curve.
static inline EC_KEY *kuroneko_p256_public_key(const unsigned char *publicKey) {
    EC_KEY *key = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    EC_POINT *point = key ? EC_POINT_new(EC_KEY_get0_group(key)) : NULL;
    int ok = key && point && EC_POINT_oct2point(EC_KEY_get0_group(key), point, publicKey, 65, NULL) == 1 &&
             EC_KEY_set_public_key(key, point) == 1 && EC_KEY_check_key(key) == 1;
    EC_POINT_free(point);
    if (!ok) {
        EC_KEY_free(key);
        return NULL;
    }
    return key;
}

/// ECDH: the 32-byte shared secret of our private scalar and their public point; 1 on success.
static inline int kuroneko_p256_ecdh(const unsigned char *privateKey, const unsigned char *peerPublic,
                                     unsigned char *secret) {
    EC_KEY *ours = kuroneko_p256_key(privateKey);
    EC_KEY *theirs = kuroneko_p256_public_key(peerPublic);
    int ok = ours && theirs &&
             ECDH_compute_key(secret, 32, EC_KEY_get0_public_key(theirs), ours, NULL) == 32;
    EC_KEY_free(ours);
    EC_KEY_free(theirs);
    return ok;
}

/// ECDSA P-256 with SHA-256 over `message`: the signature as JWS wants it, r || s (64 bytes); 1 on success.
static inline int kuroneko_p256_sign(const unsigned char *privateKey, const unsigned char *message, size_t length,
                                     unsigned char *signature) {
    unsigned char digest[32];
    SHA256(message, length, digest);
    EC_KEY *key = kuroneko_p256_key(privateKey);
    ECDSA_SIG *sig = key ? ECDSA_do_sign(digest, 32, key) : NULL;
    const BIGNUM *r = NULL, *s = NULL;
    if (sig) ECDSA_SIG_get0(sig, &r, &s);
    int ok = sig && BN_bn2binpad(r, signature, 32) == 32 && BN_bn2binpad(s, signature + 32, 32) == 32;
    ECDSA_SIG_free(sig);
    EC_KEY_free(key);
    return ok;
}

/// Whether `signature` (r || s) is an ECDSA P-256 SHA-256 signature of `message` by `publicKey`.
static inline int kuroneko_p256_verify(const unsigned char *publicKey, const unsigned char *message, size_t length,
                                       const unsigned char *signature) {
    unsigned char digest[32];
    SHA256(message, length, digest);
    EC_KEY *key = kuroneko_p256_public_key(publicKey);
    ECDSA_SIG *sig = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(signature, 32, NULL), *s = BN_bin2bn(signature + 32, 32, NULL);
    int ok = key && sig && r && s && ECDSA_SIG_set0(sig, r, s) == 1;
    if (ok) {
        r = NULL;
        s = NULL;
        ok = ECDSA_do_verify(digest, 32, sig, key) == 1;
    }
    BN_free(r);
    BN_free(s);
    ECDSA_SIG_free(sig);
    EC_KEY_free(key);
    return ok;
}

/// AES-128-GCM: `output` gets the ciphertext (`length` bytes) and then the 16-byte tag; 1 on success.
static inline int kuroneko_aes128gcm_seal(const unsigned char *key, const unsigned char *nonce,
                                          const unsigned char *plaintext, int length, unsigned char *output) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, last = 0;
    int ok = context && EVP_EncryptInit_ex(context, EVP_aes_128_gcm(), NULL, NULL, NULL) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
             EVP_EncryptInit_ex(context, NULL, NULL, key, nonce) == 1 &&
             EVP_EncryptUpdate(context, output, &written, plaintext, length) == 1 &&
             EVP_EncryptFinal_ex(context, output + written, &last) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, 16, output + written + last) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok && written + last == length;
}

/// AES-128-GCM opening: `input` is the ciphertext (`length` bytes, the 16-byte tag after it); 1 when the tag
/// is right, `output` then holding the plaintext.
static inline int kuroneko_aes128gcm_open(const unsigned char *key, const unsigned char *nonce,
                                          const unsigned char *input, int length, unsigned char *output) {
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, last = 0;
    int ok = context && length >= 0 && EVP_DecryptInit_ex(context, EVP_aes_128_gcm(), NULL, NULL, NULL) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, 12, NULL) == 1 &&
             EVP_DecryptInit_ex(context, NULL, NULL, key, nonce) == 1 &&
             EVP_DecryptUpdate(context, output, &written, input, length) == 1 &&
             EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, 16, (void *)(input + length)) == 1 &&
             EVP_DecryptFinal_ex(context, output + written, &last) == 1;
    EVP_CIPHER_CTX_free(context);
    return ok;
}

#endif
