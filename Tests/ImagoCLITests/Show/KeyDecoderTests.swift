import Testing
@testable import ImagoCLI

/// Bytes from a raw-mode terminal into `imago show`'s keys.
@Suite struct KeyDecoderTests {
    @Test(arguments: [
        ("q", [Key.quit]), ("Q", [.quit]), ("r", [.retry]), ("R", [.retry]), ("\u{03}", [.interrupt]),
        ("xr q", [.retry, .quit]), ("", []), ("abc", []),
        ("\u{1B}[A\u{1B}[1;5D", []),          // arrows: no key, although they end in letters
        ("\u{1B}[?1;2c", []),                  // a terminal's reply ends in c; its parameters hold no key
        ("\u{1B}Oq", []),                      // keypad in application mode: SS3 q is not q
        ("\u{1B}\u{1B}[Bq", [.quit]),           // a lone Escape, an arrow, then q
        ("\u{1B}r", []),                       // Alt+r
    ])
    func bytesBecomeKeys(typed: String, keys: [Key]) {
        var decoder = KeyDecoder()
        #expect(decoder.keys(from: Array(typed.utf8)) == keys)
    }

    @Test func aSequenceSplitAcrossReadsIsStillSkipped() {
        var decoder = KeyDecoder()
        #expect(decoder.keys(from: Array("\u{1B}[1;".utf8)) == [])
        #expect(decoder.keys(from: Array("5r".utf8)) == [], "r ends the sequence begun in the first read")
        #expect(decoder.keys(from: Array("r".utf8)) == [.retry])
    }
}
