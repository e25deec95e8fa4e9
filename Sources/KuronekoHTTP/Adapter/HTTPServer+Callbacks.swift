import CMicroHTTPD
import Foundation
import Synchronization

// libmicrohttpd's callbacks. They are global functions, not closures in main.swift, so that they are not
// main-actor code: libmicrohttpd calls them on its worker threads.

/// Marks a request whose headers passed the framing checks and that has no state of its own: most requests
/// (no body, answered at once) never need a ``ReceivedRequestState``, so none is allocated for them.
nonisolated(unsafe) private let headersChecked = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

/// The access handler: called once when the headers arrive, once per chunk of body, and once more (and once
/// after each resume) when the request is complete.
func handleRequest(
    serverContext: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>?, requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let serverContext, let connection, let requestSlot, let uploadSize else { return .NO }
    let server = Unmanaged<ServerState>.fromOpaque(serverContext).takeUnretainedValue()
    guard let slot = requestSlot.pointee else {
        // The first call: only the headers are in. Only the fields that frame the body are read now.
        server.begin()
        requestSlot.pointee = headersChecked
        let path =
            url.map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) }
            ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let framing = headerFields(of: connection, framingOnly: true)
        if let refusal = RequestFraming.refusal(
            headers: framing, path: path,
            maxBodyBytes: server.maxBodyBytes(for: url),
            requestLineIntact: requestLineIntact(connection: connection, target: url, version: version),
            version: version.map { String(cString: $0) } ?? "")
        {
            let context = ReceivedRequestState()
            context.refused = true
            requestSlot.pointee = Unmanaged.passRetained(context).toOpaque()
            return queue(refusal, on: connection)
        }
        // A body within the anonymous allowance is read for anyone; a larger one (or one of unknown length) only
        // for a caller the head names, within the server's budget, before a byte of it is read.
        let declared = RequestFraming.declaredLength(framing)
        if let declared, declared <= server.anonymousBodyBytes { return .YES }
        let context = ReceivedRequestState()
        requestSlot.pointee = Unmanaged.passRetained(context).toOpaque()
        return admitLargeBody(
            declared: declared, context: context, server: server, connection: connection, url: url, method: method)
    }
    var context: ReceivedRequestState?
    if slot != headersChecked {
        context = Unmanaged<ReceivedRequestState>.fromOpaque(slot).takeUnretainedValue()
    }
    if let context, context.refused {
        // Answered already; whatever body follows is dropped with the connection.
        uploadSize.pointee = 0
        return .YES
    }
    if uploadSize.pointee > 0 {
        let receiving = context ?? ReceivedRequestState()
        if context == nil { requestSlot.pointee = Unmanaged.passRetained(receiving).toOpaque() }
        receive(uploadData, count: uploadSize.pointee, into: receiving, server: server, url: url)
        uploadSize.pointee = 0
        return .YES
    }
    if let response = context?.response {
        return queue(response, on: connection)
    }
    if let context, context.overAllowance, let refusal = context.strangerRefusal {
        // The chunked body a stranger sent past the allowance has ended, dropped.
        return queue(closing(refusal), on: connection)
    }
    if let context, context.overBudget {
        // A chunked body the budget could not hold has ended, dropped.
        return queue(bodyBudgetRefusal(), on: connection)
    }
    let open = openConnection(connection)
    if let open { server.receiveDeadlines.requestRead(open) }
    if open?.overCap ?? false {
        var response = HTTPResponse.problem(
            status: 503, title: "Service Unavailable",
            detail: "more than \(server.connectionsPerAddress) connections are open from this address; reuse fewer")
        response.headers += [("Retry-After", "1"), ("Connection", "close")]
        return queue(response, on: connection)
    }
    if context?.bodyTooLarge ?? false {
        return queue(
            .problem(
                status: 413, title: "Content Too Large",
                detail: "the request body is larger than \(server.maxBodyBytes(for: url)) bytes",
                reason: "body_too_large"),
            on: connection)
    }
    var request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        query: values(of: connection, kind: .GET_ARGUMENT_KIND), lowercasedHeaders: headerFields(of: connection),
        body: context?.body ?? Data())
    request.client = open?.client ?? kuroneko_client_key(connection)
    let work: @Sendable () async -> HTTPResponse
    switch server.application.answer(request) {
    case .now(let response):
        return queue(response, on: connection)
    case .later(let later):
        work = later
    }
    // The answer comes later, from a task: it is kept in a context until libmicrohttpd asks for it.
    let waiting = context ?? ReceivedRequestState()
    if context == nil { requestSlot.pointee = Unmanaged.passRetained(waiting).toOpaque() }
    // Suspend before the work starts: a resume that arrives before the suspend would be lost.
    let socket = kuroneko_connection_socket(connection)
    server.adjustSuspended(by: 1)
    MHD_suspend_connection(connection)
    let connectionAddress = UInt(bitPattern: connection)
    Task {
        waiting.response = await respond(with: work, cancellingWhenClosed: socket, server: server)
        MHD_resume_connection(OpaquePointer(bitPattern: connectionAddress))
        server.adjustSuspended(by: -1)
    }
    return .YES
}

