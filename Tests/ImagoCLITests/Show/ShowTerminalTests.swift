import Foundation
import ImagoTestServer
import ImagoTestSupport
import Testing
@testable import ImagoCLI

/// `imago show` on a real terminal: tmux runs it in a pane, the test reads the pane back with
/// its colours (`capture-pane -e`), types keys and resizes the window. What is on screen at each
/// step is pinned by the server's gates (a held response head, a body held part-way), never by
/// timing: each check polls the screen until it holds or a deadline passes.
@Suite(.serialized, .enabled(if: TmuxSession.isInstalled, "tmux is not installed (make deps installs it)"))
struct ShowTerminalTests {
    struct TimedOut: Error {}

    /// Captures the pane until `condition` holds for it; records the last screen and throws after
    /// `timeout` (a failure's deadline only: a passing run returns as soon as the screen is right).
    static func screen(of tmux: TmuxSession, _ what: String, timeout: Duration = .seconds(30),
                       until condition: (CapturedScreen) -> Bool) async throws -> CapturedScreen {
        let deadline = ContinuousClock.now + timeout
        var last = ""
        while ContinuousClock.now < deadline {
            last = try tmux.capture()
            let screen = CapturedScreen(last)
            if condition(screen) { return screen }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \(what); the screen was:\n\(last)")
        throw TimedOut()
    }

    /// Polls `probe` until it returns a value, or records `what` and throws after `timeout`.
    static func eventually<T>(_ what: String, timeout: Duration = .seconds(30), _ probe: () throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let value = try probe() { return value }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("timed out waiting for \(what)")
        throw TimedOut()
    }

    /// The status line of `tile`.
    static func status(_ screen: CapturedScreen, _ tile: TileFrame) -> String {
        screen.text(row: tile.row + tile.height - 1, column: tile.column, width: tile.width)
    }

    /// Whether the four quadrants' colours are where `TileView` puts a 64 × 64 image in `tile`,
    /// read at the quarter points of the image (each wholly inside one quadrant).
    static func showsQuadrants(_ screen: CapturedScreen, in tile: TileFrame) -> Bool {
        let image = TileView.imageFrame(imageWidth: 64, imageHeight: 64, areaColumns: tile.width, areaRows: tile.height - 2)
        let left = tile.column + image.column + image.width / 4
        let right = tile.column + image.column + image.width * 3 / 4
        let top = tile.row + 1 + image.row + image.height / 4
        let bottom = tile.row + 1 + image.row + image.height * 3 / 4
        func solid(_ column: Int, _ row: Int, _ colour: RGB) -> Bool {
            guard let cell = screen.halfBlockColours(column: column, row: row) else { return false }
            return cell.upper == colour && cell.lower == colour
        }
        return solid(left, top, ShowImages.red) && solid(right, top, ShowImages.green)
            && solid(left, bottom, ShowImages.blue) && solid(right, bottom, ShowImages.white)
    }

    @Test(.timeLimit(.minutes(3)))
    func everyPhaseARetryAResizeAndQuit() async throws {
        let server = try await TestServer.start()
        let head = Gate(), body = Gate()
        let jpeg = try ShowImages.progressiveJPEG()
        server.setRoute("/quadrants.png", Route(body: try ShowImages.quadrants(), contentType: "image/png",
                                                faults: Faults(gate: head)))
        // Two thirds of the body, then held: several scans are complete, the last ones are not.
        server.setRoute("/progressive.jpg", Route(body: jpeg, contentType: "image/jpeg",
                                                  faults: Faults(stallAfterBytes: jpeg.count * 2 / 3, gate: body)))
        server.setRoute("/flaky.png", Route(body: try ShowImages.solid(ShowImages.magenta, width: 48, height: 32),
                                            contentType: "image/png").failFirst(1, with: Faults(status: 404)))
        let command = [CommandRunner.executable.path, "show",
                       server.url(for: "/quadrants.png").absoluteString, server.url(for: "/progressive.jpg").absoluteString,
                       server.url(for: "/flaky.png").absoluteString,
                       "--strategy", "stream", "--previews", "--preview-interval", "0"]
        do {
            let recorder = try ExitRecorder()
            let tmux = try TmuxSession(recorder.wrapping(command), columns: 80, rows: 24)
            defer { tmux.kill() }
            try await walkThrough(tmux, recorder, server: server, head: head, body: body)
        } catch {
            head.open()
            body.open()
            try await server.shutdown()
            throw error
        }
        try await server.shutdown()
    }

    private func walkThrough(_ tmux: TmuxSession, _ recorder: ExitRecorder, server: TestServer, head: Gate,
                             body: Gate) async throws {
        let tiles = GridLayout(tileCount: 3, columns: 80, rows: 24).frames
        try #require(tiles.count == 3)
        try await head.waitUntilHeld(timeout: .seconds(30))
        try await body.waitUntilHeld(timeout: .seconds(30))

        // Held at the head: the placeholder (AsyncImage's empty phase) and no progress yet.
        // Held mid-body: a progress bar, and a preview drawn in colour. The 404: its reason.
        var screen = try await Self.screen(of: tmux, "placeholder, progress, a preview and a failure") { screen in
            screen.text(in: tiles[0]).contains("░ loading ░") && Self.status(screen, tiles[0]).hasPrefix("loading…")
                && Self.status(screen, tiles[1]).contains("% · preview ")
                && Self.status(screen, tiles[2]).hasPrefix("✗ httpStatus(404)")
        }
        let previewCells = (tiles[1].row + 1..<tiles[1].row + tiles[1].height - 1).flatMap { row in
            (tiles[1].column..<tiles[1].column + tiles[1].width).compactMap { screen.halfBlockColours(column: $0, row: row) }
        }
        #expect(previewCells.count > 100 && previewCells.allSatisfy { $0.upper != nil }, "the preview is drawn in half blocks")
        #expect(Self.status(screen, tiles[1]).hasPrefix("█"), "the bar has filled part-way: \(Self.status(screen, tiles[1]))")
        let failure = screen.text(in: tiles[2])
        #expect(failure.contains("failed") && failure.contains("httpStatus(404)") && failure.contains("press r to retry"))

        head.open()
        screen = try await Self.screen(of: tmux, "the quadrants") { screen in
            Self.status(screen, tiles[0]).hasPrefix("✓ 64×64 png · network") && Self.showsQuadrants(screen, in: tiles[0])
        }
        body.open()
        _ = try await Self.screen(of: tmux, "the whole progressive JPEG") { screen in
            Self.status(screen, tiles[1]).hasPrefix("✓ 480×360 jpeg · network")
        }

        // r: the model's retry(), a second request, and the image this time.
        try tmux.sendKeys("r")
        screen = try await Self.screen(of: tmux, "the retried image") { screen in
            Self.status(screen, tiles[2]).hasPrefix("✓ 48×32 png · network")
        }
        let centre = TileView.imageFrame(imageWidth: 48, imageHeight: 32, areaColumns: tiles[2].width, areaRows: tiles[2].height - 2)
        let cell = screen.halfBlockColours(column: tiles[2].column + centre.column + centre.width / 2,
                                           row: tiles[2].row + 1 + centre.row + centre.height / 2)
        #expect(cell?.upper == ShowImages.magenta && cell?.lower == ShowImages.magenta)
        #expect(server.counters.requests(for: "/flaky.png") == 2)

        // A resize: laid out again for the new size, the footer on the new last row.
        try tmux.resize(columns: 100, rows: 30)
        let resized = GridLayout(tileCount: 3, columns: 100, rows: 30).frames
        #expect(resized != tiles)
        _ = try await Self.screen(of: tmux, "the grid at 100 × 30") { screen in
            screen.text(row: 29).hasPrefix("q quit") && Self.showsQuadrants(screen, in: resized[0])
                && Self.status(screen, resized[2]).hasPrefix("✓ 48×32 png")
        }

        // q: the process exits 0 and the terminal is as it was.
        try tmux.sendKeys("q")
        let outcome = try await Self.eventually("imago show to exit") { try recorder.outcome() }
        #expect(outcome.status == 0)
        #expect(outcome.settingsRestored, "stty -g before and after")
        #expect(try tmux.format("#{alternate_on} #{cursor_flag} #{wrap_flag}") == "0 1 1",
                "main screen, cursor shown, wrapping on")
    }

