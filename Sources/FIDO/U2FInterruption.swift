#if canImport(Glibc)
import Glibc
#endif

/// Stops a U2F request that waits for the user's touch.
///
/// libfido2 1.12 has no way to: `fido_dev_cancel` refuses a key without CTAP2 (U2F has no CTAPHID_CANCEL), and its
/// U2F loops (`u2f_register`, `do_auth` and `send_dummy_register` in u2f.c) send the APDU again after every
/// 0x6985 ("test of user presence required"), pausing 100 ms in `delay_ms` (usleep), until the key is touched.
/// `fido_dev_set_timeout` bounds them only at the request's timeout, and loosely: once the budget is spent the pause
/// and the reads get 0 ms, and the loop goes on as long as the key answers that fast (a SoftToken does). What ends
/// them at once is a signal: the usleep of the pause and the ppoll of a hidraw read return EINTR, which libfido2
/// turns into FIDO_ERR_RX, leaving the loop. So a cancel sends this signal to the thread blocked in the request (only
/// while it is, see `Device.awaitingTheUser`), again at every repetition of the cancel, since one that lands between
/// two system calls changes nothing.
///
/// This is what Chromium does in effect: its U2F operations (device/fido/u2f_register_operation.cc,
/// u2f_sign_operation.cc) stop sending the APDU once cancelled; the key then stops blinking on its own.
enum U2FInterruption {
    /// SIGURG: its default disposition is to be ignored, so one arriving where no handler is installed harms
    /// nothing; nothing in the host uses out-of-band socket data, the only other source of it.
    static let signalNumber = SIGURG

    /// Installs the do-nothing handler once; without a handler the signal is ignored and interrupts nothing.
    /// No SA_RESTART, so a read or write it interrupts fails instead of resuming.
    static let installed: Bool = {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        return sigaction(signalNumber, &action, nil) == 0
    }()

    /// Lets the signal reach the calling thread. A thread starts with its creator's signal mask, and the threads of a
    /// pool (Dispatch's, Swift concurrency's) block most signals: a libfido2 thread started from one of them had the
    /// signal blocked, so a cancel left it pending and the U2F request ran on (seen in U2FCancelTests).
    static func unblockOnThisThread() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, signalNumber)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
    }

    static func interrupt(_ thread: pthread_t) {
        _ = pthread_kill(thread, signalNumber)
    }
}