/// The head of a request whose body is larger than the anonymous allowance, or chunked (`declared` nil): a
/// stranger's is refused at once (a chunked one when it ends, its bytes dropped past the allowance); a known
/// caller's reserves its size from the server's budget, or is answered 503 when it does not fit.
private func admitLargeBody(
    declared: Int?, context: ReceivedRequestState, server: ServerState, connection: OpaquePointer,
    url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?
) -> MHD_Result {
    var head = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        query: [], lowercasedHeaders: headerFields(of: connection), body: Data())
    head.client = openConnection(connection)?.client ?? kuroneko_client_key(connection)
    let sender = server.application.sender(of: head)
    switch sender {
    case .stranger(let refusal):
        guard declared == nil else {
            context.refused = true
            return queue(closing(refusal), on: connection)
        }
        context.bodyLimit = server.anonymousBodyBytes
        context.strangerRefusal = refusal
        return .YES
    case .known, .unconfirmed:
        if case .unconfirmed = sender { context.unconfirmed = true }
        guard let declared else { return .YES }
        guard server.bodyBudget.reserve(declared, unconfirmed: context.unconfirmed) else {
            context.refused = true
            return queue(bodyBudgetRefusal(), on: connection)
        }
        context.reserved = declared
        // Its size is known: one allocation, never grown (and so never held twice while it is copied).
        context.body.reserveCapacity(declared)
        return .YES
    }
}

/// A chunk of body: kept while it is within the request's limit (and, past the anonymous allowance, within what
/// the budget gives it, reserved a mebibyte at a time), else dropped and the request marked for its refusal.
private func receive(
    _ data: UnsafePointer<CChar>?, count: Int, into context: ReceivedRequestState, server: ServerState,
    url: UnsafePointer<CChar>?
) {
    let size = context.body.count + count
    if size > (context.bodyLimit ?? server.maxBodyBytes(for: url)) {
        if context.strangerRefusal == nil { context.bodyTooLarge = true } else { context.overAllowance = true }
        return
    }
    if context.overBudget || context.bodyTooLarge || context.overAllowance { return }
    if size > server.anonymousBodyBytes, size > context.reserved {
        let step = max(size - context.reserved, 1 << 20)
        guard server.bodyBudget.reserve(step, unconfirmed: context.unconfirmed) else {
            context.overBudget = true
            return
        }
        context.reserved += step
    }
    guard let data else { return }
    context.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: count)
}

/// The answer when the bytes of large bodies in flight are at the server's limit.
private func bodyBudgetRefusal() -> HTTPResponse {
    var response = HTTPResponse.problem(
        status: 503, title: "Service Unavailable",
        detail: "the server is reading as many large request bodies as it holds at once; send this one again shortly",
        reason: "body_budget")
    response.headers += [("Retry-After", "2"), ("Connection", "close")]
    return response
}

/// The answer with `Connection: close`: what follows it on the connection is not read.
private func closing(_ response: HTTPResponse) -> HTTPResponse {
    var response = response
    if !response.headers.contains(where: { $0.0.lowercased() == "connection" }) {
        response.headers.append(("Connection", "close"))
    }
    return response
}

/// How often a waiting request's socket is checked for the client having gone away, and for the server's
/// drain deadline having passed.
private let disconnectCheckInterval = Duration.milliseconds(200)

