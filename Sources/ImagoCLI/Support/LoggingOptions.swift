import ArgumentParser
import Imago
import Logging

/// `--log-level`, for the commands that run a pipeline: its swift-log records on standard
/// error (standard output stays the command's own, JSON lines for `imago load`).
struct LoggingOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Print the pipeline's logs at this level and above on standard error (default: no logs).",
        discussion: "debug shows loads and fetches starting and ending, retries, disk cache decisions and memory decisions, each with its metadata; trace adds memory cache hits and stores, disk lookups and decode starts and ends."))
    var logLevel: Logger.Level?

    /// The logger the pipeline reports to: with `--log-level`, swift-log bootstrapped once for
    /// this process with a standard-error handler at that level; without it, the pipeline's
    /// quiet default (nothing is printed). Call it once: swift-log is bootstrapped once per process.
    func pipelineLogger() -> Logger {
        guard let logLevel else { return ImagePipeline.Configuration.Diagnostics.quietLogger }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        var logger = Logger(label: "imago")
        logger.logLevel = logLevel
        return logger
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
