import FIDO
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Device {
    /// Gives libfido2's next call the time left until `deadline`: rounded up, because libfido2 must not give up
    /// before the deadline (its FIDO_ERR_RX would not read as a timeout), and at least 1 ms, since 0 is no wait.
    func setTimeout(until deadline: Date) {
        setTimeout(milliseconds: max(1, Int((deadline.timeIntervalSinceNow * 1000).rounded(.up))))
    }
}