/// The work's answer. If the client closes its socket first, the work's task is cancelled (so its lookups
/// leave the upstream queue) and its answer, which nobody will read, is awaited. If the server's drain
/// deadline passes first, the work is cancelled and a 503 answered at once, without waiting for it, so that
/// no connection stays suspended when the daemon stops. The watcher ends before this returns (at worst it
/// has polled a descriptor in the instant the answer came, which reads nothing).
private func respond(
    with body: @escaping @Sendable () async -> HTTPResponse, cancellingWhenClosed socket: Int32, server: ServerState
) async -> HTTPResponse {
    let work = Task { await body() }
    let answer = FirstAnswer()
    return await withCheckedContinuation { (continuation: CheckedContinuation<HTTPResponse, Never>) in
        answer.start(continuation)
        Task { answer.give(await work.value) }
        Task {
            while !answer.isGiven {
                try? await Task.sleep(for: disconnectCheckInterval)
                if answer.isGiven { return }
                if server.isForcingStop {
                    work.cancel()
                    var response = HTTPResponse.problem(
                        status: 503, title: "Service Unavailable",
                        detail: "the server is stopping and could not finish this request in time; ask again")
                    response.headers += [("Retry-After", "1"), ("Connection", "close")]
                    answer.give(response)
                    return
                }
                if kuroneko_peer_closed(socket) != 0 {
                    work.cancel()
                    return
                }
            }
        }
    }
}

/// The first of several answers to one request; later ones are dropped.
private final class FirstAnswer: Sendable {
    private let state = Mutex<(continuation: CheckedContinuation<HTTPResponse, Never>?, given: Bool)>((nil, false))

    func start(_ continuation: CheckedContinuation<HTTPResponse, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    var isGiven: Bool { state.withLock { $0.given } }

    func give(_ response: HTTPResponse) {
        let continuation = state.withLock { state -> CheckedContinuation<HTTPResponse, Never>? in
            guard !state.given else { return nil }
            state.given = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: response)
    }
}

/// Called when the request line has been read, with the target as it arrived: notes where it is kept and
/// its length up to the first NUL byte (or that it holds a raw control character), for
/// ``requestLineIntact(connection:target:version:)``. Returns no per-request context.
func requestTargetRead(
    serverContext: UnsafeMutableRawPointer?, target: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let target, let connection, let open = openConnection(connection) else { return nil }
    let length = strlen(target)
    var start = UInt(bitPattern: target)
    for index in 0..<length {
        let byte = UInt8(bitPattern: target[index])
        if byte < 0x20 || byte == 0x7F {
            start = .max
            break
        }
    }
    open.rawTarget.store(start, ordering: .relaxed)
    open.rawTargetLength.store(length, ordering: .relaxed)
    return nil
}

/// Whether the request line reached the server whole. libmicrohttpd keeps the target and the version
/// side by side, the version one byte after the target's end; a NUL byte inside the target makes the
/// target (as a C string) end earlier than that. When the layout is not the one expected, nothing is
/// concluded.
private func requestLineIntact(
    connection: OpaquePointer, target: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?
) -> Bool {
    guard let open = openConnection(connection), let target, let version, version.pointee != 0 else { return true }
    let start = open.rawTarget.load(ordering: .relaxed)
    if start == .max { return false }
    guard start == UInt(bitPattern: target) else { return true }
    return UInt(bitPattern: version) == start &+ UInt(open.rawTargetLength.load(ordering: .relaxed)) &+ 1
}

/// Called when a request ends for any reason (answered, aborted, timed out, shut down): frees its context.
func requestCompleted(
    serverContext: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestSlot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode
) {
    guard let serverContext, let requestSlot, let slot = requestSlot.pointee else { return }
    let server = Unmanaged<ServerState>.fromOpaque(serverContext).takeUnretainedValue()
    if let connection, let open = openConnection(connection) {
        server.receiveDeadlines.requestEnded(open)
    }
    if slot != headersChecked {
        let context = Unmanaged<ReceivedRequestState>.fromOpaque(slot)
        let reserved = context.takeUnretainedValue()
        server.bodyBudget.release(reserved.reserved, unconfirmed: reserved.unconfirmed)
        reserved.reserved = 0
        context.release()
    }
    requestSlot.pointee = nil
    Unmanaged<ServerState>.fromOpaque(serverContext).takeUnretainedValue().end()
}

/// Called when a connection opens or closes: keeps the connection's ``OpenConnection`` as its socket
/// context (retained from open to close), the count of open connections per client address, and marks a
/// connection that opened beyond the cap, whose requests are then all answered 503. Marking at open time
/// keeps the earlier connections usable whatever order the closes are seen in.
func connectionChanged(
    serverContext: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_ConnectionNotificationCode
) {
    guard let serverContext, let connection, let socketContext else { return }
    let server = Unmanaged<ServerState>.fromOpaque(serverContext).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let client = kuroneko_client_key(connection)
        let open = OpenConnection(
            socket: kuroneko_connection_socket(connection), client: client,
            overCap: server.adjustConnections(of: client, by: 1) > server.connectionsPerAddress)
        socketContext.pointee = Unmanaged.passRetained(open).toOpaque()
        server.receiveDeadlines.opened(open)
    case .CONNECTION_NOTIFY_CLOSED:
        guard let context = socketContext.pointee else { return }
        socketContext.pointee = nil
        let open = Unmanaged<OpenConnection>.fromOpaque(context).takeRetainedValue()
        server.receiveDeadlines.closed(open)
        server.adjustConnections(of: open.client, by: -1)
    default: break
    }
}

