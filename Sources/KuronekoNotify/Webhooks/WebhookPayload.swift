import Foundation
import KuronekoCrypto

/// What a webhook receiver gets for a change: the body and the header that signs it.
///
/// The body is `{"created_at", "id", "previous", "shipment", "type": "shipment.status_changed"}`; the
/// signature `Kuroneko-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body" under the secret>`.
public enum WebhookPayload {
    public static let signatureHeader = "Kuroneko-Signature"
    public static let type = "shipment.status_changed"

    /// The JSON body of a change (keys sorted; `previous` the status before as JSON, empty for none;
    /// `shipment` the shipment after, as JSON).
    public static func body(id: String, createdAt: Date, previous: Data, shipment: Data) -> Data {
        var body = Data(#"{"created_at":""#.utf8)
        body.append(Data(ISO8601DateFormatter().string(from: createdAt).utf8))
        body.append(Data(#"","id":""#.utf8))
        body.append(Data(id.utf8))
        body.append(Data(#"","previous":"#.utf8))
        body.append(previous.isEmpty ? Data("null".utf8) : previous)
        body.append(Data(#","shipment":"#.utf8))
        body.append(shipment)
        body.append(Data(#","type":"\#(type)"}"#.utf8))
        return body
    }

    /// `t=<unix seconds>,v1=<hex>`.
    public static func signature(of body: Data, secret: String, at time: Date) -> String {
        let seconds = Int(time.timeIntervalSince1970)
        var signed = Data("\(seconds).".utf8)
        signed.append(body)
        return "t=\(seconds),v1=\(Secrets.hmacSHA256(key: secret, message: signed))"
    }
}
