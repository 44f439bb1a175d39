/// The Python programs a peer runs, assembled from its snippets: one program serves both the
/// warm session (a file path, and optionally a tab and a count, on stdin; back, one line: the
/// mean of that many timings) and the timed loop (path and count as arguments, one timing per
/// line). The time is taken inside Python around `work(path)` alone, so
/// interpreter start-up, imports and pipe round trips are never part of it.
public enum PeerScript {
    /// The program that times `task` with `peer`'s snippet.
    public static func timing(_ peer: DecodePeer, _ task: PeerTask) -> String? {
        guard let body = body(peer, task) else { return nil }
        return """
            import sys, time
            \(peer.setup)
            def work(path):
            \(indented(body))
            def timed(path):
                t = time.perf_counter()
                work(path)
                return (time.perf_counter() - t) * 1000.0
            if len(sys.argv) > 2:
                for _ in range(int(sys.argv[2])):
                    print(timed(sys.argv[1]), flush=True)
            else:
                for line in sys.stdin:
                    path, _, count = line.rstrip("\\n").partition("\\t")
                    try:
                        n = int(count or "1")
                        print(sum(timed(path) for _ in range(n)) / n, flush=True)
                    except Exception as e:
                        print("error " + str(e).replace("\\n", " "), flush=True)
            """
    }

    /// The program that imports the peer, applies its settings and prints its version.
    public static func version(_ peer: DecodePeer) -> String {
        "\(peer.setup)\nprint(\(peer.versionExpression))"
    }

    /// The snippet for `task`, nil when the peer has none.
    static func body(_ peer: DecodePeer, _ task: PeerTask) -> String? {
        switch task {
        case .decode: peer.decode
        case .thumbnail: peer.thumbnail
        }
    }

    private static func indented(_ body: String) -> String {
        body.split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 }.joined(separator: "\n")
    }
}
