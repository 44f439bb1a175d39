import FuzzSupport

/// libFuzzer entry point: any bytes through sniffing, then decode with downsampling options
/// derived from the input, from memory and from a file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecode(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    SniffDecodeFuzzer.run(data, size)
}
