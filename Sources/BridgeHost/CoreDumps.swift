import Glibc

/// Keeps the host's memory out of core dumps. A crash while a PIN is typed or handed to libfido2 would
/// otherwise write the PIN (and PIN tokens) to disk with the rest of the process image, wherever the
/// system's core pattern points.
public enum CoreDumps {
    /// Core file size limit 0 (hard and soft, so no later code can raise it) and the process marked not
    /// dumpable, which also covers core handlers that ignore the limit (a `|program` core pattern) and keeps
    /// other processes of the same user from attaching a debugger to read the memory. Call first thing at
    /// start, before any secret exists. Returns false if either could not be set.
    @discardableResult
    public static func disable() -> Bool {
        var none = rlimit(rlim_cur: 0, rlim_max: 0)
        let limited = setrlimit(__rlimit_resource_t(RLIMIT_CORE.rawValue), &none) == 0
        return limited && setDumpable(false)
    }

    /// `prctl(PR_GET_DUMPABLE)`: whether this process may dump core (and be attached to).
    public static var isDumpable: Bool { prctl(prGetDumpable, 0) == 1 }

    private static func setDumpable(_ dumpable: Bool) -> Bool {
        prctl(prSetDumpable, dumpable ? 1 : 0) == 0
    }

    // <linux/prctl.h>, which Swift's Glibc module does not include.
    private static let prGetDumpable: Int32 = 3  // PR_GET_DUMPABLE
    private static let prSetDumpable: Int32 = 4  // PR_SET_DUMPABLE

    /// prctl(2) is variadic in C, so Swift does not import it; it is looked up with the fixed argument list
    /// the kernel takes (the unused arguments must be 0).
    private static func prctl(_ option: Int32, _ argument: UInt) -> Int32 {
        typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return -1 }  // RTLD_DEFAULT
        return unsafeBitCast(symbol, to: Prctl.self)(option, argument, 0, 0, 0)
    }
}
