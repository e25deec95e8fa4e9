import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoNotify
import KuronekoStore
import KuronekoCrypto

/// Many watches at once: `POST /v1/watches` with an array (each item answered in order), `POST
/// /v1/watches/remove` (a list of numbers, or every finished watch), and `PATCH /v1/watches/{number}` for a
/// watch's label and webhook.
extension WatchRoutes {
    /// The most items one bulk request may hold.
    static let bulkLimit = 1_000

    func registerBulk(into router: inout Router) {
        let routes = self
        router.add("POST", "/v1/watches/remove", declares: RouteChange(needs: .staff, audit: AuditAction.removedMany)) { request, _ in
            await routes.answer(request) { try await routes.removeMany(request) }
        }
        router.add("PATCH", "/v1/watches/{number}", declares: RouteChange(needs: .staff, audit: AuditAction.edited)) { request, parameters in
            await routes.answer(request) { try await routes.patch(request, parameters) }
        }
    }

    /// `[{"number": …, "label"?, "carrier"?, "webhook_url"?}, …]` → 200 `{"results": [{"index", "number",
    /// "status", "watch"? | "detail"?}, …]}`: 201 added, 200 already watched, else the problem's status.
    func addMany(_ body: Data, owner: WatchOwner) async throws -> HTTPResponse {
        guard let items = try? JSONSerialization.jsonObject(with: body) as? [Any] else {
            throw RouteProblem.bad("the body is not a JSON array of watches such as [{\"number\": \"XXXX-XXXX-XXXX\"}]")
        }
        guard !items.isEmpty, items.count <= Self.bulkLimit else {
            throw RouteProblem.bad("the array holds \(items.count) watches; send 1 to \(Self.bulkLimit) at a time")
        }
        var results = Data(#"{"results":["#.utf8)
        for (index, item) in items.enumerated() {
            if index > 0 { results.append(UInt8(ascii: ",")) }
            let shown = (item as? [String: Any])?["number"] as? String
            var entry = Data(#"{"index":\#(index),"number":"#.utf8)
            WatchJSON.appendString(&entry, shown.map { String($0.prefix(40)) })
            do {
                guard item is [String: Any], let data = try? JSONSerialization.data(withJSONObject: item) else {
                    throw RouteProblem.bad(
                        "item \(index) is not a JSON object such as {\"number\": \"XXXX-XXXX-XXXX\"}")
                }
                let answer = try await addOne(try AddWatchRequest.decode(data), owner: owner)
                entry.append(Data(#","status":\#(answer.status),"watch":"#.utf8))
                entry.append(answer.body)
            } catch let error where error is RouteProblem || error is WatchStoreError || error is ParcelRecordError {
                // A refusal of this item; the others go on. (A store failure fails the whole request.)
                let problem = RouteProblem(error, requestID: nil)
                entry.append(Data(#","status":\#(problem.status),"detail":"#.utf8))
                WatchJSON.appendString(&entry, problem.detail)
                entry.append(Data(#","reason":"#.utf8))
                WatchJSON.appendString(&entry, problem.reason ?? "")
            }
            entry.append(UInt8(ascii: "}"))
            results.append(entry)
        }
        results.append(Data("]}".utf8))
        var response = HTTPResponse.jsonData(results)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// How many of the finished watches removed at once the answer names.
    static let namedRemovals = 100

    /// `{"numbers": [...]}` or `{"finished": true}` → `{"removed": n, "not_watched": [...]}`, and for the finished
    /// the first ``namedRemovals`` numbers removed (`removed_numbers`).
    func removeMany(_ request: HTTPRequest) async throws -> HTTPResponse {
        let owner = Self.owner(of: request)
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            object.count == 1, object["numbers"] != nil || object["finished"] != nil
        else {
            throw RouteProblem.bad("the body is not {\"numbers\": [\"XXXX-XXXX-XXXX\", …]} or {\"finished\": true}")
        }
        let store = self.store
        var numbers: [TrackingNumber] = []
        var notWatched: [String] = []
        if let finished = object["finished"] {
            guard finished as? Bool == true else {
                throw RouteProblem.bad("finished must be true (to remove every finished watch)")
            }
            let removed = try await store.removeFinished(owner: owner)
            // The first of them named (the audit log lists them), not a list as long as the list was.
            return .jsonData(
                Self.object([
                    "removed": removed.count, "not_watched": [String](),
                    "removed_numbers": Array(removed.prefix(Self.namedRemovals)),
                ]))
        } else {
            guard let list = object["numbers"] as? [Any], !list.isEmpty, list.count <= Self.bulkLimit else {
                throw RouteProblem.bad("numbers is not a list of 1 to \(Self.bulkLimit) tracking numbers")
            }
            for (index, item) in list.enumerated() {
                guard let text = item as? String else { throw RouteProblem.bad("numbers[\(index)] is not a string") }
                do {
                    numbers.append(try TrackingNumber(parsing: text))
                } catch {
                    throw RouteProblem.bad("numbers[\(index)]: \(error)", reason: .invalidNumber)
                }
            }
        }
        let removed = try await store.remove(numbers, owner: owner)
        for (number, gone) in zip(numbers, removed) where !gone { notWatched.append(number.digits) }
        return .jsonData(Self.object(["removed": removed.filter { $0 }.count, "not_watched": notWatched]))
    }

    /// `{"label": text|null, "record": {…}, "webhook_url": url|null}` (any of them) → the watch; a new webhook's
    /// secret is in the answer once; the record changes part by part (``ParcelRecordChange``).
    func patch(_ request: HTTPRequest, _ parameters: [String: String]) async throws -> HTTPResponse {
        let watch = try await lookUp(request, parameters)
        guard let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any], !object.isEmpty
        else { throw RouteProblem.bad("the body is not a JSON object such as {\"label\": \"shoes\"}") }
        if let unknown = object.keys.sorted().first(where: { !["label", "record", "webhook_url"].contains($0) }) {
            throw RouteProblem.bad(
                "unknown field \"\(unknown.prefix(40))\"; the fields are label, record and webhook_url")
        }
        var record: ParcelRecordChange?
        if let value = object["record"] {
            do {
                // `"record": null` forgets the whole record.
                record = value is NSNull ? ParcelRecordChange.forgetting : try ParcelRecordChange(json: value)
            } catch {
                throw RouteProblem.bad(error.description, reason: .invalidRecord)
            }
        }
        var label: String??
        if let value = object["label"] {
            if value is NSNull {
                label = .some(nil)
            } else if let text = value as? String {
                do {
                    label = .some(try WatchLabel.validated(text))
                } catch {
                    throw RouteProblem.bad(error.description, reason: .invalidLabel)
                }
            } else {
                throw RouteProblem.bad("label is not a string or null", reason: .invalidLabel)
            }
        }
        var webhook: (url: String, secret: String)??
        if let value = object["webhook_url"] {
            if value is NSNull {
                webhook = .some(nil)
            } else if let text = value as? String {
                try await checkWebhook(text)
                webhook = .some((text, Secrets.random(prefix: "whsec_")))
            } else {
                throw RouteProblem.bad("webhook_url is not a string or null", reason: .invalidWebhook)
            }
        }
        let (store, now, chosenLabel, chosenHook, chosenRecord) = (self.store, clock.now, label, webhook, record)
        guard
            let updated = try await store.update(
                watch.number, owner: watch.owner, label: chosenLabel, record: chosenRecord, webhook: chosenHook,
                now: now)
        else { throw RouteProblem.notFound(watch.number.formatted) }
        var response = HTTPResponse.jsonData(WatchJSON.encode(updated, webhookSecret: chosenHook??.secret))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }
}
