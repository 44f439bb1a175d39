import Imago
import ImagoCorpus
import Testing
@testable import ImagoCLI

/// What a tile of `imago show` says and draws for each phase of its model.
@Suite struct TileViewTests {
    static func lines(_ phase: ImagePhase, width: Int = 30, height: Int = 8) -> [String] {
        TileView(title: "http://host/a.png", phase: phase, width: width, height: height).cells().map { String($0.map(\.glyph)) }
    }

    static let solid = PixelBuffer(width: 4, height: 4, rgba: Array(repeating: [10, 200, 30, 255], count: 16).flatMap { $0 })

    @Test func everyPhaseFillsTheTileExactly() throws {
        let phases: [ImagePhase] = [.empty, .loading(progress: nil, previous: nil), .success(try Self.response()),
                                    .failure(.fetch(.httpStatus(404)))]
        for phase in phases {
            let cells = TileView(title: "t", phase: phase, width: 17, height: 6).cells()
            #expect(cells.count == 6 && cells.allSatisfy { $0.count == 17 }, "\(phase.name)")
        }
    }

    @Test func emptyShowsThePlaceholder() {
        let lines = Self.lines(.empty)
        #expect(lines[0].hasPrefix("http://host/a.png"))
        #expect(lines[1] == String(repeating: "░", count: 30))
        #expect(lines[1...6].contains { $0.contains(" empty ") })
        #expect(lines[7].hasPrefix("empty"))
    }

    @Test func loadingBeforeTheFirstByteShowsThePlaceholderAndWaits() {
        let lines = Self.lines(.loading(progress: nil, previous: nil))
        #expect(lines[1...6].contains { $0.contains(" loading ") })
        #expect(lines[7].hasPrefix("loading…"))
    }

    @Test(arguments: [
        // 30 columns: the bar takes what the percentage leaves.
        (FetchProgress(received: 50, expected: 200), String(repeating: "█", count: 6) + String(repeating: "░", count: 20) + " 25%"),
        (FetchProgress(received: 200, expected: 200), String(repeating: "█", count: 25) + " 100%"),
        (FetchProgress(received: 12_800, expected: nil), "loading 12.5 KiB"),
    ])
    func loadingShowsItsProgress(progress: FetchProgress, status: String) {
        #expect(Self.lines(.loading(progress: progress, previous: nil)).last?.hasPrefix(status) == true)
    }

    @Test func aPreviewIsDrawnAndNamedInTheStatus() {
        let preview = ImagePreview(pixels: Self.solid, detail: 3, receivedBytes: 100)
        let phase = ImagePhase.loading(progress: FetchProgress(received: 100, expected: 400), previous: nil, preview: preview)
        let tile = TileView(title: "p", phase: phase, width: 30, height: 8)
        let cells = tile.cells()
        #expect(String(cells[7].map(\.glyph)).hasSuffix(" 25% · preview 3"))
        let green = CellStyle(foreground: RGB(10, 200, 30), background: RGB(10, 200, 30))
        // 4 × 4 pixels fitted into 30 × 6 cells: 12 × 12 pixels, 6 rows of 12 cells from column 9.
        #expect(cells[1][9] == ScreenCell("▀", green) && cells[6][20] == ScreenCell("▀", green))
        #expect(cells[1][8] == .blank && cells[1][21] == .blank)
    }

    @Test func successDrawsTheImageAndSaysWhatItIs() throws {
        let tile = TileView(title: "a", phase: .success(try Self.response()), width: 30, height: 8)
        let cells = tile.cells()
        #expect(String(cells[7].map(\.glyph)).hasPrefix("✓ 4×4 png · network"))
        #expect(cells[3][15].style.foreground == RGB(10, 200, 30))
        #expect(TileView.imageFrame(imageWidth: 4, imageHeight: 4, areaColumns: 30, areaRows: 6)
                == TileFrame(column: 9, row: 0, width: 12, height: 6))
    }

    @Test func failureGivesItsReasonAndTheKeyToRetry() {
        let lines = Self.lines(.failure(.fetch(.httpStatus(503, retryAfter: .seconds(2)))), width: 24, height: 10)
        let text = lines.joined(separator: "\n")
        #expect(text.contains("failed"))
        #expect(text.contains("httpStatus(503): the"), "the detail, wrapped: \(text)")
        #expect(text.contains("press r to retry"))
        #expect(lines.last?.hasPrefix("✗ httpStatus(503)") == true)
    }

    @Test func longTextIsCutToTheTile() {
        #expect(TileView.truncated("abcdefgh", to: 5) == "abcd…")
        #expect(TileView.truncatedFromStart("http://host/dir/name.png", to: 9) == "…name.png")
        #expect(TileView.wrapped("one two three fourfivesix", width: 7) == ["one two", "three", "fourfiv", "esix"])
    }

    static func response() throws -> ImageResponse {
        let png = try Encoders.png(width: 4, height: 4, colorType: .rgba, bitDepth: 8, interlaced: false,
                                   samples: solid.packedBytes(), stride: 16)
        return ImageResponse(image: try ImageDecoder.decode(png), origin: .network)
    }
}
