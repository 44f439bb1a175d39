/// Whose decode `imago-bench-count` counts: the decode rows' `decoder` values, as the child
/// takes them on its command line.
public enum CountedDecoder: String, Sendable, CaseIterable {
    /// `ImageDecoder.decode(data)`, a new `PixelBuffer` per decode.
    case imago
    /// `imago_reference_decode` into one reused buffer.
    case cDirect = "c-direct"

    /// The `state` of the decode rows this one is counted like: `fresh` for Imago, `warm` for C.
    public var state: String { self == .imago ? "fresh" : "warm" }
}
