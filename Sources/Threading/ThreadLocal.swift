import Glibc

/// A per-thread value, the part of Thread.threadDictionary this project uses, without full Foundation
/// (see `Condition`). Each thread starts with nil.
public final class ThreadLocal<Value>: @unchecked Sendable {
    private final class Box {
        let value: Value
        init(_ value: Value) { self.value = value }
    }
    private var key = pthread_key_t()

    public init() {
        // The destructor (a C function, so it cannot name Box<Value>) frees a thread's value when the thread exits.
        let status = pthread_key_create(&key) { value in
            if let value { Unmanaged<AnyObject>.fromOpaque(value).release() }
        }
        precondition(status == 0, "pthread_key_create failed: \(status)")
    }

    /// This thread's value.
    public var value: Value? {
        get {
            guard let raw = pthread_getspecific(key) else { return nil }
            return Unmanaged<Box>.fromOpaque(raw).takeUnretainedValue().value
        }
        set {
            if let old = pthread_getspecific(key) { Unmanaged<AnyObject>.fromOpaque(old).release() }
            pthread_setspecific(key, newValue.map { Unmanaged.passRetained(Box($0)).toOpaque() })
        }
    }
}
