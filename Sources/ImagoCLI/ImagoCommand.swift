import ArgumentParser

@main
struct ImagoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "imago",
        abstract: "Load, decode and measure images on Linux.",
        subcommands: [DecodeCommand.self, LoadCommand.self, ShowCommand.self, CorpusCommand.self, ServeCommand.self, BenchCommand.self,
                      BenchChildCommand.self, BenchProbeCommand.self, BenchPressureWorkloadCommand.self, BenchCheckCommand.self,
                      BenchBaselineCommand.self, ConformCommand.self, MutantsCommand.self, MutantRunCommand.self,
                      MemoryCommand.self, ConformanceImagesCommand.self])
}
