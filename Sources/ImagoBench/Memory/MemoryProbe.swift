import Foundation

/// One memory measurement, run alone in a fresh `imago bench-probe` process so no earlier
/// scenario's heap, caches or retained pixel mappings can colour it. Codable: the parent
/// passes it to the child as one JSON argument.
public enum MemoryProbe: Codable, Sendable, Hashable {
    /// `ImageDecoder.decode(contentsOfFile:)` at full size.
    case decode(file: String)
    /// A thumbnail whose longest side is `maxPixelSize`, made by `method`.
    case thumbnail(file: String, maxPixelSize: Int, method: ThumbnailMethod)
    /// One load of `url` through a pipeline without caches, bodies received by `strategy`
    /// (a `FetchStrategy` raw value) over `transport` (a `BuiltInTransport` raw value; nil: the
    /// platform's default), download temporaries in `temporaryDirectory`; `previews` turns the
    /// pipeline's progressive previews on (`PreviewPolicy()`), timing the first one.
    case fetch(url: String, strategy: String, temporaryDirectory: String, transport: String? = nil, previews: Bool = false)
    /// `count` distinct in-memory sources (the same encoded file under different ids) loaded
    /// one after another through a pipeline whose memory cache holds at most `cacheCostLimit`
    /// bytes; then the pipeline is dropped, so whatever is still held afterwards is a leak.
    case pipelineBatch(file: String, count: Int, cacheCostLimit: Int)

    /// How a thumbnail is produced.
    public enum ThumbnailMethod: String, Codable, Sendable, Hashable, CaseIterable {
        /// `DecodeOptions(maxPixelSize:)`: the codec scales while decoding.
        case downsampledDecode = "downsampled-decode"
        /// A full-size decode, then `PixelBuffer.resized(to:)`.
        case fullDecodeThenResize = "full-decode+resize"
    }
}

/// What a probe measured in its process. Byte figures are deltas against the process just
/// before the probe started, so the runtime's own footprint is not counted.
public struct MemoryProbeResult: Codable, Sendable, Equatable {
    /// Wall time of the probe's work (for a fetch: request to pixels).
    public var milliseconds: Double
    /// Resident high-water mark during the probe minus the resident size before it.
    public var peakGrowthBytes: Int
    /// The absolute resident high-water mark of the process (start-up included).
    public var peakResidentBytes: Int
    /// Resident size after the probe released its results (every pixel buffer freed, then
    /// `PixelMemory.trim()` and the malloc heap trimmed) minus
    /// the resident size before it: memory the scenario left behind.
    public var heldAfterBytes: Int
    /// glibc malloc bytes in use after minus before (0 off glibc).
    public var mallocHeldBytes: Int
    /// Bytes of the decoded RGBA result.
    public var decodedBytes: Int
    /// Whether the kernel let the probe reset its high-water mark; when false the peak
    /// includes process start-up.
    public var peakWasReset: Bool
    /// Whether the probe's pipeline (if it had one) was freed within 5 s of the work ending;
    /// false is a leak, and `heldAfterBytes` then includes what it holds.
    public var ownerReleased: Bool
    /// Whether every pixel buffer the probe created was freed within 5 s of its owner going
    /// (`PixelMemory.liveBufferCount` back to its value before the probe); false is a leak
    /// of decoded images (MEM-5).
    public var imagesReleased: Bool
    /// A fetch with previews: milliseconds from the request to the first preview (nil: none came,
    /// or previews were off).
    public var firstPreviewMilliseconds: Double?

    public init(milliseconds: Double, peakGrowthBytes: Int, peakResidentBytes: Int, heldAfterBytes: Int,
                mallocHeldBytes: Int, decodedBytes: Int, peakWasReset: Bool, ownerReleased: Bool,
                imagesReleased: Bool, firstPreviewMilliseconds: Double? = nil) {
        self.firstPreviewMilliseconds = firstPreviewMilliseconds
        self.milliseconds = milliseconds
        self.peakGrowthBytes = peakGrowthBytes
        self.peakResidentBytes = peakResidentBytes
        self.heldAfterBytes = heldAfterBytes
        self.mallocHeldBytes = mallocHeldBytes
        self.decodedBytes = decodedBytes
        self.peakWasReset = peakWasReset
        self.ownerReleased = ownerReleased
        self.imagesReleased = imagesReleased
    }
}
