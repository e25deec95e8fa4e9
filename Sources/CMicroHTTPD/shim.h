#ifndef KURONEKO_CMICROHTTPD_SHIM_H
#define KURONEKO_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <poll.h>
#include <ctype.h>
#include <stdlib.h>
#include <malloc.h>
#include <microhttpd.h>
#include <gnutls/gnutls.h>
#include <gnutls/abstract.h>
#include <gnutls/x509.h>

/// Blocks of at least `bytes` are mapped on their own and unmapped when freed (glibc's threshold, fixed: it no
/// longer rises each time a large block is freed). 1 when set.
static inline int kuroneko_map_blocks_from(int bytes) {
    return mallopt(M_MMAP_THRESHOLD, bytes);
}

#ifndef POLLRDHUP
#define POLLRDHUP 0x2000
#endif

/// Decodes %HH escapes in a request path or query argument in place, like libmicrohttpd's own unescaper,
/// except that an escape naming a control character (%00-%1F, %7F) becomes DEL (0x7F) rather than that
/// character: a %00 can no longer cut the string short, and the server refuses any path holding DEL or a
/// control character.
static inline size_t kuroneko_unescape(void *context, struct MHD_Connection *connection, char *text) {
    (void)context;
    (void)connection;
    char *read = text, *write = text;
    while (*read != '\0') {
        if (read[0] == '%' && isxdigit((unsigned char)read[1]) && isxdigit((unsigned char)read[2])) {
            char hex[3] = {read[1], read[2], '\0'};
            unsigned long value = strtoul(hex, NULL, 16);
            *write++ = (value < 0x20 || value == 0x7F) ? (char)0x7F : (char)value;
            read += 3;
        } else {
            *write++ = *read++;
        }
    }
    *write = '\0';
    return (size_t)(write - text);
}

/// Called with the request target as it arrived (before unescaping or splitting off the query), when the
/// request line has been read: MHD_OPTION_URI_LOG_CALLBACK's callback.
typedef void *(*kuroneko_target_callback)(void *context, const char *target, struct MHD_Connection *connection);

/// The options every daemon of Kuroneko's takes (MHD_start_daemon is variadic: they are spelled once here).
#define KURONEKO_DAEMON_OPTIONS                                                  \
    MHD_OPTION_SOCK_ADDR, address, MHD_OPTION_THREAD_POOL_SIZE, threads,         \
        MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,                           \
        MHD_OPTION_CONNECTION_LIMIT, connectionLimit,                            \
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, perAddressLimit,                     \
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connectionMemoryLimit,               \
        MHD_OPTION_NOTIFY_COMPLETED, completed, context,                         \
        MHD_OPTION_NOTIFY_CONNECTION, connections, context,                      \
        MHD_OPTION_UNESCAPE_CALLBACK, kuroneko_unescape, NULL,                   \
        MHD_OPTION_URI_LOG_CALLBACK, target, context

/// Starts a daemon with the options Kuroneko's servers use; MHD_start_daemon itself is variadic.
/// `address` is the IPv4 or IPv6 address to listen on, with its port (0 picks a free one); for IPv6 the
/// flags must include MHD_USE_IPv6 (and MHD_USE_DUAL_STACK to take IPv4 too on `::`). Connections per client
/// are counted through `connections` rather than libmicrohttpd's own cap, which drops the extra connection
/// without an answer; the server answers it with 503 instead. With `certificate` (GnuTLS's callback that
/// gives the certificate chain and key for each handshake, so a renewed pair is used without a restart) the
/// daemon speaks TLS with the versions `priorities` allows.
static inline struct MHD_Daemon *kuroneko_start_daemon(
    unsigned int flags, const struct sockaddr *address, unsigned int threads, unsigned int timeoutSeconds,
    unsigned int connectionLimit, unsigned int perAddressLimit, size_t connectionMemoryLimit, MHD_AccessHandlerCallback handler, void *handlerContext,
    MHD_RequestCompletedCallback completed, MHD_NotifyConnectionCallback connections, kuroneko_target_callback target,
    void *context, gnutls_certificate_retrieve_function2 *certificate, const char *priorities) {
    uint16_t port = address->sa_family == AF_INET6 ? ((const struct sockaddr_in6 *)address)->sin6_port
                                                   : ((const struct sockaddr_in *)address)->sin_port;
    if (certificate != NULL) {
        return MHD_start_daemon(flags | MHD_USE_TLS, ntohs(port), NULL, NULL, handler, handlerContext,
                                KURONEKO_DAEMON_OPTIONS,
                                MHD_OPTION_HTTPS_CERT_CALLBACK, certificate,
                                MHD_OPTION_HTTPS_PRIORITIES, priorities,
                                MHD_OPTION_END);
    }
    return MHD_start_daemon(flags, ntohs(port), NULL, NULL, handler, handlerContext, KURONEKO_DAEMON_OPTIONS,
                            MHD_OPTION_END);
}

/// gnutls_free is a variable holding a function: called through here.
static inline void kuroneko_gnutls_free(void *pointer) {
    gnutls_free(pointer);
}

/// Whether this libmicrohttpd was built with TLS and the per-handshake certificate callback.
static inline int kuroneko_tls_supported(void) {
    return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES
           && MHD_is_feature_supported(MHD_FEATURE_HTTPS_CERT_CALLBACK) == MHD_YES;
}

/// A number naming the client's address (IPv4 address, or a folded IPv6 address); 0 when unknown.
static inline uint64_t kuroneko_client_key(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return 0;
    if (info->client_addr->sa_family == AF_INET) {
        return 1 + (uint64_t)((const struct sockaddr_in *)info->client_addr)->sin_addr.s_addr;
    }
    if (info->client_addr->sa_family == AF_INET6) {
        const uint8_t *bytes = ((const struct sockaddr_in6 *)info->client_addr)->sin6_addr.s6_addr;
        uint64_t high = 0, low = 0;
        for (int index = 0; index < 8; index++) high = (high << 8) | bytes[index];
        for (int index = 8; index < 16; index++) low = (low << 8) | bytes[index];
        return (high ^ low) | ((uint64_t)1 << 63);
    }
    return 0;
}

/// The port a daemon listens on, once started (useful when it was asked for port 0).
static inline uint16_t kuroneko_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

/// The per-connection pointer set in the connection callback (Kuroneko keeps its OpenConnection there).
static inline void *kuroneko_connection_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// The connection's socket, or -1. Valid while the connection is open; a suspended connection stays open.
static inline int kuroneko_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

/// 1 when the client has closed its end of the socket (or the socket failed), else 0; never waits.
/// libmicrohttpd does not watch a suspended connection, so the server asks this while a request waits.
static inline int kuroneko_peer_closed(int socket) {
    if (socket < 0) return 0;
    struct pollfd entry = {.fd = socket, .events = POLLRDHUP, .revents = 0};
    if (poll(&entry, 1, 0) <= 0) return 0;
    return (entry.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

#endif
