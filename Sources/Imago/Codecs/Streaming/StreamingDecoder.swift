import CImagoCodecs

/// One image decoded from bytes pushed as they arrive, through the C push decoders
/// (`imago_stream.h`): the decode keeps pace with the transfer, so the pixels are ready when the
/// last byte is, and no copy of the body is kept.
///
/// The caller drives it: `push` until it stops at the header (judge the memory estimate, wait for
/// a decode slot, then `start`, which allocates the output), at a preview (`renderPreview`, or
/// push on), or at the end; `finish` when the input ends. Not thread-safe: one task pushes.
/// Cancel through `cancellation` from anywhere; the decode stops within one row batch.
public final class StreamingDecoder {
    /// Why `push` returned.
    public enum Stop: Sendable, Equatable {
        /// Every byte was taken: push more, or `finish` at the end of the input.
        case needsInput
        /// The header is read (`estimate` is set): call `start`, then push on.
        case header
        /// More detail can be shown (previews on): `renderPreview` may run now.
        case preview
        /// The image is decoded: `finish` hands it over; later bytes are ignored.
        case complete
    }

    /// How to decode (output size, orientation, pixel limit), fixed for this decoder's one image.
    public let options: DecodeOptions
    /// Raised to stop the decode (`push`, `renderPreview` and `finish` then throw `.cancelled`).
    public let cancellation = DecodeCancellation()
    /// What decoding this image needs, from its header; nil until `push` stopped at `.header`.
    public private(set) var estimate: DecodeMemoryEstimate?
    /// The codec, once the first bytes named it.
    public private(set) var format: ImageFormat?

    private var codec: StreamCodecBinding?
    private var handle: OpaquePointer?
    /// Bytes taken before the format was known (at most `SniffedFormat.prefixLength`), then fed
    /// to the codec ahead of the caller's.
    private var carry: [UInt8] = []
    /// The first bytes, kept after the codec took them: a WebP's RIFF size is there.
    private var prefix: [UInt8] = []
    private var info = imago_image_info()
    private var output: PixelBuffer?
    private var lastStop = Stop.needsInput
    private var previewsOn = false

    /// A decoder for one image, waiting for its first bytes; nothing is allocated until `push`
    /// has read the signature.
    public init(options: DecodeOptions = DecodeOptions()) {
        self.options = options
    }

    deinit { close() }

    /// Frees the codec and the output at once (the decoder is unusable afterwards); what a
    /// cancelled or failed decode calls rather than waiting for the object to go.
    public func close() {
        if let handle { codec?.destroy(handle) }
        handle = nil
        output = nil
        carry = []
        lastStop = .complete
    }

    /// Takes bytes from the front of `bytes` and decodes as far as they allow; returns how many
    /// it took (fewer than all only at a `.header` or `.preview` stop: push the rest after).
    public func push(_ bytes: UnsafeRawBufferPointer) throws(DecodeError) -> (consumed: Int, stop: Stop) {
        if cancellation.isCancelled { throw .cancelled }
        if lastStop == .complete { return (bytes.count, .complete) }
        var taken = 0
        if handle == nil {
            let wanted = min(bytes.count, SniffedFormat.prefixLength - carry.count)
            carry += bytes.prefix(wanted)
            taken = wanted
            guard carry.count >= SniffedFormat.prefixLength else { return (taken, .needsInput) }
            try open()
        }
        if !carry.isEmpty {
            let stop = try feedCarry()
            if stop != .needsInput || !carry.isEmpty { return (taken, try settle(stop)) }
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[taken...])
        let (consumed, stop) = try feed(rest.baseAddress, rest.count)
        return (taken + consumed, try settle(stop))
    }

    /// Allocates the output (at the size `options` ask for) and lets the decode go on past the
    /// header. `previews` asks for `.preview` stops (progressive JPEG scans, Adam7 PNG passes).
    public func start(previews: Bool) throws(DecodeError) {
        guard let codec, let handle, let estimate, output == nil else {
            preconditionFailure("StreamingDecoder.start before the header, or twice")
        }
        let size = outputSize(estimate)
        guard let buffer = PixelBuffer(uninitializedWidth: size.width, height: size.height) else {
            throw .outOfMemory(byteCount: size.width * size.height * 4)
        }
        var error = imago_error()
        let status = codec.start(handle, buffer.mutableBaseAddress, buffer.bytesPerRow, UInt32(size.width),
                                 UInt32(size.height), previews ? 1 : 0, &error)
        guard status == IMAGO_OK else { throw error.decodeError(format: codec.format) }
        output = buffer
        previewsOn = previews
    }

