#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Imago

/// The format-agnostic fuzz target: any bytes through sniffing, then a decode with
/// downsampling options chosen by the input's last byte (so a saved input reproduces on its
/// own), from memory and, for half the inputs, also streamed from a file: both paths must
/// agree on the outcome.
public enum SniffDecodeFuzzer {
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
        let bytes = UnsafeRawBufferPointer(start: data, count: size)
        let selector = size > 0 ? bytes[size - 1] : 0
        let options = options(selector)
        let fromMemory = Result { () throws(DecodeError) in try ImageDecoder.decode(bytes, options: options) }
        check(fromMemory, options, "memory")
        guard selector & 0x40 != 0 else { return 0 }

        let fromFile = Result { () throws(DecodeError) in
            try ImageDecoder.decode(contentsOfFile: scratchFile(holding: bytes), options: options)
        }
        check(fromFile, options, "file")
        switch (fromMemory, fromFile) {
        case (.success(let a), .success(let b)):
            guard a.pixels == b.pixels else { fatalError("memory and file decodes gave different pixels") }
        case (.failure(let a), .failure(let b)):
            guard a.kind == b.kind else { fatalError("memory failed with \(a), file with \(b)") }
        case (.success, .failure(let error)):
            fatalError("memory decode succeeded, file decode failed: \(error)")
        case (.failure(let error), .success):
            fatalError("file decode succeeded, memory decode failed: \(error)")
        }
        return 0
    }

    /// Bits 0-1: maxPixelSize (none, 1, 7, 64); bits 2-3: targetSize (none, 1×1, 5×3, 64×17);
    /// bit 4: applyOrientation; bit 6: also decode from a file.
    static func options(_ selector: UInt8) -> DecodeOptions {
        let sides: [Int?] = [nil, 1, 7, 64]
        let boxes: [PixelSize?] = [nil, PixelSize(width: 1, height: 1), PixelSize(width: 5, height: 3),
                                   PixelSize(width: 64, height: 17)]
        return DecodeOptions(maxPixelSize: sides[Int(selector & 3)], targetSize: boxes[Int(selector >> 2 & 3)],
                             applyOrientation: selector & 0x10 != 0, pixelLimit: FuzzInvariants.pixelLimit)
    }

    private static func check(_ result: Result<DecodedImage, DecodeError>, _ options: DecodeOptions, _ path: String) {
        switch result {
        case .success(let image): FuzzInvariants.checkSuccess(image, options: options, "\(path) decode \(options)")
        case .failure(let error): FuzzInvariants.checkFailure(error, options: options, "\(path) decode \(options)")
        }
    }

    /// One file per fuzzer process, rewritten for each input: `IMAGO_FUZZ_SCRATCH` (what
    /// `make fuzz` sets, inside Reports/fuzz/), else a per-process name in the temp directory.
    private static let scratchPath = ProcessInfo.processInfo.environment["IMAGO_FUZZ_SCRATCH"]
        ?? NSTemporaryDirectory() + "/imago-fuzz-\(getpid()).bin"

    private static func scratchFile(holding bytes: UnsafeRawBufferPointer) -> String {
        let path = scratchPath
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("cannot write \(path)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
            guard written > 0 else { fatalError("cannot write \(path)") }
            offset += written
        }
        return path
    }
}
