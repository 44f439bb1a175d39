import FuzzSupport

/// libFuzzer entry point: PNG inputs only (others are rejected so the corpus stays PNG).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FormatFuzzer.run(data, size, format: .png)
}
