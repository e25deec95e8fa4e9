import Testing

@testable import KuronekoHTTP

@Suite("HTTP metrics")
struct HTTPMetricsTests {
    /// Requests are counted per method, route and status through swift-metrics; swift-prometheus writes each
    /// series' count, and one histogram per route with cumulative buckets.
    @Test func seriesAddUpToOneHistogramPerRoute() {
        let registry = MetricsRegistry()
        let metrics = HTTPMetrics(registry: registry)
        let route = "/v1/shipments/{number}"
        for (method, status, seconds) in [
            ("GET", 200, 0.0005), ("GET", 200, 0.003), ("HEAD", 200, 0.02), ("GET", 404, 0.7), ("BREW", 200, 20.0),
        ] {
            metrics.started()
            metrics.finished(method: method, route: route, status: status, seconds: seconds)
        }
        metrics.started()
        metrics.finished(method: "GET", route: "/healthz", status: 200, seconds: 0.0001)
        metrics.refresh()
        let lines = Set(String(decoding: registry.render(), as: UTF8.self).split(separator: "\n").map(String.init))
        for expected in [
            #"kuroneko_http_requests_total{method="GET",route="/v1/shipments/{number}",status="200"} 2"#,
            #"kuroneko_http_requests_total{method="GET",route="/v1/shipments/{number}",status="404"} 1"#,
            #"kuroneko_http_requests_total{method="HEAD",route="/v1/shipments/{number}",status="200"} 1"#,
            #"kuroneko_http_requests_total{method="other",route="/v1/shipments/{number}",status="200"} 1"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="0.001"} 1"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="0.005"} 2"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="0.05"} 3"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="1.0"} 4"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="10.0"} 4"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/v1/shipments/{number}",le="+Inf"} 5"#,
            #"kuroneko_http_request_duration_seconds_count{route="/v1/shipments/{number}"} 5"#,
            #"kuroneko_http_request_duration_seconds_count{route="/healthz"} 1"#,
            #"kuroneko_http_request_duration_seconds_bucket{route="/healthz",le="0.001"} 1"#,
            "kuroneko_http_requests_in_flight 0.0",
        ] {
            #expect(lines.contains(expected), "missing: \(expected)")
        }
    }

    /// A total kept elsewhere is shown by its growth; one that is not a finite number is skipped, never converted.
    @Test func totalsGrowAndSkipNonFinite() {
        let registry = MetricsRegistry()
        for value in [2.0, .nan, .infinity, 5.0, 4.0] {
            registry.total("kuroneko_test_total", help: "A test total.", value: value)
        }
        let text = String(decoding: registry.render(), as: UTF8.self)
        #expect(text.contains("kuroneko_test_total 5"), "\(text)")
    }
}
