import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default transport: URLSession (libcurl on Linux), without cookies or caching.
public final class URLSessionTransport: HTTPTransport {
    private let session: URLSession

    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    public func send(_ request: UpstreamRequest) async throws -> UpstreamResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval = request.timeout / .seconds(1)
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.translate(error, url: request.url))
                    } else if let http = response as? HTTPURLResponse {
                        var headers: [String: String] = [:]
                        for case let (name as String, value as String) in http.allHeaderFields {
                            headers[name] = value
                        }
                        continuation.resume(
                            returning: UpstreamResponse(status: http.statusCode, headers: headers, body: data ?? Data())
                        )
                    } else {
                        continuation.resume(
                            throwing: TransportError(.other, "\(request.url) answered something that is not HTTP"))
                    }
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }

    private static func translate(_ error: any Error, url: URL) -> any Error {
        guard let urlError = error as? URLError else {
            return TransportError(.other, "request to \(url) failed: \(error.localizedDescription)")
        }
        switch urlError.code {
        case .cancelled:
            return CancellationError()
        case .timedOut:
            return TransportError(.timeout, "\(url) did not answer within the request timeout")
        case .cannotConnectToHost, .cannotFindHost, .networkConnectionLost, .notConnectedToInternet,
            .dnsLookupFailed, .resourceUnavailable:
            return TransportError(.connection, "cannot reach \(url): \(urlError.localizedDescription)")
        default:
            return TransportError(.other, "request to \(url) failed: \(urlError.localizedDescription)")
        }
    }
}

/// Lets the cancellation handler reach a task that may not have been created yet.
///
/// `@unchecked Sendable`: both fields are only touched under `lock`.
private final class TaskBox: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    func start(_ task: URLSessionDataTask) {
        lock.lock()
        self.task = task
        let alreadyCancelled = cancelled
        lock.unlock()
        if alreadyCancelled { task.cancel() }
        task.resume()
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
