// imago-bench-count FILE DECODER DECODES: the child `imago bench` counts a decode's
// instructions in, under callgrind (ImagoBench's InstructionCounter, which names the decoders
// in CountedDecoder). One uncounted warm-up decode, then DECODES decodes, each wrapped in the
// counted C function `imago_bench_counted`, so each is one callgrind dump and one sample.
// `imago` decodes as the decode rows' `imago fresh` does (a new PixelBuffer per decode, its
// pages from the warmed reuse pool); `c-direct` decodes into one reused buffer, as
// `c-direct warm` does. A program of its own, small and synchronous: valgrind 3.19 stops with
// an internal error on the `imago` executable before its main runs.
import CImagoTestCodecs
import Foundation
import Imago

/// The body of one counted call and its error, across the C call.
final class CountedWork {
    let body: () throws -> Void
    var failure: (any Error)?
    init(_ body: @escaping () throws -> Void) { self.body = body }
}

/// Runs `body` inside the counted C function.
func counted(_ body: @escaping () throws -> Void) throws {
    let work = CountedWork(body)
    let context = Unmanaged.passRetained(work)
    defer { context.release() }
    imago_bench_counted({ context in
        let work = Unmanaged<CountedWork>.fromOpaque(context!).takeUnretainedValue()
        do { try work.body() } catch { work.failure = error }
    }, context.toOpaque())
    if let failure = work.failure { throw failure }
}

struct ReferenceFailure: Error, CustomStringConvertible {
    let status: imago_status
    var description: String { "the bare C decode failed (status \(status.rawValue))" }
}

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(status)
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let decodes = Int(arguments[3]), decodes > 0, ["imago", "c-direct"].contains(arguments[2]) else {
    fail("usage: imago-bench-count FILE imago|c-direct DECODES", status: 64)
}
let file = arguments[1]
do {
    let data = try Data(contentsOf: URL(fileURLWithPath: file))
    let first = try ImageDecoder.decode(data)   // warm-up: first-touch costs are not counted
    if arguments[2] == "imago" {
        for _ in 0..<decodes { try counted { _ = try ImageDecoder.decode(data) } }
    } else {
        let width = first.metadata.width, height = first.metadata.height
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: width * height * 4, alignment: 64)
        defer { buffer.deallocate() }
        let decode = {
            let status = data.withUnsafeBytes { raw in
                imago_reference_decode(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), raw.count,
                                       buffer.assumingMemoryBound(to: UInt8.self), UInt32(width), UInt32(height))
            }
            guard status == IMAGO_OK else { throw ReferenceFailure(status: status) }
        }
        try decode()
        for _ in 0..<decodes { try counted(decode) }
    }
} catch {
    fail("\(file): \(error)", status: 65)
}
