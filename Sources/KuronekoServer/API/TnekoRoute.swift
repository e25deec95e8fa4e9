import Foundation
import Kuroneko
import KuronekoHTTP

/// `POST /v1/tneko`: the drop-in for programs written against the original app. It takes the body Yamato's
/// own form takes (`number00=1&number01=…&number10=…`, form-encoded) and answers ``TnekoModel`` JSON, with
/// an extra `errors` array (the shape of `/v1/shipments/query`'s) for numbers that could not be answered;
/// such a number still has its entry, with an empty `statusList`.
enum TnekoRoute {
    /// The JSON answer: the model's one key, plus `errors`.
    private struct Answer: Encodable {
        let deriveryList: [TnekoModel.Delivery]
        let errors: [LookupError]
    }

    static func respond(to request: HTTPRequest, service: ShipmentService) async -> HTTPResponse {
        let type = request.headers["content-type"]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            return RouteProblem(
                status: 415, title: "Unsupported Media Type", reason: .invalidRequest,
                detail: "the body must be application/x-www-form-urlencoded, like Yamato's form: "
                    + "number00=1&number01=XXXX-XXXX-XXXX…"
            ).response
        }
        guard let text = String(data: request.body, encoding: .utf8) else {
            return RouteProblem.bad("the body is not UTF-8 text").response
        }
        let inputs: [String]
        switch numbers(in: FormEncoding.decode(text)) {
        case .success(let found): inputs = found
        case .failure(let refusal): return RouteProblem.bad(refusal.detail).response
        }
        let parsed = inputs.map { input in
            Result { () throws(TrackingNumberError) in try TrackingNumber(parsing: input) }
        }
        let outcomes = await service.lookup(parsed.map { try? $0.get() }, carrier: .yamato)
        var deliveries: [TnekoModel.Delivery] = []
        var errors: [LookupError] = []
        for (index, input) in inputs.enumerated() {
            switch (parsed[index], outcomes[index]) {
            case (.success, .fresh(let entry, _)?), (.success, .stale(let entry, _)?):
                deliveries += TnekoModel([entry.shipment]).deriveryList
            case (.success(let number), .failed(let error)?):
                deliveries.append(TnekoModel.Delivery(deliveryID: Int(number.digits) ?? 0, statusList: []))
                errors.append(LookupError(input: input, code: "upstream_\(error.status)", detail: error.message))
            case (.failure(let error), _):
                let digits = input.unicodeScalars.filter { ("0"..."9").contains($0) }
                let id = digits.count <= 18 ? Int(String(String.UnicodeScalarView(digits))) ?? 0 : 0
                deliveries.append(TnekoModel.Delivery(deliveryID: id, statusList: []))
                errors.append(LookupError(input: input, code: "invalid_number", detail: error.description))
            case (.success, nil):
                continue
            }
        }
        let body = (try? JSONEncoder.kuroneko().encode(Answer(deriveryList: deliveries, errors: errors))) ?? Data()
        var response = HTTPResponse.content(body, type: "application/json")
        response.headers.append(("Cache-Control", "no-cache"))
        return response
    }

    struct Refusal: Error {
        let detail: String
    }

    /// The non-empty `number01`…`number10` values in field order. Other fields (`number00`, the form's
    /// `category`, …) are ignored; a number field beyond the ten, or one given twice, is refused.
    static func numbers(in fields: [(name: String, value: String)]) -> Result<[String], Refusal> {
        var seen = Set<String>()
        var numbers: [String] = []
        for (name, value) in fields where name.hasPrefix("number") && name != "number00" {
            guard let slot = Int(name.dropFirst("number".count)), (1...10).contains(slot), name.count == 8 else {
                return .failure(
                    Refusal(
                        detail: "field \"\(name.prefix(40))\" is not one of number01 to number10 (at most ten numbers)")
                )
            }
            guard seen.insert(name).inserted else {
                return .failure(Refusal(detail: "field \(name) is given twice; give each of number01 to number10 once"))
            }
            let trimmed = value.trimmingCharacters(in: .whitespaces)
            if !trimmed.isEmpty { numbers.append(trimmed) }
        }
        return .success(numbers)
    }
}