    enum Interruption: String, CaseIterable, Sendable {
        case controlC, sigint, sigterm, sighup

        /// The signal imago reports (Ctrl-C typed in raw mode counts as SIGINT).
        var signal: Int32 {
            switch self {
            case .controlC, .sigint: SIGINT
            case .sigterm: SIGTERM
            case .sighup: SIGHUP
            }
        }

        var exitStatus: Int32 {
            switch self {
            case .controlC, .sigint: 130
            case .sigterm: 143
            case .sighup: 129
            }
        }
    }

    /// Interrupted in the middle of a load, `imago show` gives the terminal back exactly:
    /// `stty -g` is the same before and after, the cursor is shown, the main screen is back.
    @Test(.timeLimit(.minutes(2)), arguments: Interruption.allCases)
    func anInterruptionMidLoadLeavesTheTerminalAsItFoundIt(_ interruption: Interruption) async throws {
        try await withHeldImage { command, held in
            let recorder = try ExitRecorder()
            let tmux = try TmuxSession(recorder.wrapping(command), columns: 60, rows: 20)
            defer { tmux.kill() }
            try await held.waitUntilHeld(timeout: .seconds(30))
            _ = try await Self.screen(of: tmux, "the placeholder") { $0.text(row: 1).contains("░") }
            try interrupt(tmux, with: interruption)
            let outcome = try await Self.eventually("imago show to exit") { try recorder.outcome() }
            #expect(outcome.status == interruption.exitStatus)
            #expect(outcome.settingsRestored, "stty -g before and after")
            #expect(try tmux.format("#{alternate_on} #{cursor_flag} #{wrap_flag}") == "0 1 1",
                    "main screen, cursor shown, wrapping on")
            _ = try await Self.screen(of: tmux, "the message on the main screen") { screen in
                screen.rows.contains { String($0.map(\.glyph)).contains("interrupted by signal \(interruption.signal)") }
            }
        }
    }

    /// The terminal going away mid-load (its window closed): every write and read fails from
    /// then on, and `imago show` still ends as after SIGHUP (129, not a crash on a failed write)
    /// and leaves nothing in its temporary directory.
    @Test(.timeLimit(.minutes(2)))
    func aTerminalThatGoesAwayEndsItCleanly() async throws {
        try await withHeldImage { command, held in
            let recorder = try ExitRecorder()
            let tmux = try TmuxSession(recorder.wrappingThroughHangUp(command), columns: 60, rows: 20)
            defer { tmux.kill() }
            try await held.waitUntilHeld(timeout: .seconds(30))
            _ = try await Self.screen(of: tmux, "the placeholder") { $0.text(row: 1).contains("░") }
            try tmux.hangUp()
            let status = try await Self.eventually("imago show to exit") { try recorder.status() }
            #expect(status == 129)
            #expect(try FileManager.default.contentsOfDirectory(atPath: recorder.temporaryDirectory.path) == [])
        }
    }

    /// Runs `body` with the `imago show` command line for one image whose response the server
    /// holds (`held`); on every path the gate is opened and the server stopped (`TestServer.with`).
    private func withHeldImage(_ body: (_ command: [String], _ held: Gate) async throws -> Void) async throws {
        try await TestServer.with { server in
            let held = Gate()
            defer { held.open() }
            server.setRoute("/held.png", Route(body: try ShowImages.quadrants(), contentType: "image/png", faults: Faults(gate: held)))
            try await body([CommandRunner.executable.path, "show", server.url(for: "/held.png").absoluteString], held)
        }
    }

    /// Types Ctrl-C into the pane, or signals the `imago` the pane's shell runs.
    private func interrupt(_ tmux: TmuxSession, with interruption: Interruption) throws {
        if interruption == .controlC { return try tmux.sendKeys("C-c") }
        let shell = try tmux.format("#{pane_pid}")
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let imago = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "imago's pid")
        #expect(kill(imago, interruption.signal) == 0)
    }
}