/// The connection's ``OpenConnection``, while it is open.
private func openConnection(_ connection: OpaquePointer) -> OpenConnection? {
    kuroneko_connection_context(connection).map { Unmanaged<OpenConnection>.fromOpaque($0).takeUnretainedValue() }
}

private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    if let file = response.file {
        // libmicrohttpd owns the descriptor from here: it sends the file and closes it.
        let descriptor = file.take()
        guard descriptor >= 0, let answer = MHD_create_response_from_fd64(file.size, descriptor) else {
            if descriptor >= 0 { close(descriptor) }
            return .NO
        }
        return send(answer, response, on: connection)
    }
    return response.body.withUnsafeBytes { bytes in
        guard
            let answer = MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        else { return .NO }
        return send(answer, response, on: connection)
    }
}

private func send(_ answer: OpaquePointer, _ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    defer { MHD_destroy_response(answer) }
    for (name, value) in response.headers {
        // withCString lends a native string's own bytes; passing the String itself would copy them.
        _ = name.withCString { name in value.withCString { value in MHD_add_response_header(answer, name, value) } }
    }
    return MHD_queue_response(connection, UInt32(response.status), answer)
}

/// The query arguments in order. Most requests have none, which libmicrohttpd can tell without handing any
/// over; the rest are collected into an array on this stack frame (no collector object to allocate).
private func values(of connection: OpaquePointer, kind: MHD_ValueKind) -> [(name: String, value: String)] {
    var values: [(name: String, value: String)] = []
    guard MHD_get_connection_values(connection, kind, nil, nil) > 0 else { return values }
    withUnsafeMutablePointer(to: &values) { pointer in
        _ = MHD_get_connection_values(
            connection, kind,
            { context, _, key, value in
                guard let context, let key else { return .YES }
                context.assumingMemoryBound(to: [(name: String, value: String)].self).pointee.append(
                    (String(cString: key), value.map { String(cString: $0) } ?? ""))
                return .YES
            }, pointer)
    }
    return values
}

/// Header fields by lower-case name; a name that repeats gets its values joined with ", " (RFC 9110,
/// section 5.3), so `Content-Length: 5` twice reads as `5, 5`. With `framingOnly`, only the fields that say
/// how the body is framed (`Content-Length`, `Transfer-Encoding`) and `Host`, read when the headers arrive: nothing is
/// allocated for a request that has neither.
private func headerFields(of connection: OpaquePointer, framingOnly: Bool = false) -> HTTPFields {
    var collected = CollectedFields(framingOnly: framingOnly)
    withUnsafeMutablePointer(to: &collected) { pointer in
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND,
            { context, _, key, value in
                guard let context, let key else { return .YES }
                let collected = context.assumingMemoryBound(to: CollectedFields.self)
                let name = lowercasedASCII(key)
                if collected.pointee.framingOnly, name != "content-length", name != "transfer-encoding",
                    name != "host"
                {
                    return .YES
                }
                collected.pointee.fields.add(name, value.map { String(cString: $0) } ?? "")
                return .YES
            }, pointer)
    }
    return collected.fields
}

/// What ``headerFields(of:framingOnly:)`` collects into, on its stack frame.
private struct CollectedFields {
    var fields = HTTPFields()
    let framingOnly: Bool
}

/// A header name in lower case, copied once (names are ASCII tokens; other bytes are kept as they are).
private func lowercasedASCII(_ name: UnsafePointer<CChar>) -> String {
    let count = strlen(name)
    return String(unsafeUninitializedCapacity: count) { buffer in
        for index in 0..<count {
            let byte = UInt8(bitPattern: name[index])
            buffer[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
        }
        return count
    }
}
