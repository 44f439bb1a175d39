extension DelayProxy {
    /// Where the proxy forwards every connection it accepts.
    public struct Upstream: Sendable, Equatable, CustomStringConvertible {
        /// The host to connect to: a name or an address. Default `"127.0.0.1"`.
        public var host: String
        /// The TCP port to connect to.
        public var port: Int

        /// The upstream at `host` (default `"127.0.0.1"`) and `port`.
        public init(host: String = "127.0.0.1", port: Int) {
            self.host = host
            self.port = port
        }

        /// `host:port`.
        public var description: String { "\(host):\(port)" }
    }

    /// The link the proxy simulates. Every knob has a default, stated on it; the defaults
    /// forward at once and unlimited, like no proxy at all (apart from the copy).
    ///
    /// The model is a link of a given rate followed by a propagation delay: a piece of data
    /// that arrives at time *t* is sent once the link has finished sending what came before
    /// it, takes *size / rate* to send, and is delivered *delay* later. Byte order within a
    /// direction of a connection is always kept.
    public struct Configuration: Sendable, Equatable {
        /// The one-way delay added to every byte from the client to the upstream. Default `.zero`.
        public var clientToServerDelay: Duration
        /// The one-way delay added to every byte from the upstream to the client. Default `.zero`.
        public var serverToClientDelay: Duration
        /// The rate of the client-to-upstream link in bytes per second, or `nil` for no cap.
        /// Data is released in slices of about 10 ms worth at this rate, each when the link
        /// would have finished sending it, so N bytes take at least N / rate. Default `nil`.
        public var clientToServerBytesPerSecond: Int?
        /// The rate of the upstream-to-client link in bytes per second, or `nil` for no cap
        /// (paced as ``clientToServerBytesPerSecond`` is). Default `nil`.
        public var serverToClientBytesPerSecond: Int?
        /// Whether a new connection pays for a TCP handshake over the simulated link: the
        /// client's first bytes are held one extra ``roundTripTime`` after the proxy accepted
        /// it, as they would be if the handshake had crossed the link (on loopback it is over
        /// at once). Default `true`: a cold connection costs what it costs on a real network.
        public var delaysConnectionSetup: Bool
        /// The most bytes one direction of one connection holds while they wait out their
        /// delay (or their turn on a capped link) before the proxy stops reading from the
        /// sender; it also stops while the receiver is not taking what was released. So a slow
        /// consumer pushes back on the producer instead of growing the proxy's memory. Like a
        /// TCP window it also bounds throughput, to about this many bytes per one-way delay.
        /// Default `4_194_304` (4 MiB).
        public var maxQueuedBytesPerDirection: Int

        /// The round-trip time the link adds: the sum of the two one-way delays.
        public var roundTripTime: Duration { clientToServerDelay + serverToClientDelay }

        /// A configuration; every knob has the default its doc comment states.
        public init(
            clientToServerDelay: Duration = .zero, serverToClientDelay: Duration = .zero,
            clientToServerBytesPerSecond: Int? = nil, serverToClientBytesPerSecond: Int? = nil,
            delaysConnectionSetup: Bool = true, maxQueuedBytesPerDirection: Int = 4_194_304
        ) {
            self.clientToServerDelay = clientToServerDelay
            self.serverToClientDelay = serverToClientDelay
            self.clientToServerBytesPerSecond = clientToServerBytesPerSecond
            self.serverToClientBytesPerSecond = serverToClientBytesPerSecond
            self.delaysConnectionSetup = delaysConnectionSetup
            self.maxQueuedBytesPerDirection = maxQueuedBytesPerDirection
        }

        /// A symmetric link: half of `roundTripTime` each way and, if given, the same rate
        /// `bytesPerSecond` (default `nil`, no cap) in both directions; other knobs default.
        public init(roundTripTime: Duration, bytesPerSecond: Int? = nil) {
            self.init(
                clientToServerDelay: roundTripTime / 2, serverToClientDelay: roundTripTime - roundTripTime / 2,
                clientToServerBytesPerSecond: bytesPerSecond, serverToClientBytesPerSecond: bytesPerSecond)
        }

        /// Throws ``TestServerError/invalidConfiguration(_:)`` naming the first knob out of range.
        func validate() throws {
            if clientToServerDelay < .zero || serverToClientDelay < .zero {
                throw TestServerError.invalidConfiguration(
                    "a delay proxy's one-way delays must not be negative (client to server \(clientToServerDelay), "
                        + "server to client \(serverToClientDelay))")
            }
            for (name, rate) in [("clientToServerBytesPerSecond", clientToServerBytesPerSecond),
                                 ("serverToClientBytesPerSecond", serverToClientBytesPerSecond)] {
                if let rate, rate <= 0 {
                    throw TestServerError.invalidConfiguration(
                        "a delay proxy's \(name) must be positive or nil (no cap), not \(rate)")
                }
            }
            if maxQueuedBytesPerDirection <= 0 {
                throw TestServerError.invalidConfiguration(
                    "a delay proxy's maxQueuedBytesPerDirection must be positive, not \(maxQueuedBytesPerDirection)")
            }
        }
    }
}