    /// The image as far as it is known, at most `maxPixelSize` on its longer side (and never
    /// larger than the output), oriented as the output will be; its detail (scan or pass number).
    /// Only right after a `.preview` stop.
    public func renderPreview(maxPixelSize: Int?) throws(DecodeError) -> (pixels: PixelBuffer, detail: Int) {
        guard let codec, let handle, let estimate, previewsOn, lastStop == .preview else {
            preconditionFailure("StreamingDecoder.renderPreview without a preview stop")
        }
        let full = outputSize(estimate)
        var size = full
        if let maxPixelSize {
            size = DecodeOptions(maxPixelSize: maxPixelSize).outputSize(width: full.width, height: full.height, swapsAxes: false)
        }
        guard let buffer = PixelBuffer(uninitializedWidth: size.width, height: size.height) else {
            throw .outOfMemory(byteCount: size.width * size.height * 4)
        }
        var error = imago_error()
        var detail: Int32 = 0
        let status = codec.renderPreview(handle, buffer.mutableBaseAddress, buffer.bytesPerRow, UInt32(size.width),
                                         UInt32(size.height), &detail, cancellation.control, &error)
        guard status == IMAGO_OK else { throw error.decodeError(format: codec.format) }
        return (try oriented(buffer), Int(detail))
    }

    /// The input has ended: the decoded image, or why there is none (`.truncated` when the bytes
    /// stopped short, `.empty` when there were none).
    public func finish() throws(DecodeError) -> DecodedImage {
        if cancellation.isCancelled { throw .cancelled }
        if handle == nil {
            guard !carry.isEmpty else { throw .empty }
            try open()   // fewer bytes than a sniff wants: let the codec judge them
            _ = try settle(try feedCarry())
        }
        guard let codec, let handle else { throw .empty }
        var error = imago_error()
        guard codec.finish(handle, &error) == IMAGO_OK else { throw error.decodeError(format: codec.format) }
        guard let output, let estimate else { throw .truncated(format: codec.format) }
        let image = DecodedImage(pixels: try oriented(output), metadata: estimate.metadata)
        self.output = nil
        codec.destroy(handle)
        self.handle = nil
        return image
    }

    private func open() throws(DecodeError) {
        prefix = carry
        let format = try ImageDecoder.sniff(SniffedFormat(prefix: carry))
        let codec = StreamCodecBinding.binding(for: format)
        var error = imago_error()
        guard let handle = codec.create(&error) else { throw .outOfMemory(byteCount: 0) }
        (self.codec, self.handle, self.format) = (codec, handle, format)
    }

    /// Feeds the bytes taken before the format was known; keeps what the codec did not take.
    private func feedCarry() throws(DecodeError) -> Stop {
        let pending = carry
        let fed = pending.withUnsafeBytes { raw in
            Result { () throws(DecodeError) in try feed(raw.baseAddress, raw.count) }
        }
        let (consumed, stop) = try fed.get()
        carry.removeFirst(consumed)
        return stop
    }

    private func feed(_ base: UnsafeRawPointer?, _ count: Int) throws(DecodeError) -> (Int, Stop) {
        guard let codec, let handle else { return (0, .needsInput) }
        var consumed = 0
        var state = IMAGO_STREAM_NEEDS_INPUT
        var error = imago_error()
        let status = codec.push(handle, base?.assumingMemoryBound(to: UInt8.self), count, &consumed, &state,
                                cancellation.control, &error)
        guard status == IMAGO_OK else { throw error.decodeError(format: codec.format) }
        switch state {
        case IMAGO_STREAM_HEADER_READY: return (consumed, .header)
        case IMAGO_STREAM_PREVIEW_READY: return (consumed, .preview)
        case IMAGO_STREAM_COMPLETE: return (consumed, .complete)
        default: return (consumed, .needsInput)
        }
    }

    /// Records a stop; at the header, reads it and checks the pixel limit before anything is
    /// allocated.
    private func settle(_ stop: Stop) throws(DecodeError) -> Stop {
        lastStop = stop
        if stop == .header, estimate == nil, let codec, let handle {
            guard codec.info(handle, &info) == IMAGO_OK else { throw .corrupt(format: codec.format, message: "no header") }
            try ImageDecoder.checkPixelLimit(info, options)
            var needs = DecodeMemoryEstimate(info: info, format: codec.format, options: options)
            needs.workingBytes = DecodeMemoryEstimate.sum(needs.workingBytes, heldInput())
            estimate = needs
        }
        return stop
    }

    /// Input bytes the codec keeps until the end: the WebP stream keeps the bitstream whole (as
    /// libwebp does for lossless and alpha anyway, and so that it is fed as the pull decoder
    /// feeds it), and an animation is decoded from all of its bytes; the RIFF size says how
    /// many. Nothing for PNG and JPEG.
    private func heldInput() -> Int {
        guard format == .webp, prefix.count >= 8 else { return 0 }
        let size = prefix[4..<8].reversed().reduce(0) { $0 << 8 | Int($1) }
        return size + 8
    }

    /// The output size in stored orientation (the box is in display terms when orienting).
    private func outputSize(_ estimate: DecodeMemoryEstimate) -> PixelSize {
        let orientation = Int(info.orientation)
        let swaps = estimate.metadata.orientationApplied && orientation >= 5
        return options.outputSize(width: Int(info.width), height: Int(info.height), swapsAxes: swaps)
    }

    private func oriented(_ buffer: PixelBuffer) throws(DecodeError) -> PixelBuffer {
        guard let estimate, estimate.metadata.orientationApplied else { return buffer }
        return try ImageDecoder.oriented(buffer, orientation: Int(info.orientation))
    }
}
