#ifndef KURONEKO_CMICROHTTPD_SHIM_H
#define KURONEKO_CMICROHTTPD_SHIM_H

#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

/// Starts a daemon with the options Kuroneko's servers use; MHD_start_daemon itself is variadic.
/// `address` is the IPv4 address to listen on, with its port (0 picks a free one).
static inline struct MHD_Daemon *kuroneko_start_daemon(
    unsigned int flags, const struct sockaddr_in *address, unsigned int threads, unsigned int timeoutSeconds,
    unsigned int connectionsPerAddress, size_t connectionMemoryLimit, MHD_AccessHandlerCallback handler,
    void *handlerContext, MHD_RequestCompletedCallback completed, void *completedContext) {
    return MHD_start_daemon(flags, ntohs(address->sin_port), NULL, NULL, handler, handlerContext,
                            MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeoutSeconds,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, connectionsPerAddress,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, connectionMemoryLimit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completedContext,
                            MHD_OPTION_END);
}

/// The port a daemon listens on, once started (useful when it was asked for port 0).
static inline uint16_t kuroneko_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
