import Foundation
import Synchronization

/// A stand-in for LINE's Messaging API, written from its documented shapes (`../shared/notes/line-messaging-api.md`):
/// the bearer token checked (401 with LINE's words), JSON bodies of at most 2 MB (413) with 1 to 5 messages of at
/// most 5,000 UTF-16 code units (400 naming the property), push to one `U…`/`C…`/`R…` ID, multicast to 1–500 user IDs,
/// broadcast to every friend; `X-Line-Retry-Key` (a UUID, else 400) remembered: a key already accepted is answered
/// 409 with `x-line-accepted-request-id`; the month's quota and consumption, each message costing one per recipient,
/// and 429 "You have reached your monthly limit." past it; followers insight for broadcasts.
final class LineStandIn: Sendable {
    struct Message: Sendable {
        let endpoint: String
        let to: [String]
        let text: String
        let retryKey: String?
    }

    struct State: Sendable {
        var limit: Int? = 200
        var used = 0
        var friends = 3
        /// Accepted retry keys and the request id that took each.
        var keys: [String: String] = [:]
        var accepted: [Message] = []
        /// Take the next message, then drop the connection without an answer.
        var loseNextAnswer = false
        /// Answer sends "monthly limit" whatever the quota says (LINE does while a narrowcast reserves messages).
        var refuseMonthly = false
        /// Answer this many sends with the rate limit's 429.
        var rateLimited = 0
        var nextRequestID = 1
    }

    /// The stand-in's memory, shared with the server's threads.
    final class Memory: Sendable {
        let state = Mutex(State())
    }

    let token: String
    let memory = Memory()

    /// Reads or changes the stand-in's state.
    func change<T>(_ body: (inout State) -> T) -> T { memory.state.withLock { body(&$0) } }
    private let server: FakeUpstream

    var origin: URL { URL(string: "http://127.0.0.1:\(server.port)")! }
    var accepted: [Message] { memory.state.withLock { $0.accepted } }
    var requests: [FakeUpstream.Request] { server.requests }

    init(token: String = "line-token-good") throws {
        self.token = token
        let memory = self.memory
        server = try FakeUpstream(concurrent: true) { request in Self.answer(request, token: token, memory: memory) }
    }

    func stop() { server.stop() }

    private static func json(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> FakeUpstream.Response {
        let body = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return FakeUpstream.Response(status: status, contentType: "application/json", body: body, headers: headers)
    }

    private static func error(_ status: Int, _ message: String, property: String? = nil) -> FakeUpstream.Response {
        var object: [String: Any] = ["message": message]
        if let property { object["details"] = [["message": "Length must be between 0 and 5000", "property": property]] }
        return json(status, object)
    }

    static func answer(_ request: FakeUpstream.Request, token: String, memory: Memory) -> FakeUpstream.Response {
        let state = memory
        guard let authorization = request.headers["authorization"] else {
            return error(
                401, "Authorization header required. Must follow the scheme, 'Authorization: Bearer <ACCESS TOKEN>'")
        }
        guard authorization == "Bearer " + token else {
            return error(401, "Authentication failed. Confirm that the access token in the authorization header is valid.")
        }
        let path = request.path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.path
        switch (request.method, path) {
        case ("GET", "/v2/bot/message/quota"):
            return json(200, state.state.withLock { $0.limit.map { ["type": "limited", "value": $0] } ?? ["type": "none"] })
        case ("GET", "/v2/bot/message/quota/consumption"):
            return json(200, ["totalUsage": state.state.withLock { $0.used }])
        case ("GET", "/v2/bot/insight/followers"):
            guard request.path.contains("date=") else { return error(400, "The request body has 1 error(s)") }
            let friends = state.state.withLock { $0.friends }
            return json(200, ["status": "ready", "followers": friends + 1, "targetedReaches": friends, "blocks": 1])
        case ("POST", "/v2/bot/message/push"), ("POST", "/v2/bot/message/multicast"),
            ("POST", "/v2/bot/message/broadcast"):
            return send(request, endpoint: String(path.split(separator: "/").last ?? ""), memory: memory)
        default:
            return error(404, "Not found")
        }
    }

    private static func send(_ request: FakeUpstream.Request, endpoint: String, memory: Memory)
        -> FakeUpstream.Response
    {
        let state = memory
        guard request.headers["content-type"]?.hasPrefix("application/json") == true else {
            return error(400, "The content type, \(request.headers["content-type"] ?? "none"), is not supported")
        }
        guard request.body.count <= 2 << 20 else { return error(413, "Request Entity Too Large") }
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any] else {
            return error(400, "The request body could not be parsed as JSON (line: 1, column: 1)")
        }
        guard let messages = object["messages"] as? [[String: Any]], (1...5).contains(messages.count) else {
            return error(400, "The property, messages, in the request body is invalid (line: -, column: -)")
        }
        var texts: [String] = []
        for (index, message) in messages.enumerated() {
            guard message["type"] as? String == "text", let text = message["text"] as? String, !text.isEmpty else {
                return error(400, "The request body has 1 error(s)", property: "messages[\(index)].text")
            }
            guard text.utf16.count <= 5_000 else {
                return error(400, "The request body has 1 error(s)", property: "messages[\(index)].text")
            }
            texts.append(text)
        }
        let id = /[UCR][0-9a-f]{32}/
        var to: [String] = []
        switch endpoint {
        case "push":
            guard let one = object["to"] as? String, one.wholeMatch(of: id) != nil else {
                return error(400, "The property, to, in the request body is invalid (line: -, column: -)")
            }
            to = [one]
        case "multicast":
            guard let list = object["to"] as? [String], (1...500).contains(list.count),
                list.allSatisfy({ $0.hasPrefix("U") && $0.wholeMatch(of: id) != nil })
            else { return error(400, "The property, to[0], in the request body is invalid (line: -, column: -)") }
            to = list
        default:
            guard object["to"] == nil else { return error(400, "The property, to, in the request body is invalid") }
        }
        let key = request.headers["x-line-retry-key"]
        if let key, UUID(uuidString: key) == nil {
            return error(400, "The value of the X-Line-Retry-Key header is invalid")
        }
        return state.state.withLock { state -> FakeUpstream.Response in
            let requestID = "req-\(state.nextRequestID)"
            state.nextRequestID += 1
            if let key, let first = state.keys[key] {
                return json(
                    409, ["message": "The retry key is already accepted"],
                    headers: ["X-Line-Request-Id": requestID, "X-Line-Accepted-Request-Id": first])
            }
            if state.rateLimited > 0 {
                state.rateLimited -= 1
                return error(429, "The API rate limit has been exceeded. Try again later.")
            }
            let cost = endpoint == "broadcast" ? state.friends : to.count
            if state.refuseMonthly || state.limit.map({ state.used + cost > $0 }) == true {
                return error(429, "You have reached your monthly limit.")
            }
            state.used += cost
            if let key { state.keys[key] = requestID }
            state.accepted.append(Message(endpoint: endpoint, to: to, text: texts.joined(separator: "\n"), retryKey: key))
            if state.loseNextAnswer {
                state.loseNextAnswer = false
                var lost = json(200, [:])
                lost.dropConnection = true
                return lost
            }
            let body: Any = endpoint == "push" ? ["sentMessages": [["id": "46123096684206\(state.nextRequestID)"]]] : [:]
            return json(200, body, headers: ["X-Line-Request-Id": requestID])
        }
    }
}
