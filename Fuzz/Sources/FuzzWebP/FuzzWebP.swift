import FuzzSupport

/// libFuzzer entry point: WebP inputs only (others are rejected so the corpus stays WebP).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FormatFuzzer.run(data, size, format: .webp)
}
