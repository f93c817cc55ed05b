import CFIDO2
import Threading

/// Choosing among several keys as Chromium does: every key blinks, the one touched first wins.
public enum TouchSelection {
    public static let pollMilliseconds: Int32 = 50

    /// Blocks until one key is touched; returns its index. Keys that fail to start blinking are left out.
    /// - Parameters:
    ///   - deadline: when to give up (FIDO_ERR_ACTION_TIMEOUT).
    ///   - isCancelled: polled between rounds; cancelling stops every key blinking (FIDO_ERR_KEEPALIVE_CANCEL).
    public static func waitForTouch(
        on devices: [Device], deadline: Deadline,
        isCancelled: () -> Bool
    ) throws(FIDOError) -> Int {
        var waiting = devices.indices.filter { fido_dev_get_touch_begin(devices[$0].handle) == FIDO_OK }
        defer { for index in waiting { devices[index].cancel() } }
        while !waiting.isEmpty {
            if isCancelled() { throw FIDOError(code: FIDOError.keepaliveCancel, function: "touch selection") }
            if deadline.isPast { throw FIDOError(code: FIDOError.actionTimeout, function: "touch selection") }
            for index in waiting {
                var touched: Int32 = 0
                if fido_dev_get_touch_status(devices[index].handle, &touched, pollMilliseconds) != FIDO_OK {
                    waiting.removeAll { $0 == index }  // unplugged or refused: the others may still be touched
                } else if touched != 0 {
                    waiting.removeAll { $0 == index }
                    return index
                }
            }
        }
        // Every key stopped answering: pulled out (the request then waits for a key again), or broken.
        let gone = devices.allSatisfy { !$0.isPresent }
        throw FIDOError(
            code: gone ? FIDOError.deviceRemoved : FIDOError.receiveFailed, function: "touch selection: no key answered"
        )
    }
}
