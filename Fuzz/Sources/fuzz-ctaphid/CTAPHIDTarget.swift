import FuzzSupport
import SoftToken

private let template = TokenTemplate(name: "ctaphid")

/// SoftToken's CTAPHID engine, fed raw reports on two connections (two hidraw descriptors to one key), so
/// channel allocation, message assembly, busy channels, cancels and sequence errors all meet arbitrary bytes.
///
/// Input: records of one control byte and a 64-byte report (the last one padded with zeros). Control bit 0
/// picks the connection; bit 1 reads everything the token queued after this report, as a host polling would.
/// Checked beyond "no crash": every report the token sends is one full 64-byte report.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAPHID(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let token = template.fresh()
    let connections = [CTAPHIDClient(token: token), CTAPHIDClient(token: token)]
    defer {
        for connection in connections { connection.close() }
    }
    while !input.isEmpty {
        let control = input.byte()
        var report = input.take(CTAPHIDClient.reportSize)
        report += [UInt8](repeating: 0, count: CTAPHIDClient.reportSize - report.count)
        let connection = connections[Int(control & 1)]
        connection.write(report)
        if control & 2 != 0 { check(connection.drain()) }
    }
    for connection in connections { check(connection.drain()) }
    return 0
}

private func check(_ reports: [[UInt8]]) {
    for report in reports {
        precondition(report.count == CTAPHIDClient.reportSize, "the token sent a \(report.count)-byte report")
    }
}
