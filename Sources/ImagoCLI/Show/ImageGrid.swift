import Foundation
import Imago

/// What reaches `imago show`'s loop: keys, signals, a resize, and "a model published".
enum ShowEvent: Sendable {
    case key(Key)
    case signal(Int32)
    case resize
    case redraw
    /// Standard input ended: the terminal went away.
    case inputEnded
}

/// How the loop ended.
enum ShowOutcome: Equatable, Sendable {
    /// `q`.
    case quit
    /// A signal, or Ctrl-C typed (SIGINT), or the terminal's hang-up (SIGHUP).
    case signal(Int32)
}

/// The app of `imago show`: one `ImageLoadingModel` per source, used as a SwiftUI grid of
/// AsyncImages uses them. A tile that is on screen has had `onAppear()`; one the terminal is too
/// small for gets `onDisappear()` (its load is cancelled) until it fits again. Every phase a
/// model publishes (through `observe`) redraws the screen; so do keys and resizes.
@MainActor
final class ImageGrid {
    private let sources: [String]
    private let models: [ImageLoadingModel]
    private let terminal: TerminalSession
    private let events: AsyncStream<ShowEvent>.Continuation
    private var phases: [ImagePhase]
    /// Changes whenever the image a tile shows changes, for the render cache.
    private var imageIdentity: [String?]
    private var imageGeneration: [Int]
    private var rendered: [Int: (key: RenderKey, cells: [[ScreenCell]])] = [:]
    private var appeared: Set<Int> = []
    private var redrawPending = false

    private struct RenderKey: Equatable {
        var generation: Int
        var columns: Int
        var rows: Int
    }

    init(sources: [String], pipeline: ImagePipeline, options: DecodeOptions, terminal: TerminalSession,
         events: AsyncStream<ShowEvent>.Continuation) {
        self.sources = sources
        self.terminal = terminal
        self.events = events
        models = sources.map { ImageLoadingModel(pipeline: pipeline, source: ImageSource(argument: $0), options: options) }
        phases = Array(repeating: .empty, count: sources.count)
        imageIdentity = Array(repeating: nil, count: sources.count)
        imageGeneration = Array(repeating: 0, count: sources.count)
        for (index, model) in models.enumerated() {
            model.observe { [weak self] phase in self?.published(phase, by: index) }
        }
    }

    /// Shows the grid and handles `stream` until `q`, a signal or the end of input.
    func run(_ stream: AsyncStream<ShowEvent>) async -> ShowOutcome {
        redraw()
        for await event in stream {
            switch event {
            case .key(.quit): return .quit
            case .key(.interrupt): return .signal(SIGINT)
            case .key(.retry): retryFailed()
            case .signal(let number): return .signal(number)
            case .inputEnded: return .signal(SIGHUP)
            case .resize, .redraw: break
            }
            redrawPending = false
            redraw()
        }
        return .quit
    }

    /// Stops every model's attempt (each cancels its pipeline work).
    func cancelAll() {
        for model in models { model.cancel() }
    }

    /// `r`: a new attempt for each tile on screen whose load failed (RETRY-3).
    private func retryFailed() {
        for index in appeared.sorted() {
            if case .failure = models[index].phase { models[index].retry() }
        }
    }

    private func published(_ phase: ImagePhase, by index: Int) {
        phases[index] = phase
        let identity: String? = switch phase {
        case .success: "success"
        case .loading(_, _, let preview?): "preview \(preview.detail)"
        case .loading(_, _?, nil): "previous"
        case .empty, .loading, .failure: nil
        }
        if identity != imageIdentity[index] {
            imageIdentity[index] = identity
            imageGeneration[index] += 1
        }
        // Many publications in a row (progress) make one redraw.
        if !redrawPending {
            redrawPending = true
            events.yield(.redraw)
        }
    }

    /// Lays the tiles out for the terminal's size now, tells the models which are on screen,
    /// and presents the frame.
    private func redraw() {
        let size = terminal.size
        let layout = GridLayout(tileCount: sources.count, columns: size.columns, rows: size.rows)
        let visible = Set(0..<layout.frames.count)
        for index in appeared.subtracting(visible).sorted() { models[index].onDisappear() }
        for index in visible.subtracting(appeared).sorted() { models[index].onAppear() }
        appeared = visible
        var frame = ScreenBuffer(columns: size.columns, rows: size.rows)
        for (index, tileFrame) in layout.frames.enumerated() {
            let tile = TileView(title: TileView.truncatedFromStart(sources[index], to: tileFrame.width),
                                phase: phases[index], width: tileFrame.width, height: tileFrame.height,
                                renderImage: { [unowned self] pixels, columns, rows in
                                    cachedImage(pixels, columns: columns, rows: rows, tile: index)
                                })
            frame.place(tile.cells(), column: tileFrame.column, row: tileFrame.row)
        }
        if let footer = layout.footerRow {
            frame.put(Self.footer(hidden: layout.hiddenCount), column: 0, row: footer, width: size.columns,
                      style: TileView.quietStyle)
        }
        terminal.present(frame)
    }

    /// The keys, and how many tiles do not fit: "q quit · r retry failed", or
    /// "q quit · r retry · 3 hidden: enlarge the window".
    nonisolated static func footer(hidden: Int) -> String {
        hidden > 0 ? "q quit · r retry · \(hidden) hidden: enlarge the window" : "q quit · r retry failed"
    }

    private func cachedImage(_ pixels: PixelBuffer, columns: Int, rows: Int, tile: Int) -> [[ScreenCell]] {
        let key = RenderKey(generation: imageGeneration[tile], columns: columns, rows: rows)
        if let cached = rendered[tile], cached.key == key { return cached.cells }
        let cells = HalfBlockRenderer.render(pixels, columns: columns, rows: rows)
        rendered[tile] = (key, cells)
        return cells
    }
}
