/// Size limits of the native-messaging stream.
///
/// Both browsers refuse a host → browser message above 1 MiB (measured in Chromium and Firefox ESR; docs/protocol.md), so the
/// outbound limit is fixed. Browser → host messages up to 10 MiB were delivered; the host keeps its own,
/// configurable, inbound limit so one page cannot make it allocate without bound.
public enum FrameLimits {
    /// Default largest inbound frame the host accepts (4 MiB, configurable).
    public static let defaultInbound = 4 * 1024 * 1024
    /// Largest frame either browser accepts from a native host (1 MiB).
    public static let outbound = 1024 * 1024
    /// Above this a length header is taken as garbage (the stream is out of sync), not as a big message:
    /// discarding gigabytes of "body" would only stall the host on a broken stream.
    public static let implausible = 64 * 1024 * 1024
}
