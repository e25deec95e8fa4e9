/// What an application answers a request with: a response now (on the server's own thread, no task), or
/// work that must wait (run in a task while the connection is suspended).
public enum HTTPAnswer: Sendable {
    case now(HTTPResponse)
    case later(@Sendable () async -> HTTPResponse)
}

/// Anything the HTTP adapter can serve.
public protocol HTTPApplication: Sendable {
    func answer(_ request: HTTPRequest) -> HTTPAnswer
    /// Who sends a body larger than the anonymous allowance, judged from the request's head (its body empty)
    /// before any byte of that body is read. By default everyone is known.
    func sender(of head: HTTPRequest) -> BodySender
}

extension HTTPApplication {
    public func sender(of head: HTTPRequest) -> BodySender { .known }
}

extension HTTPResponder {
    /// A responder answers at once when it can, else later.
    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        if let response = immediateResponse(to: request) { return .now(response) }
        return .later { await respond(to: request) }
    }
}

/// A concern that applies to every request (request ids, the access log, metrics, CORS, conditional
/// requests, compression). Both steps are synchronous, so the answer-at-once path runs them without a task.
public protocol HTTPMiddleware: Sendable {
    /// Runs before the application, outermost first; may change the request, or answer it instead.
    func intercept(_ request: inout HTTPRequest) -> HTTPResponse?
    /// Runs on every response on its way out, innermost first (also on one `intercept` gave).
    func finish(_ request: HTTPRequest, _ response: inout HTTPResponse)
    /// Who sends a large body, from the request's head alone; `nil` when this layer has nothing to say.
    func sender(of head: HTTPRequest) -> BodySender?
}

extension HTTPMiddleware {
    public func intercept(_ request: inout HTTPRequest) -> HTTPResponse? { nil }
    public func finish(_ request: HTTPRequest, _ response: inout HTTPResponse) {}
    public func sender(of head: HTTPRequest) -> BodySender? { nil }
}

/// An application wrapped in middleware, composed in one place.
public struct MiddlewareStack<Application: HTTPResponder>: HTTPApplication {
    /// Outermost first.
    public let middleware: [any HTTPMiddleware]
    public let application: Application

    public init(_ middleware: [any HTTPMiddleware], around application: Application) {
        self.middleware = middleware
        self.application = application
    }

    public func answer(_ request: HTTPRequest) -> HTTPAnswer {
        var request = request
        let refusal = middleware.withUnsafeBufferPointer { layers -> (response: HTTPResponse, index: Int)? in
            // Through the buffer rather than `for layer in`, which copies each existential (and retains what it
            // holds) on every request.
            for index in layers.indices {
                if let response = layers[index].intercept(&request) { return (response, index) }
            }
            return nil
        }
        if var refusal {
            finish(request, &refusal.response, from: refusal.index)
            return .now(refusal.response)
        }
        if var response = application.immediateResponse(to: request) {
            finish(request, &response, from: middleware.count - 1)
            return .now(response)
        }
        let prepared = request
        return .later {
            var response = await application.respond(to: prepared)
            finish(prepared, &response, from: middleware.count - 1)
            return response
        }
    }

    /// The first layer's word on who sends a large body; known when no layer has one.
    public func sender(of head: HTTPRequest) -> BodySender {
        for layer in middleware {
            if let sender = layer.sender(of: head) { return sender }
        }
        return .known
    }

    /// In-process use (tests): the same path the adapter takes.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        switch answer(request) {
        case .now(let response): response
        case .later(let work): await work()
        }
    }

    private func finish(_ request: HTTPRequest, _ response: inout HTTPResponse, from index: Int) {
        middleware.withUnsafeBufferPointer { layers in
            var index = min(index, layers.count - 1)
            while index >= 0 {
                layers[index].finish(request, &response)
                index -= 1
            }
        }
    }
}
