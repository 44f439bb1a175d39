import CImagoCodecs
import Foundation

/// The machine a report was measured on: numbers mean little without it.
public struct MachineInfo: Sendable, Codable, Equatable {
    public var cpuModel: String
    public var cores: Int
    public var memory: String
    public var operatingSystem: String
    public var swiftVersion: String
    public var libpng: String
    public var libjpeg: String
    public var libwebp: String
    /// The core the CPU-bound scenarios ran on (`CorePinning`); nil when not pinned, and in
    /// machine files written before pinning existed.
    public var pinnedCore: Int?
    /// The file system of the temporary directory, where the disk scenarios write
    /// (`TemporaryFileSystem`); nil when unknown, and in machine files written before it.
    public var temporaryFileSystem: String?

    /// Reads /proc, /etc/os-release, `swift --version` and the linked codec libraries.
    public static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
        let os = ((try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? "").split(separator: "\n")
            .first { $0.hasPrefix("PRETTY_NAME=") }
            .map { String($0.dropFirst("PRETTY_NAME=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        let webp = Int(imago_webp_version())
        return MachineInfo(
            cpuModel: model ?? "unknown",
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memory: String(format: "%.1f GiB", Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824),
            operatingSystem: (os ?? ProcessInfo.processInfo.operatingSystemVersionString) + ", kernel " + kernel(),
            swiftVersion: swiftVersion(),
            libpng: String(cString: imago_png_version()),
            libjpeg: String(cString: imago_jpeg_version()),
            libwebp: "\(webp >> 16).\((webp >> 8) & 0xFF).\(webp & 0xFF)",
            pinnedCore: CorePinning.chosenCore(),
            temporaryFileSystem: TemporaryFileSystem.current())
    }

    /// The 1-, 5- and 15-minute load averages ("0.52 0.61 0.70"): other work on the machine
    /// while a run was measured explains much of its noise.
    public static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        let fields = text.split(separator: " ").prefix(3)
        return fields.count == 3 ? fields.joined(separator: " ") : "unknown"
    }

    static func kernel() -> String {
        ((try? String(contentsOfFile: "/proc/sys/kernel/osrelease", encoding: .utf8)) ?? "unknown")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The first line of `swift --version`, or "unknown" when no toolchain is on PATH.
    static func swiftVersion() -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "--version"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return "unknown" }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? "unknown"
    }

    /// The report's header table.
    public var markdown: String {
        """
        | machine | |
        |---|---|
        | CPU | \(cpuModel) |
        | cores | \(cores) |
        | memory | \(memory) |
        | OS | \(operatingSystem) |
        | Swift | \(swiftVersion) |
        | libpng | \(libpng) |
        | libjpeg | \(libjpeg) |
        | libwebp | \(libwebp) |
        | pinned to | \(CorePinning.reportLine(core: pinnedCore)) |
        | temporary files | \(temporaryFileSystem ?? "unknown") |
        """
    }
}
