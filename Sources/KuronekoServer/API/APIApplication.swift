import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoWebApp

/// The API as it is served: ``APIResponder`` inside the middleware, composed here and nowhere else, so the
/// server and the in-process tests run the same stack.
public enum APIApplication {
    /// - Parameters:
    ///   - corsOrigins: origins allowed to call the API from a browser (`*` for any); empty: no CORS headers.
    ///   - log: where access-log lines go; `nil` logs nothing. `logFormat`: text or JSON lines.
    ///   - watches: the watch list's routes; `keys`: API keys for every `/v1` route; `webApp`: the dashboard.
    ///   - trustedProxies: reverse proxies whose `X-Forwarded-For` names the client (``ClientAddress/key(_:)``).
    public static func make(
        service: ShipmentService, metrics: Metrics, httpMetrics: HTTPMetrics, clock: any TrackingClock,
        corsOrigins: [String] = [], log: (any LogSink)?, logFormat: LogFormat = .text, watches: WatchRoutes? = nil, keys: APIKeyMiddleware? = nil,
        webApp: WebApp? = nil, pageWatch: PageWatch? = nil, mailbox: MailboxReader? = nil, moreMetrics: (@Sendable (MetricsRegistry) async -> Void)? = nil,
        gate: SessionGate? = nil, trustedProxies: Set<UInt64> = [], services: ServiceStates? = nil
    ) -> MiddlewareStack<APIResponder> {
        var middleware: [any HTTPMiddleware] = [RequestIDMiddleware()]
        // First, so that every later layer sees the client behind a trusted proxy.
        if !trustedProxies.isEmpty { middleware.insert(ForwardedClientMiddleware(trustedProxies: trustedProxies), at: 0) }
        if let log { middleware.append(AccessLogMiddleware(sink: log, format: logFormat)) }
        middleware.append(MetricsMiddleware(httpMetrics))
        if !corsOrigins.isEmpty { middleware.append(CORSMiddleware(origins: corsOrigins)) }
        if let keys { middleware.append(keys) }
        middleware += [CompressionMiddleware(), ConditionalRequestMiddleware()]
        return MiddlewareStack(
            middleware,
            around: APIResponder(
                service: service, metrics: metrics, httpMetrics: httpMetrics, clock: clock, watches: watches,
                webApp: webApp, pageWatch: pageWatch, mailbox: mailbox, moreMetrics: moreMetrics, gate: gate,
                services: services))
    }
}
