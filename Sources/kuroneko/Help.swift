/// The texts of `--help`.
enum Help {
    static let tool = """
        kuroneko: Yamato Transport (クロネコヤマト) parcel tracking as clean data.

        Usage:
          kuroneko track [options] NUMBER...   look numbers up on Yamato's tracking page
          kuroneko parse [options] FILE        read a saved tracking page offline
          kuroneko serve [options]             run the REST API (--demo: against a built-in simulator)
          kuroneko simulate [options]          run a stand-in for Yamato's tracking page
          kuroneko help [COMMAND]              show help for a command

        Options:
          -h, --help      show this help
          --version       show the version

        Exit status: 0 success, 1 upstream or page failure, 2 usage error or invalid number.
        """

    static let track = """
        Usage: kuroneko track [options] NUMBER...

        Looks the numbers up, ten per request, and prints one row per number in the order given.
        Numbers may be typed with hyphens, spaces or full-width digits; '-' reads more numbers from standard
        input, one per line or separated by commas. Invalid numbers are refused before anything is sent.

        Options:
          --json              print a JSON array of shipments
          --jsonl             print one JSON shipment per line
          --lang ja|en        language of the table's status labels (default ja)
          --endpoint URL      the tracking form to post to
                              (default https://toi.kuronekoyamato.co.jp/cgi-bin/tneko)
          --timeout SECONDS   per-request timeout (default 15)
          -h, --help          show this help

        Colour is used only on a terminal and never when NO_COLOR is set.
        """

    static let parse = """
        Usage: kuroneko parse [options] FILE

        Parses a saved tracking result page (as served by /cgi-bin/tneko) and prints its shipments, exactly as
        'track' would. '-' reads the page from standard input.

        Options:
          --now TIME          the moment the page was fetched, ISO 8601 (e.g. 2026-10-30T12:00:00+09:00);
                              year-less dates are resolved against it (default: the current time)
          --charset NAME      the page's charset, when its <meta> tag is missing or wrong
          --json              print a JSON array of shipments
          --jsonl             print one JSON shipment per line
          --lang ja|en        language of the table's status labels (default ja)
          -h, --help          show this help
        """

    static let serve = """
        Usage: kuroneko serve [options]

        Serves the REST API until SIGINT or SIGTERM: GET /v1/shipments/{number}, GET /v1/shipments?numbers=a,b,
        POST /v1/shipments/query, /healthz, /readyz, /metrics, /openapi.json. Every option can also be set with
        the environment variable named beside it; the flag wins.

        Options:
          --host ADDRESS          KURONEKO_HOST          IPv4 address to listen on (default 127.0.0.1)
          --port PORT             KURONEKO_PORT          port, 0 for any free one (default 8080)
          --endpoint URL          KURONEKO_ENDPOINT      Yamato's tracking form (default the real one)
          --demo                  KURONEKO_DEMO=1        use a built-in simulator as Yamato
          --timeout SECONDS       KURONEKO_TIMEOUT       per upstream request (default 15)
          --max-concurrent N      KURONEKO_MAX_CONCURRENT  upstream requests at once (default 2)
          --min-interval SECONDS  KURONEKO_MIN_INTERVAL  between upstream request starts (default 1)
          --cache-size N          KURONEKO_CACHE_SIZE    shipments kept (default 10000)
          --ttl-terminal SECONDS  KURONEKO_TTL_TERMINAL  delivered or returned (default 86400)
          --ttl-active SECONDS    KURONEKO_TTL_ACTIVE    still moving (default 300)
          --ttl-invalid SECONDS   KURONEKO_TTL_INVALID   invalid numbers (default 86400)
          --batch-window-ms MS    KURONEKO_BATCH_WINDOW_MS  gather lookups this long per POST (default 20)
          --queue-deadline SECONDS  KURONEKO_QUEUE_DEADLINE  longest a lookup waits for Yamato; one that would
                                  wait longer is answered 503 at once, one whose deadline passes 504 (default 10)
          --queue-capacity N      KURONEKO_QUEUE_CAPACITY  numbers waiting for a POST, at most (default 10000)
          --breaker-failures N    KURONEKO_BREAKER_FAILURES  failed POSTs in a row that open the circuit (default 5)
          --breaker-cool-down SECONDS  KURONEKO_BREAKER_COOL_DOWN  before a probe POST is let through (default 30)
          --connections-per-client N  KURONEKO_CONNECTIONS_PER_CLIENT  open connections per address; requests
                                  on more are answered 503 (default 512)
          --max-connections N     KURONEKO_MAX_CONNECTIONS  open connections from all clients (default: what
                                  the open-file limit allows, less 128)
          --receive-timeout SECONDS  KURONEKO_RECEIVE_TIMEOUT  for a request to arrive, headers and body, however
                                  slowly it trickles in; 0 for none (default 10)
          --cors-origins LIST     KURONEKO_CORS_ORIGINS  origins allowed to call the API from a browser,
                                  comma-separated, or * for any (default none: no CORS headers)
          --shutdown-timeout SECONDS  KURONEKO_SHUTDOWN_TIMEOUT  on SIGTERM/SIGINT, how long requests in
                                  flight may still take before they are answered 503 and closed (default 10)
          -h, --help              show this help
        """

    static let simulate = """
        Usage: kuroneko simulate [options]

        Serves a stand-in for Yamato's tracking form (POST /cgi-bin/tneko) until SIGINT or SIGTERM. Each parcel's
        journey follows from its number and the simulator's clock; a wrong check digit gives 伝票番号誤り.
        Admin endpoints: GET /admin/stats (POSTs and numbers received), GET/PUT /admin/faults, GET/PUT /admin/clock.

        Options:
          --host ADDRESS        IPv4 address to listen on (default 127.0.0.1)
          --port PORT           port to listen on, 0 for any free one (default 8081)
          --start TIME          the simulated time to start at, ISO 8601 (default: now)
          --speed FACTOR        simulated seconds per real second (default 1)
          --latency-ms MS       delay every answer
          --error-rate SHARE    answer this share of POSTs (0 to 1) with HTTP 500
          --fail                answer every POST with HTTP 500
          --hang-seconds S      hold every POST this long before answering
          --truncate            cut every page off halfway
          --changed-layout      serve pages in a changed layout
          -h, --help            show this help
        """

    static func text(for command: String?) throws(CommandFailure) -> String {
        switch command {
        case nil: tool
        case "track": track
        case "parse": parse
        case "serve": serve
        case "simulate": simulate
        case let other?:
            throw .usage("help: unknown command '\(other)'; the commands are track, parse, serve, simulate and help")
        }
    }
}
