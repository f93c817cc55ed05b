import CFIDO2
import Secrets

/// Changing a key's PIN (authenticatorClientPIN changePIN, CTAP 2.1 §6.5.5.6). Setting the first one is
/// `Device.setPIN`. libfido2 checks nothing about the new PIN: the key refuses one shorter than its minimum
/// (FIDO_ERR_PIN_POLICY_VIOLATION), and a wrong current PIN costs an attempt (FIDO_ERR_PIN_INVALID).
extension Device {
    public func changePIN(from current: SecretBytes, to new: SecretBytes) throws(FIDOError) {
        try current.withCString { (old) throws(FIDOError) in
            try new.withCString { (fresh) throws(FIDOError) in
                try FIDOError.check(fido_dev_set_pin(handle, fresh, old), "fido_dev_set_pin")
            }
        }
    }
}
