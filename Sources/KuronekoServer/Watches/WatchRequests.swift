import Foundation
import Kuroneko
import KuronekoHTTP
import KuronekoStore

/// The body of `POST /v1/watches`: `{"number": …, "carrier": …?, "label": …?, "record": {…}?, "webhook_url": …?}`,
/// nothing else.
struct AddWatchRequest: Decodable {
    let number: String
    let carrier: Carrier?
    let label: String?
    let webhookURL: String?
    /// What the request says of the parcel (``ParcelRecordChange``), read apart from the rest.
    var record: ParcelRecordChange?

    static let fields = ["number", "carrier", "label", "record", "webhook_url"]

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if let unknown = container.allKeys.map(\.stringValue).sorted().first(where: { !Self.fields.contains($0) }) {
            throw RouteProblem.bad(
                "unknown field \"\(unknown.prefix(40))\"; the fields are number, carrier, label, record and webhook_url")
        }
        guard let number = try? container.decode(String.self, forKey: Key("number")) else {
            throw RouteProblem.bad("number is missing or not a string; expected \"XXXX-XXXX-XXXX\"")
        }
        self.number = number
        if let name = try Self.optionalText(container, "carrier") {
            do {
                carrier = try Carrier(named: name)
            } catch {
                throw RouteProblem.bad("carrier " + error.description)
            }
        } else {
            carrier = nil
        }
        label = try Self.optionalText(container, "label")
        webhookURL = try Self.optionalText(container, "webhook_url")
    }

    /// A string, or nothing for a missing key or `null`; anything else is refused by name.
    private static func optionalText(_ container: KeyedDecodingContainer<Key>, _ name: String) throws -> String? {
        let key = Key(name)
        guard container.contains(key), (try? container.decodeNil(forKey: key)) == false else { return nil }
        guard let text = try? container.decode(String.self, forKey: key) else {
            throw RouteProblem.bad("\(name) is not a string")
        }
        return text
    }

    /// The request in `body`, or the problem that says what is wrong with it.
    static func decode(_ body: Data) throws(RouteProblem) -> AddWatchRequest {
        do {
            var request = try JSONDecoder().decode(AddWatchRequest.self, from: body)
            if let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
                let record = object["record"], !(record is NSNull)
            {
                request.record = try ParcelRecordChange(json: record)
            }
            return request
        } catch let refused as ParcelRecordError {
            throw .bad(refused.description, reason: .invalidRecord)
        } catch let problem as RouteProblem {
            throw problem
        } catch {
            throw .bad("the body is not a JSON object such as {\"number\": \"XXXX-XXXX-XXXX\", \"label\": \"shoes\"}")
        }
    }
}
