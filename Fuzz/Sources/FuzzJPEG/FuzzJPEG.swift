import FuzzSupport

/// libFuzzer entry point: JPEG inputs only (others are rejected so the corpus stays JPEG).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FormatFuzzer.run(data, size, format: .jpeg)
}
