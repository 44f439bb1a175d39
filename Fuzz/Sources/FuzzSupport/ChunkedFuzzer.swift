import Foundation
import FuzzLibJPEG
import Imago

/// The chunked mode (`IMAGO_FUZZ_MODE=chunked`, `make fuzz MODE=chunked`): each input goes
/// through the push decoders in pieces of pseudo-random sizes, and the result must equal the
/// one-shot decode's: the same pixels, or an error of the same kind. The sizes come from a
/// generator seeded with the input's own hash, so a crash input reproduces with its pieces.
public enum ChunkedFuzzer {
    /// Whether the environment asks for the chunked mode.
    public static let isOn = ProcessInfo.processInfo.environment["IMAGO_FUZZ_MODE"] == "chunked"

    public static func run(_ bytes: UnsafeRawBufferPointer, format: ImageFormat) {
        var generator = SplitMix(seed: fnv1a(bytes))
        // Each input twice: full size without previews (the decoders' default paths: libjpeg's
        // single output pass, Adam7 rows scattered by pass), and downsampled with previews
        // (buffered-image mode, block-filled passes), or the other way round (chosen by the hash).
        let previewsFirst = generator.next() % 2 == 0
        let sized = DecodeOptions(maxPixelSize: 1 + Int(generator.next() % 200), pixelLimit: FuzzInvariants.pixelLimit)
        for (options, previews) in [(DecodeOptions(pixelLimit: FuzzInvariants.pixelLimit), previewsFirst), (sized, !previewsFirst)] {
            let oneShot = Result { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: options) }
            let pieces = split(bytes, &generator)
            let onPreview: ((PixelBuffer, Int) -> Void)? = previews ? { pixels, detail in
                guard pixels.width > 0, pixels.height > 0, detail > 0 else {
                    fatalError("\(format): malformed preview \(pixels.width)x\(pixels.height) detail \(detail)")
                }
            } : nil
            let chunked = Result { () throws(DecodeError) in
                try ImageDecoder.decodeStreaming(pieces, options: options, previewMaxPixelSize: 64, onPreview: onPreview)
            }
            compare(chunked, oneShot, "\(format) in \(pieces.count) pieces, \(options), previews \(previews)") {
                format == .jpeg && libjpegGarbage(bytes)
            }
        }
    }

    private static func compare(_ chunked: Result<DecodedImage, DecodeError>, _ oneShot: Result<DecodedImage, DecodeError>,
                                _ context: String, libjpegGarbageIn: () -> Bool) {
        switch (chunked, oneShot) {
        case (.success(let a), .success(let b)):
            guard a.metadata == b.metadata, a.pixels.width == b.pixels.width, a.pixels.height == b.pixels.height else {
                fatalError("\(context): the chunked decode's size or metadata differ from the one-shot decode's")
            }
            guard a.pixels.packedBytes() == b.pixels.packedBytes() || libjpegGarbageIn() else {
                fatalError("\(context): the chunked decode's pixels differ from the one-shot decode's")
            }
        case (.failure(let a), .failure(let b)) where a.kind == "tooLarge" || b.kind == "tooLarge":
            // The stream judges the pixel limit as soon as it has a header, before it reads on;
            // the one-shot decode may meet a broken chunk first. Both refuse; the tooLarge must
            // be true (checked below).
            for error in [a, b] { FuzzInvariants.checkFailure(error, options: DecodeOptions(pixelLimit: FuzzInvariants.pixelLimit), context) }
        case (.failure(let a), .failure(let b)):
            // Where the bytes end is where a push decoder sees truncation; the pull decoder may
            // call the same input corrupt (libjpeg's strict EOF warning, say): both are refusals.
            let refusals: Set<String> = ["truncated", "corrupt"]
            guard a.kind == b.kind || (refusals.contains(a.kind) && refusals.contains(b.kind)) else {
                fatalError("\(context): chunked failed with \(a), one-shot with \(b)")
            }
            FuzzInvariants.checkFailure(a, options: DecodeOptions(pixelLimit: FuzzInvariants.pixelLimit), context)
        case (.success, .failure(let error)) where libjpegGarbageIn(), (.failure(let error), .success) where libjpegGarbageIn():
            // Damaged JPEG entropy data (see libjpegGarbage): whether libjpeg-turbo warns, and
            // so whether Imago's strict policy refuses, depends on where its input was cut.
            FuzzInvariants.checkFailure(error, options: DecodeOptions(pixelLimit: FuzzInvariants.pixelLimit), context)
        case (.success, .failure(let error)):
            fatalError("\(context): the chunked decode succeeded, the one-shot decode failed with \(error)")
        case (.failure(let error), .success):
            fatalError("\(context): the chunked decode failed with \(error), the one-shot decode succeeded")
        }
    }

    /// Whether plain libjpeg-turbo (no Imago code: `FuzzLibJPEG`) calls this JPEG damaged or
    /// decodes it differently depending on how its input is cut: fed whole, it warns about
    /// corrupt data ("bad Huffman code", "N extraneous bytes before marker", "premature end of
    /// data segment"); or fed one byte at a time, or cut once (at up to 1,024 places), it
    /// decodes other samples, fails, or warns where whole it did not. On its fast Huffman path
    /// (taken while 512 bytes per block are buffered) a code it cannot match silently becomes
    /// zero and the decoder loses sync; where that shows depends on every cut (fuzz findings
    /// 6ca4be37, b45d3192, b7e2db72, 3f2bebb4). Its maintainer calls it garbage in, garbage out
    /// (libjpeg-turbo issues 420 and 910). For such an input the chunked and one-shot decodes
    /// are not compared beyond the invariants; for a valid JPEG every cut agrees (StreamingDecoderTests
    /// and `make stream-check` cut every corpus file everywhere). An arithmetic-coded JPEG
    /// cannot be cut (libjpeg cannot suspend in its scans; Imago's stream holds it to the end),
    /// so only its whole decode's warnings count. Asked only when the decodes differ.
    private static func libjpegGarbage(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
        func decode(_ cuts: [Int]) -> fuzz_libjpeg_result {
            cuts.withUnsafeBufferPointer { fuzz_libjpeg_decode(base, bytes.count, $0.baseAddress, cuts.count) }
        }
        let whole = decode([])
        if whole.damage_warnings > 0 { return true }
        if whole.arithmetic != 0 { return false }
        func differs(_ other: fuzz_libjpeg_result) -> Bool {
            other.decoded != whole.decoded || other.hash != whole.hash || other.damage_warnings > 0
        }
        if differs(decode(Array(1..<max(1, bytes.count)))) { return true }
        let step = max(1, bytes.count / 1024)
        return stride(from: step, to: bytes.count, by: step).contains { differs(decode([$0])) }
    }

    /// Pieces of 1 to 4096 bytes, mostly small (a quarter of them 1 to 16 bytes).
    private static func split(_ bytes: UnsafeRawBufferPointer, _ generator: inout SplitMix) -> [Data] {
        var pieces: [Data] = []
        var offset = 0
        while offset < bytes.count {
            let roll = generator.next()
            let size = roll % 4 == 0 ? 1 + Int((roll >> 8) % 16) : 1 + Int((roll >> 8) % 4096)
            let end = min(bytes.count, offset + size)
            pieces.append(Data(bytes[offset..<end]))
            offset = end
        }
        return pieces
    }

    private static func fnv1a(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

/// SplitMix64: small, seedable, good enough to vary piece sizes.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
