import Testing
@testable import ImagoBench

@Suite struct RunNoiseTests {
    @Test(arguments: [
        ("0.20 0.30 0.40", "1.10 0.50 0.40", 2, false),   // quiet before; the bench's own load after
        ("1.00 0.80 0.60", "1.50 1.00 0.70", 2, true),    // half the cores busy before it began
        ("0.10 0.10 0.10", "2.50 1.20 0.50", 2, true),    // more than the cores at the end
        ("0.90 0.90 0.90", "1.90 1.00 1.00", 2, false),   // just under both bounds
        ("unknown", "unknown", 2, false),                  // no /proc/loadavg: no verdict
    ])
    func withoutCPUTimesTheLoadAveragesDecide(start: String, end: String, cores: Int, noisy: Bool) {
        #expect((RunNoise.reason(start: start, end: end, cores: cores) != nil) == noisy)
    }

    @Test func theReasonSaysWhatWasSeen() {
        #expect(RunNoise.reason(start: "3.50 2.00 1.00", end: "1.00 1.00 1.00", cores: 2)?.contains("3.5 at the start") == true)
    }

    @Test func aRunRightAfterAnotherIsQuietWhenNothingElseUsedTheCPU() {
        // The previous run's load is still in the 1-minute average; the CPU times show no one else.
        let quiet = RunNoise.OtherActivity(otherCores: 0.03, stolenShare: 0.001)
        #expect(RunNoise.reason(start: "1.10 1.30 1.25", end: "1.05 1.20 1.25", cores: 2, activity: quiet) == nil)
    }

    @Test(arguments: [
        (0.09, 0.0, nil), (0.1, 0.0, "other processes used 0.10 cores"),
        (0.0, 0.019, nil), (0.0, 0.02, "the hypervisor took 2.0%"),
    ] as [(Double, Double, String?)])
    func otherProcessesOrTheHypervisorMakeARunNoisy(otherCores: Double, stolen: Double, reason: String?) {
        let found = RunNoise.reason(start: "0.1 0.1 0.1", end: "0.1 0.1 0.1", cores: 2,
                                    activity: RunNoise.OtherActivity(otherCores: otherCores, stolenShare: stolen))
        if let reason { #expect(found?.contains(reason) == true, "\(found ?? "quiet")") } else { #expect(found == nil) }
    }

    private static let procStat = """
        cpu  1000 50 200 5000 30 0 20 10 0 0
        cpu0 500 25 100 2500 15 0 10 5 0 0
        intr 12345
        """

    @Test func snapshotsReadTheMachineAndTheProcessFromProc() throws {
        // Field 2, the command, may hold spaces and parentheses.
        let selfStat = "4242 (imago (bench) x) R 1 4242 4242 0 -1 4194560 100 0 0 0 300 40 120 40 20 0 9 0"
        let snapshot = try #require(CPUSnapshot.parse(procStat: Self.procStat, selfStat: selfStat, ticksPerSecond: 100))
        #expect(snapshot.busy == 12.7)   // user + nice + system + irq + softirq: 1270 ticks
        #expect(snapshot.stolen == 0.1 && abs(snapshot.total - 63.1) < 1e-9)   // busy + idle + iowait + steal
        #expect(snapshot.own == 5)       // utime + stime + cutime + cstime: 500 ticks
        #expect(CPUSnapshot.parse(procStat: "intr 1", selfStat: selfStat, ticksPerSecond: 100) == nil)
        #expect(CPUSnapshot.parse(procStat: Self.procStat, selfStat: "4242 (x) R 1", ticksPerSecond: 100) == nil)
    }

    @Test func otherWorkIsTheMachinesBusyTimeLessTheRunsOwn() throws {
        let start = CPUSnapshot(busy: 100, stolen: 1, total: 400, own: 10)
        // 20 s: the machine was busy 26 s, the run (with its finished children) 24 s of them.
        let end = CPUSnapshot(busy: 126, stolen: 1.4, total: 440, own: 34)
        let activity = try #require(end.activity(since: start, wallSeconds: 20))
        #expect(abs(activity.otherCores - 0.1) < 1e-9 && abs(activity.stolenShare - 0.01) < 1e-9)
        // Children still running at the end are not in `own` yet: never below zero.
        #expect(CPUSnapshot(busy: 110, stolen: 1, total: 420, own: 40).activity(since: start, wallSeconds: 10)?.otherCores == 0)
    }

    @Test func bothReportsShowWhatRanBesideTheRun() {
        let rows = RunNoise.machineRows(loadAverages: ("0.1 0.2 0.3", "0.4 0.5 0.6"),
                                        activity: RunNoise.OtherActivity(otherCores: 0.02, stolenShare: 0.001))
        #expect(rows.contains("| beside the run | 0.02 cores of other work on average, 0.1% of the CPU time stolen"))
        #expect(!RunNoise.machineRows(loadAverages: ("a", "b"), activity: nil).contains("beside"))
    }
}
