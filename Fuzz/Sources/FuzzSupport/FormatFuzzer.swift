import Foundation
import Imago

/// One format's fuzz target: header parse, full decode, and (when the header asks for it) the
/// EXIF orientation path, each checked against `FuzzInvariants`; in the chunked mode, the push
/// decoders against the one-shot decode instead (`ChunkedFuzzer`).
public enum FormatFuzzer {
    /// Returns -1 (libFuzzer: do not add to the corpus) for inputs that sniff as another
    /// format, so each target's corpus grows only inside its own decoder.
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int, format: ImageFormat) -> CInt {
        let bytes = UnsafeRawBufferPointer(start: data, count: size)
        guard SniffedFormat(prefix: bytes) == .supported(format) else { return -1 }
        if ChunkedFuzzer.isOn {
            ChunkedFuzzer.run(bytes, format: format)
            return 0
        }
        let copy = Data(bytes)
        let options = DecodeOptions(pixelLimit: FuzzInvariants.pixelLimit)

        let header: ImageMetadata?
        do throws(DecodeError) {
            header = try ImageDecoder.metadata(copy)
        } catch {
            FuzzInvariants.checkFailure(error, options: options, "\(format) metadata")
            header = nil
        }
        do throws(DecodeError) {
            let image = try ImageDecoder.decode(bytes, options: options)
            FuzzInvariants.checkSuccess(image, options: options, "\(format) decode")
            guard let header, header.width == image.metadata.width, header.height == image.metadata.height else {
                fatalError("decode succeeded but the header parse disagreed: \(String(describing: header))")
            }
        } catch {
            FuzzInvariants.checkFailure(error, options: options, "\(format) decode")
        }
        if let header, header.orientation > 1 {
            var oriented = options
            oriented.applyOrientation = true
            do throws(DecodeError) {
                FuzzInvariants.checkSuccess(try ImageDecoder.decode(bytes, options: oriented), options: oriented,
                                            "\(format) oriented decode")
            } catch {
                FuzzInvariants.checkFailure(error, options: oriented, "\(format) oriented decode")
            }
        }
        return 0
    }
}
