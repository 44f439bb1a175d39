import Foundation
import Synchronization

/// nginx as a child process, under a shell watchdog that ties its life to this process.
///
/// Why the watchdog: a test process that crashes never reaches `stop()`, and an nginx left
/// behind would hold its port and keep running on a shared machine. The watchdog reads a socket
/// whose only peer this process holds (close-on-exec, so no other child inherits it);
/// when the peer closes, by `closeInput()` or because the kernel closed it with a dead process,
/// it sends nginx SIGTERM (nginx's fast shutdown). The shell waits for nginx and exits with its
/// status, so the shell's exit is nginx's exit, and nginx is always reaped by its own parent.
///
/// Why `posix_spawn` rather than Foundation's `Process`: a child inherits the spawning
/// thread's signal mask, and Swift concurrency's threads block nearly every signal; an nginx
/// spawned from one never receives SIGTERM, and the shell's `wait` never sees SIGCHLD.
/// `posix_spawn` starts the shell with an empty mask and default signal actions. (`Process`
/// also hands every child a descriptor it uses to notice the exit, which nginx would keep.)
final class NginxChild: Sendable {
    private let pid: pid_t
    private let input: Mutex<Int32?>
    /// The exit status once reaped.
    private let reaped = Mutex<Int32?>(nil)

    /// `sh -c SCRIPT imago-nginx NGINX ARGS...`: nginx runs in the background with /dev/null
    /// as its input, and the watchdog subshell reads the launcher's socket on descriptor 3.
    private static let watchdogScript = """
        exec 3<&0
        "$@" </dev/null 3<&- &
        nginx=$!
        ( read -r _ <&3 || :; kill -TERM "$nginx" 2>/dev/null ) </dev/null &
        watchdog=$!
        exec 3<&-
        wait "$nginx"
        status=$?
        kill -TERM "$watchdog" 2>/dev/null
        exit "$status"
        """

    private init(pid: pid_t, input: Int32) {
        self.pid = pid
        self.input = Mutex(input)
    }

    deinit { closeInput() }

    /// Starts nginx in the foreground (`daemon off` in its configuration) with the layout's
    /// error log from its very first message (`-e`, before the configuration is read), the
    /// layout's directory as its prefix (`-p`), and its standard output and error appended to
    /// the layout's output file.
    static func launch(executable: String, layout: NginxLayout) throws(NginxError) -> NginxChild {
        // A socket pair rather than a pipe: it can be made close-on-exec atomically (glibc's
        // pipe2 is not visible to Swift), so no child spawned meanwhile by another thread
        // inherits the write end and keeps the watchdog from seeing it close.
        var ends: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            throw .fileSystem("socketpair: \(String(cString: strerror(errno)))")
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { close(readEnd) }   // the child has its own copy (as descriptor 0)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, readEnd, 0)
        posix_spawn_file_actions_addopen(&actions, 1, layout.output.path, O_WRONLY | O_APPEND, 0)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let arguments = ["/bin/sh", "-c", watchdogScript, "imago-nginx", executable,
                         "-e", layout.errorLog.path, "-p", layout.directory.path + "/",
                         "-c", layout.configurationFile.path]
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
        guard result == 0 else {
            close(writeEnd)
            throw .unavailable(reason: "cannot spawn /bin/sh for \(executable): \(String(cString: strerror(result)))")
        }
        return NginxChild(pid: pid, input: writeEnd)
    }

    /// The exit status (nginx's, through the shell; 128 + N for signal N) once the shell has
    /// exited, else nil. Reaps the shell the first time it is seen exited.
    var exitStatus: Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var raw: Int32 = 0
            let result = waitpid(pid, &raw, WNOHANG)
            if result == pid {
                reaped = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            } else if result == -1 && errno == ECHILD {
                reaped = -1   // reaped by someone else: gone all the same
            }
            return reaped
        }
    }

    /// Closes the watchdog's socket (once): nginx gets SIGTERM.
    func closeInput() {
        if let fd = input.withLock({ $0.take() }) { close(fd) }
    }

    /// Polls every 5 ms; true once exited.
    func waitForExit(within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while exitStatus == nil {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// SIGKILL for nginx (its pid file's process, if its command line names this server's
    /// configuration, so a reused pid is never hit), which lets the shell reap it and exit; the
    /// shell itself only if it is still there after 2 s, then reaped here.
    func forceKill(nginxPidFile: URL, configuration: URL) async {
        if let text = try? String(contentsOf: nginxPidFile, encoding: .utf8),
           let nginx = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
           let command = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(nginx)/cmdline")),
           String(decoding: command, as: UTF8.self).contains(configuration.path) {
            kill(nginx, SIGKILL)
        }
        if await waitForExit(within: .seconds(2)) { return }
        kill(pid, SIGKILL)
        _ = await waitForExit(within: .seconds(2))
    }
}
