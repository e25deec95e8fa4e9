import Foundation
import Kuroneko
import KuronekoStore

extension WatchQuery {
    /// From `?status=active|finished&code=a,b&family=a,b&carrier=c&forecast=today&stalled=true&overdue=true&q=text`.
    init(query value: (String) -> String?) throws(RouteProblem) {
        self.init()
        if let text = value("status") {
            guard let filter = WatchFilter(rawValue: text), filter != .all else {
                throw .bad("status \"\(text.prefix(20))\" is not allowed; use active or finished")
            }
            state = filter
        }
        if let text = value("code") {
            var codes = Set<StatusCode>()
            for name in text.split(separator: ",").prefix(32) {
                guard let code = StatusCode(rawValue: String(name)) else {
                    throw .bad(
                        "code \"\(name.prefix(40))\" is not a status code; expected e.g. in_transit, delivered, "
                            + "attempt_failed")
                }
                codes.insert(code)
            }
            guard !codes.isEmpty else { throw .bad("code is empty; give one or more status codes, comma-separated") }
            self.codes = codes
        }
        if let text = value("family") {
            var families = Set<WatchFamily>()
            for name in text.split(separator: ",").prefix(8) {
                guard let family = WatchFamily(rawValue: String(name)) else {
                    throw .bad(
                        "family \"\(name.prefix(40))\" is not one of "
                            + WatchFamily.allCases.map(\.rawValue).joined(separator: ", "))
                }
                families.insert(family)
            }
            guard !families.isEmpty else { throw .bad("family is empty; give one or more, comma-separated") }
            self.families = families
        }
        if let text = value("carrier") {
            guard let carrier = Carrier(rawValue: text) else {
                throw .bad("carrier \"\(text.prefix(20).visibleInOneLine)\" is not \(CarrierRegistry.namesInWords)")
            }
            self.carrier = carrier
        }
        if let text = value("forecast") {
            guard let day = ForecastDay(text) else {
                throw .bad("forecast \"\(text.prefix(20))\" is not today, tomorrow or a date such as 2026-12-24")
            }
            forecast = day
        }
        if let text = value("stalled") {
            guard text == "true" || text == "false" else { throw .bad("stalled is not true or false") }
            stalled = text == "true"
        }
        if let text = value("overdue") {
            guard text == "true" || text == "false" else { throw .bad("overdue is not true or false") }
            overdue = text == "true"
        }
        if let text = value("q") {
            guard text.count <= 200, !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
            else { throw .bad("q is longer than 200 characters or holds a control character") }
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            self.text = trimmed.isEmpty ? nil : trimmed
        }
    }
}
