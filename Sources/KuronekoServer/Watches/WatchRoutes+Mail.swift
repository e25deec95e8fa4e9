import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// `POST /v1/watches/from-mail`: a saved shipping mail (the `.eml` a phone or mail program saves) in the body;
/// every parcel it holds is watched for the caller, labelled with the shop and the order.
extension WatchRoutes {
    /// The route's path, which takes a larger body than the others.
    public static let mailPath = "/v1/watches/from-mail"
    /// The largest mail taken.
    public static let mailBytes = 4 << 20

    func registerMail(into router: inout Router) {
        let routes = self
        router.add("POST", Self.mailPath) { request, _ in
            await routes.answer(request) { try await routes.addFromMail(request) }
        }
    }

    /// → 200 `{"message_id", "subject", "no_trackable", "more_parcels", "parcels": [{"number", "carrier", "shop", "order",
    /// "evidence", "status", "watch" | "detail", "reason"}]}`: 201 added, 200 already watched, else the refusal.
    func addFromMail(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard !request.body.isEmpty else {
            throw RouteProblem.bad("the body is empty; send the saved mail (.eml) itself, as message/rfc822")
        }
        guard request.body.count <= Self.mailBytes else {
            throw RouteProblem.bad("the mail is \(request.body.count) bytes; at most \(Self.mailBytes) are read")
        }
        // One message: the first of an mbox.
        var limits = MailLimits()
        limits.messageBytes = Self.mailBytes
        let body = request.body
        let mail: ShippingMail
        do {
            mail = try await mailLanes.run { [limits] in ShippingMailReader.read(Mailbox.firstMessage(in: body), limits: limits) }
        } catch {
            throw RouteProblem.busy("\(error)")
        }
        let owner = Self.owner(of: request)
        let source = try JSONSerialization.data(
            withJSONObject: WatchSource.object(of: mail, mailbox: nil), options: [.sortedKeys])
        var parcels: [[String: Any]] = []
        for parcel in mail.parcels.prefix(Self.bulkLimit) {
            var entry: [String: Any] = [
                "number": parcel.number.digits, "carrier": parcel.carrier?.rawValue ?? NSNull(),
                "shop": parcel.shop ?? NSNull(), "order": parcel.order ?? NSNull(),
                "evidence": parcel.evidence.map(\.rawValue),
            ]
            do {
                let added = try await addOne(
                    AddWatchRequest(
                        number: parcel.number.digits, carrier: parcel.carrier, label: Self.mailLabel(parcel)),
                    owner: owner)
                try await store.setWatchSource(parcel.number, owner: owner, source: source)
                let watch = try await store.watch(parcel.number, owner: owner).map { Self.json($0) } ?? added.body
                entry["status"] = added.status
                entry["watch"] = try JSONSerialization.jsonObject(with: watch)
            } catch let error where error is RouteProblem || error is WatchStoreError {
                let problem = RouteProblem(error, requestID: nil)
                entry["status"] = problem.status
                entry["detail"] = problem.detail
                entry["reason"] = problem.reason ?? ""
            }
            parcels.append(entry)
        }
        let object: [String: Any] = [
            "message_id": mail.messageID.map { String($0.prefix(300)) } ?? NSNull(),
            "subject": String(mail.subject.prefix(300)), "no_trackable": mail.deliveredWithoutNumber ?? NSNull(),
            "more_parcels": mail.moreThanLimit, "parcels": parcels,
        ]
        var response = HTTPResponse.jsonData(
            try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }

    /// The shop and the order number, as a label (control characters made spaces, at most 60 characters).
    public static func mailLabel(_ parcel: FoundParcel) -> String? {
        let text = [parcel.shop, parcel.order].compactMap { $0 }.joined(separator: " ")
        let plain = String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.properties.generalCategory {
                    case .control, .lineSeparator, .paragraphSeparator, .format: " "
                    default: scalar
                    }
                }))
        return try? WatchLabel.validated(String(plain.prefix(60)))
    }
}

extension AddWatchRequest {
    init(number: String, carrier: Carrier?, label: String?) {
        self.number = number
        self.carrier = carrier
        self.label = label
        webhookURL = nil
    }
}

/// The mail a watch came from, as the API shows it.
enum WatchSource {
    static func object(of mail: ShippingMail, mailbox: String?) -> [String: Any] {
        [
            "from": mail.from.map { String($0.prefix(200)) } ?? NSNull(), "subject": String(mail.subject.prefix(200)),
            "date": mail.date.map { String($0.prefix(100)) } ?? NSNull(), "mailbox": mailbox ?? NSNull(),
        ]
    }
}
