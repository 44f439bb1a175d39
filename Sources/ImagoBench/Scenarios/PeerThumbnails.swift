/// The peers' side of the thumbnail scenario for one input: a warm interpreter per installed
/// peer that makes thumbnails of the input's format, sampled round-robin with Imago's methods,
/// and a row per peer (skipped with the reason when it is not installed).
struct PeerThumbnails {
    let input: BenchInput
    /// Interleaved variants named after the peers (`decoder` names such as "libvips").
    private(set) var variants: [InterleavedSampler.Variant] = []
    private var entries: [(peer: DecodePeer, method: PeerThumbnailMethod, skipped: String?)] = []

    init(input: BenchInput, peers: [PeerStatus]) {
        self.input = input
        for status in peers {
            guard let method = status.peer.thumbnailMethod(kind: input.kind) else { continue }
            switch status.installed {
            case .success(let peer):
                do {
                    let session = try peer.warmSession(.thumbnail)   // lives as long as its variant's closure
                    variants.append(.init(peer.peer.name) { try session.milliseconds(file: input.path) })
                    entries.append((status.peer, method, nil))
                } catch {
                    entries.append((status.peer, method, "\(error)"))
                }
            case .failure(let unavailable):
                entries.append((status.peer, method, unavailable.reason))
            }
        }
    }

    /// One `time` row per peer: `method` is the peer's name, `path` says whether its codec
    /// downsampled while decoding.
    func rows(scenario: String, timings: [String: Result<[Double], any Error>], thumbnail: String) -> [BenchResult] {
        entries.map { entry in
            let parameters = Parameters.make(["format": input.kind, "size": input.sizeLabel, "method": entry.peer.name,
                                              "thumbnail": thumbnail, "path": entry.method.rawValue])
            if let reason = entry.skipped {
                return BenchResult(scenario: scenario, parameters: parameters, metric: "time", unit: "ms",
                                   direction: .lowerIsBetter, skipped: reason)
            }
            return BenchResult(scenario: scenario, parameters: parameters, metric: "time", unit: "ms",
                               direction: .lowerIsBetter, outcome: timings[entry.peer.name])
        }
    }
}
