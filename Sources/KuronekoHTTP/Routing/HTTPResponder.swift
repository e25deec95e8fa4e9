/// The application behind an HTTP adapter: a request in, a response out.
public protocol HTTPResponder: HTTPApplication {
    /// The answer, if it can be given without waiting (a cache hit): the adapter then replies on its own
    /// thread without suspending the connection. `nil` sends the request to ``respond(to:)``.
    func immediateResponse(to request: HTTPRequest) -> HTTPResponse?

    func respond(to request: HTTPRequest) async -> HTTPResponse
}

extension HTTPResponder {
    public func immediateResponse(to request: HTTPRequest) -> HTTPResponse? { nil }
}
