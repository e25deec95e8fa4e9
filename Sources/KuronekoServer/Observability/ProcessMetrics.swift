import Foundation
import KuronekoHTTP

/// The process's own resources, in the Prometheus names client libraries use: resident memory, open file
/// descriptors, CPU seconds, start time. Read from `/proc` and `getrusage` at each scrape.
enum ProcessMetrics {
    static func record(startedAt: Date, into registry: MetricsRegistry) {
        if let resident = residentBytes() {
            registry.level("process_resident_memory_bytes", help: "Resident memory size in bytes.", value: Double(resident))
        }
        if let open = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count {
            registry.level("process_open_fds", help: "Open file descriptors.", value: Double(open))
        }
        var usage = rusage()
        if getrusage(RUSAGE_SELF.rawValue, &usage) == 0 {
            let seconds =
                Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
            registry.total("process_cpu_seconds_total", help: "User and system CPU time spent in seconds.", value: seconds)
        }
        registry.level(
            "process_start_time_seconds", help: "Start time of the process since the Unix epoch.",
            value: startedAt.timeIntervalSince1970)
    }

    /// The second field of `/proc/self/statm` (resident pages) times the page size.
    private static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
