import Glibc

/// A process named so that a reused PID is not taken for it: its PID, its start time (clock ticks after boot,
/// /proc/PID/stat's field 22) and the boot it ran in. A demo records its own in its temporary directory; a later
/// demo reads it there to tell whether that directory still has an owner.
struct ProcessIdentity: Equatable, Sendable {
    let pid: pid_t
    let startTime: UInt64
    let bootID: String

    /// This process.
    static func current() -> ProcessIdentity? { running(getpid()) }

    /// The process `pid` is now, or nil when there is none or it has exited (a zombie runs nothing).
    static func running(_ pid: pid_t) -> ProcessIdentity? {
        guard let fields = ProcessStat.fields(pid), fields.count > 19, fields[0] != "Z", fields[0] != "X",
            let start = UInt64(fields[19])
        else { return nil }
        return ProcessIdentity(pid: pid, startTime: start, bootID: currentBootID())
    }

    /// True while this very process runs: same PID, same start, same boot. When /proc says nothing of the PID
    /// but the kernel still knows it (/proc mounted with hidepid), it counts as running: never guess it dead.
    var isRunning: Bool {
        if ProcessStat.fields(pid) != nil { return Self.running(pid) == self }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// "pid N", "start N", "boot UUID", one a line.
    var recorded: String { "pid \(pid)\nstart \(startTime)\nboot \(bootID)\n" }

    /// The identity `recorded` wrote, or nil for anything else.
    init?(recorded text: String) {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
        }
        guard let pid = values["pid"].flatMap({ pid_t($0) }), pid > 0,
            let start = values["start"].flatMap({ UInt64($0) }), let boot = values["boot"]
        else { return nil }
        self.init(pid: pid, startTime: start, bootID: boot)
    }

    init(pid: pid_t, startTime: UInt64, bootID: String) {
        self.pid = pid
        self.startTime = startTime
        self.bootID = bootID
    }

    /// The kernel's id of this boot: a start time counts from boot, so it names a process only within one.
    static func currentBootID() -> String {
        readFile("/proc/sys/kernel/random/boot_id", limit: 64)?.filter { !$0.isWhitespace } ?? ""
    }
}

/// /proc/PID/stat, read.
enum ProcessStat {
    /// The fields after the command name, from the state on ("S", ppid, …): the name ("(comm)") may hold spaces
    /// and parentheses, so the fields start after the last ')'. Nil when the process is not there.
    static func fields(_ pid: pid_t) -> [Substring]? {
        guard let stat = readFile("/proc/\(pid)/stat", limit: 4096), let close = stat.lastIndex(of: ")") else {
            return nil
        }
        return stat[stat.index(after: close)...].split(separator: " ")
    }
}
