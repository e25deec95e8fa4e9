import Foundation
import KuronekoTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Many HTTP requests at once, each on its own connection, from one thread: every connection is opened and
/// its request sent before any answer is read, then `poll` collects the answers as they come.
enum BurstClient {
    struct Answer: Sendable {
        /// `nil` when no complete answer came (connection refused, reset, or the waits ran out).
        let status: Int?
        let retryAfter: String?
    }

    /// The same, on a thread of its own: the poll loop blocks, and must not hold one of the few threads
    /// every other test's tasks run on.
    static func get(port: Int, targets: [String], polls: Int = 1_200) async -> [Answer] {
        await onOwnThread { blockingGet(port: port, targets: targets, polls: polls) }
    }

    /// - Parameter targets: one request target (path and query) per connection, e.g. `/v1/shipments/…`.
    /// - Parameter polls: how many times the answers are waited for (each wait at most 100 ms): a bound that
    ///   catches a server that never answers, not a measure of how fast it does.
    static func blockingGet(port: Int, targets: [String], polls: Int) -> [Answer] {
        raiseOpenFileLimit(to: targets.count * 2 + 256)
        var sockets: [Int32] = []
        for target in targets {
            let descriptor = Loopback.connect(port: port)
            if descriptor >= 0 {
                let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
                _ = Glibc.send(descriptor, request, request.count, Int32(MSG_NOSIGNAL))
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            }
            sockets.append(descriptor)
        }
        var received = [Data](repeating: Data(), count: targets.count)
        var finished = [Bool](repeating: false, count: targets.count)
        var open = Set(sockets.indices.filter { sockets[$0] >= 0 })
        var chunk = [UInt8](repeating: 0, count: 16_384)
        for _ in 0..<polls where !open.isEmpty {
            let indices = Array(open)
            var entries = indices.map { pollfd(fd: sockets[$0], events: Int16(POLLIN), revents: 0) }
            let ready = poll(&entries, nfds_t(entries.count), 100)
            guard ready > 0 else { continue }
            for (position, entry) in entries.enumerated() where entry.revents != 0 {
                let index = indices[position]
                let count = recv(sockets[index], &chunk, chunk.count, 0)
                if count > 0 {
                    received[index].append(contentsOf: chunk[0..<count])
                    if isComplete(received[index]) {
                        finished[index] = true
                        open.remove(index)
                    }
                } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                    open.remove(index)
                }
            }
        }
        sockets.filter { $0 >= 0 }.forEach { close($0) }
        return targets.indices.map { index in
            guard finished[index] else { return Answer(status: nil, retryAfter: nil) }
            let head = String(decoding: received[index], as: UTF8.self).components(separatedBy: "\r\n\r\n")[0]
            let lines = head.components(separatedBy: "\r\n")
            let status = lines.first.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") }
            let retryAfter = lines.first { $0.lowercased().hasPrefix("retry-after:") }
                .map { $0.dropFirst("retry-after:".count).trimmingCharacters(in: .whitespaces) }
            return Answer(status: status, retryAfter: retryAfter)
        }
    }

    private static func isComplete(_ data: Data) -> Bool {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return false }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
        guard let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return false }
        return data.count - end.upperBound >= length
    }

    private static func raiseOpenFileLimit(to wanted: Int) {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < rlim_t(wanted) else { return }
        limit.rlim_cur = min(rlim_t(wanted), limit.rlim_max)
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
