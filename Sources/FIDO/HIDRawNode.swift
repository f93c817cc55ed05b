#if canImport(Glibc)
import Glibc
#endif

/// A FIDO key's hidraw node as sysfs describes it, whether or not this process may open it.
///
/// libfido2's manifest lists only the keys whose nodes it can open: it reads each report descriptor through the node
/// (`HIDIOCGRDESC`), so a key plugged in without the udev rule that gives the session access (uaccess) is invisible
/// to it. The kernel also publishes each HID device's report descriptor, ids and name in sysfs, readable by everyone
/// (`/sys/class/hidraw/hidrawN/device/report_descriptor` and `uevent`), which is how such a key is still recognised
/// as a FIDO key here: its descriptor declares the FIDO usage page 0xF1D0 (CTAP 2.1 §11.2.8.1).
public struct HIDRawNode: Sendable, Equatable {
    public static let fidoUsagePage: UInt32 = 0xF1D0
    static let sysfsClass = "/sys/class/hidraw"

    /// The device node, /dev/hidrawN.
    public let path: String
    public let vendorID: Int
    public let productID: Int
    /// The USB device's manufacturer and product strings (what libfido2 reports for a key it lists); for a HID device
    /// not on USB, no manufacturer and HID_NAME as the product.
    public let manufacturer: String
    public let product: String

    /// Whether the node is there but this process may not read and write it: a key without the udev rule. (A node
    /// not made yet, just after its sysfs entries appeared, is not refused: it is not there.)
    public var isRefused: Bool { access(path, R_OK | W_OK) != 0 && (errno == EACCES || errno == EPERM) }

    /// Whether another program holds the node at `path` open with its exclusive lock (flock), as libfido2 does with
    /// every key it opens. libfido2 1.12's own open waits for such a lock with growing pauses, 21 s in all
    /// (docs/measurements.md), and nothing can interrupt it; checking first lets the host say at once that the key is
    /// in use.
    public static func isHeld(_ path: String) -> Bool {
        let node = open(path, O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard node >= 0 else { return false }  // not there, or refused: libfido2's open says which
        defer { close(node) }  // releases the lock taken below
        return flock(node, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Every hidraw node whose report descriptor declares the FIDO usage page.
    public static func fidoNodes() -> [HIDRawNode] {
        entries(of: sysfsClass).filter { $0.hasPrefix("hidraw") }.sorted().compactMap { entry in
            let device = "\(sysfsClass)/\(entry)/device"
            guard let descriptor = contents(of: "\(device)/report_descriptor"),
                usagePages(descriptor).contains(fidoUsagePage),
                let uevent = contents(of: "\(device)/uevent")
            else { return nil }
            let fields = Self.fields(uevent)
            let ids = (fields["HID_ID"] ?? "").split(separator: ":").compactMap { Int($0, radix: 16) }
            // The USB device is the HID device's grandparent (hid device → USB interface → USB device).
            let usb = "\(device)/../.."
            let manufacturer = contents(of: "\(usb)/manufacturer").map(line)
            let product = contents(of: "\(usb)/product").map(line)
            return HIDRawNode(
                path: "/dev/\(entry)", vendorID: ids.count == 3 ? ids[1] : 0, productID: ids.count == 3 ? ids[2] : 0,
                manufacturer: product == nil ? "" : manufacturer ?? "", product: product ?? fields["HID_NAME"] ?? "")
        }
    }

    /// The usage pages a HID report descriptor declares (its short Usage Page items; HID 1.11 §6.2.2.7). Long items
    /// are stepped over; a truncated item ends the walk.
    static func usagePages(_ descriptor: [UInt8]) -> [UInt32] {
        var pages: [UInt32] = []
        var index = 0
        while index < descriptor.count {
            let prefix = descriptor[index]
            if prefix == 0xFE {  // long item: size in the next byte, then a tag byte
                guard index + 1 < descriptor.count else { break }
                index += 3 + Int(descriptor[index + 1])
                continue
            }
            let size = [0, 1, 2, 4][Int(prefix & 0x03)]
            guard index + 1 + size <= descriptor.count else { break }
            if prefix & 0xFC == 0x04 {  // Usage Page, a global item
                pages.append(
                    descriptor[(index + 1)..<(index + 1 + size)].reversed().reduce(0) { $0 << 8 | UInt32($1) })
            }
            index += 1 + size
        }
        return pages
    }

    /// A sysfs attribute's text without its newline.
    private static func line(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    }

    /// KEY=VALUE lines of a sysfs `uevent` file.
    static func fields(_ uevent: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for line in String(decoding: uevent, as: UTF8.self).split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    private static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// A small sysfs file's bytes (a report descriptor is at most 4096).
    private static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }
}
