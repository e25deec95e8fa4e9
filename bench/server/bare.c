/* The floor for a cached GET: libmicrohttpd with the same threading as `kuroneko serve` (a pool of 2 on
 * epoll), answering every request with the same 1.5 KB JSON body from memory. No routing, no cache, no log.
 * With `api-headers` after the port, each response also carries the six further headers a cache hit of the
 * API sends (X-Cache, Cache-Control, Age, ETag, Vary, X-Request-ID) and its body is copied, as the Swift
 * adapter does: what libmicrohttpd itself spends on the API's response. Built and run by
 * bench/scheduler-compare.sh and bench/layers.sh. Usage: bare [PORT [api-headers]] */
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char body[1536];
static int api_headers;

static enum MHD_Result answer(void *context, struct MHD_Connection *connection, const char *url,
                              const char *method, const char *version, const char *upload, size_t *upload_size,
                              void **request) {
    (void)context; (void)url; (void)method; (void)version; (void)upload; (void)upload_size;
    if (*request == NULL) { /* headers only: come back when the request is complete */
        *request = body;
        return MHD_YES;
    }
    struct MHD_Response *response = MHD_create_response_from_buffer(
        sizeof body - 1, body, api_headers ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");
    if (api_headers) {
        MHD_add_response_header(response, "X-Cache", "hit");
        MHD_add_response_header(response, "Cache-Control", "max-age=86399");
        MHD_add_response_header(response, "Age", "0");
        MHD_add_response_header(response, "ETag", "\"93c2651d3071cfff\"");
        MHD_add_response_header(response, "Vary", "Accept-Encoding");
        MHD_add_response_header(response, "X-Request-ID", "7ff1257b-1");
    }
    enum MHD_Result queued = MHD_queue_response(connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    return queued;
}

int main(int argc, char **argv) {
    unsigned short port = argc > 1 ? (unsigned short)atoi(argv[1]) : 18090;
    api_headers = argc > 2 && strcmp(argv[2], "api-headers") == 0;
    memset(body, ' ', sizeof body - 1);
    body[0] = '{';
    body[sizeof body - 2] = '}';
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, port, NULL, NULL, answer, NULL,
        MHD_OPTION_THREAD_POOL_SIZE, 2u, MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_END);
    if (daemon == NULL) { fprintf(stderr, "bare: cannot listen on %u\n", port); return 1; }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    sigprocmask(SIG_BLOCK, &signals, NULL);
    int received;
    sigwait(&signals, &received);
    MHD_stop_daemon(daemon);
    return 0;
}
