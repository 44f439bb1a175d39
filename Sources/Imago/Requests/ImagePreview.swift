/// A coarse image shown while the rest arrives: a progressive JPEG after one of its scans, an
/// Adam7 PNG after one of its passes. Never the result (that is `ImagePhase.success`).
public struct ImagePreview: Sendable {
    /// The image as far as it is known, scaled as the final image will be (at most
    /// `PreviewPolicy.maxPixelSize`) and oriented as it will be.
    public let pixels: PixelBuffer
    /// The scan (JPEG) or pass (PNG) shown, from 1; each preview of one attempt shows more detail
    /// than the one before (a retry after a broken transfer starts again from 1; the view model
    /// shows only previews with more detail than it has shown).
    public let detail: Int
    /// Bytes of the body the decoder had been given when it was made (after any
    /// Content-Encoding was undone; the same as the bytes received for an image served as is).
    public let receivedBytes: Int

    /// A preview as a streaming decode makes it (public so a test or an app's own loader can make
    /// one); `detail` counts from 1.
    public init(pixels: PixelBuffer, detail: Int, receivedBytes: Int) {
        self.pixels = pixels
        self.detail = detail
        self.receivedBytes = receivedBytes
    }
}

/// When a streaming load publishes previews (`ImagePipeline.Configuration.previews`).
public struct PreviewPolicy: Sendable, Hashable {
    /// The least time between two previews of one load, and at least the time the last one
    /// took to render (a preview of a full-size JPEG is a whole output pass): scans that complete
    /// sooner are not shown. Zero shows every scan and pass. Default 250 ms.
    public var minimumInterval: Duration
    /// Longest side of a preview, in pixels (never larger than the final image). Default 1024:
    /// a preview of a 40 MP photo at full size would double its memory for a moment.
    public var maxPixelSize: Int?

    /// A policy with the defaults: at most one preview per 250 ms, and previews at most 1024
    /// pixels on their longest side (nil: the final image's size).
    public init(minimumInterval: Duration = .milliseconds(250), maxPixelSize: Int? = 1024) {
        self.minimumInterval = minimumInterval
        self.maxPixelSize = maxPixelSize
    }
}
