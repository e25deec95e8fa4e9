import Foundation
import KuronekoHTTP

/// The process's own resources, in the Prometheus names client libraries use: resident memory, open file
/// descriptors, CPU seconds, start time. Read from `/proc` and `getrusage` at each scrape.
enum ProcessMetrics {
    static func render(startedAt: Date) -> [String] {
        var lines: [String] = []
        if let resident = residentBytes() {
            lines += PrometheusText.single(
                "process_resident_memory_bytes", type: "gauge", help: "Resident memory size in bytes.",
                value: "\(resident)")
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count {
            lines += PrometheusText.single(
                "process_open_fds", type: "gauge", help: "Open file descriptors.", value: "\(open)")
        }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            let seconds =
                Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            lines += PrometheusText.single(
                "process_cpu_seconds_total", type: "counter", help: "User and system CPU time spent in seconds.",
                value: "\(seconds)")
        }
        lines += PrometheusText.single(
            "process_start_time_seconds", type: "gauge", help: "Start time of the process since the Unix epoch.",
            value: "\(startedAt.timeIntervalSince1970)")
        return lines
    }

    /// The second field of `/proc/self/statm` (resident pages) times the page size.
    private static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
