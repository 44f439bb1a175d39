import ArgumentParser
import Foundation
import Imago

/// `imago decode FILE|DIR`: one JSON line per image; the contract other tools parse.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Decode an image (or every file below a directory) and print one JSON line each.",
        discussion: """
            Exit status: 0 on success; 65 when a file cannot be decoded (or, for a directory, \
            when any file failed); 66 when the file cannot be read; 64 on bad usage.
            """)

    @Argument(help: "An image file, or a directory to decode every file below.")
    var path: String

    @Option(help: "Write tightly packed RGBA rows (width*4 bytes each, no padding) to this file.")
    var output: String?

    @Option(help: "Scale down so the longest side is at most N pixels (never up).")
    var maxPixelSize: Int?

    @Flag(help: "Rotate/flip the pixels as the EXIF orientation says.")
    var applyOrientation = false

    func validate() throws {
        if let n = maxPixelSize, n < 1 { throw ValidationError("--max-pixel-size must be at least 1") }
    }

    func run() throws {
        let options = DecodeOptions(maxPixelSize: maxPixelSize, applyOrientation: applyOrientation)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            if output != nil { throw ValidationError("--output needs a single file, not a directory") }
            try decodeDirectory(options: options)
            return
        }
        switch decodeOne(path, options: options) {
        case .success(let image):
            if let output { try write(image.pixels, to: output) }
        case .failure(let error):
            printError("error: \(error)")
            throw ExitCode(error.isUnreadable ? 66 : 65)
        }
    }

    private func decodeOne(_ file: String, options: DecodeOptions) -> Result<DecodedImage, DecodeError> {
        let start = ContinuousClock.now
        let result = Result { () throws(DecodeError) in
            try ImageDecoder.decode(contentsOfFile: file, options: options)
        }
        let elapsed = ContinuousClock.now - start
        var line = JSONLine()
        line.add("file", file)
        switch result {
        case .success(let image):
            line.add("format", image.metadata.format.rawValue)
            line.add("width", image.pixels.width)
            line.add("height", image.pixels.height)
            line.add("bytesPerRow", image.pixels.bytesPerRow)
            line.add("orientation", image.metadata.orientation)
            line.add("decodeMs", elapsed.milliseconds)
        case .failure(let error):
            line.add("error", error.description)
            line.add("kind", error.kind)
        }
        print(line.text)
        return result
    }

    private func decodeDirectory(options: DecodeOptions) throws {
        let root = URL(fileURLWithPath: path)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else {
            printError("error: cannot list \(path)")
            throw ExitCode(66)
        }
        var files: [String] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files.append(url.path)
        }
        files.sort()
        let start = ContinuousClock.now
        var failed = 0
        for file in files {
            if case .failure = decodeOne(file, options: options) { failed += 1 }
        }
        var summary = JSONLine()
        summary.add("files", files.count)
        summary.add("decoded", files.count - failed)
        summary.add("failed", failed)
        summary.add("totalMs", (ContinuousClock.now - start).milliseconds)
        var line = JSONLine()
        line.add("summary", object: summary)
        print(line.text)
        if failed > 0 { throw ExitCode(65) }
    }

    private func write(_ pixels: PixelBuffer, to file: String) throws {
        do {
            try PixelOutput.write(pixels, to: file)
        } catch {
            printError("error: \(error)")
            throw ExitCode(PixelOutput.failureStatus)
        }
    }
}

extension DecodeError {
    var isUnreadable: Bool {
        if case .unreadable = self { return true }
        return false
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}
