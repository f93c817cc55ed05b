import Foundation

/// Reads the host log as one stream across its rotated files (oldest first), for `webauthn-bridge log`.
public struct LogReader {
    public let path: String
    public let keptFiles: Int

    public init(path: String, keptFiles: Int = 3) {
        self.path = path
        self.keptFiles = keptFiles
    }

    /// Every line still on disk, oldest first.
    public func lines() -> [String] {
        let files = stride(from: keptFiles, through: 1, by: -1).map { "\(path).\($0)" } + [path]
        return files.flatMap { file -> [String] in
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [] }
            return text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        }
    }

    /// Whether a line belongs to `request` (lines carry `[id]` after the level).
    public static func line(_ line: String, isFor request: String) -> Bool {
        line.contains("[\(request)]")
    }

    /// Calls `emit` with each line appended from now on, following the file across rotations; runs until
    /// `shouldStop` says so.
    public func follow(from offset: UInt64? = nil, pollInterval: TimeInterval = 0.25,
                       shouldStop: () -> Bool = { false }, emit: (String) -> Void) {
        var position = offset ?? fileSize()
        var identity = fileIdentity()
        var partial = ""
        while !shouldStop() {
            let currentIdentity = fileIdentity()
            if currentIdentity != identity || fileSize() < position {  // rotated or truncated: start the new file
                identity = currentIdentity
                position = 0
            }
            if let handle = FileHandle(forReadingAtPath: path) {
                try? handle.seek(toOffset: position)
                let data = handle.readDataToEndOfFile()
                try? handle.close()
                position += UInt64(data.count)
                partial += String(decoding: data, as: UTF8.self)
                while let newline = partial.firstIndex(of: "\n") {
                    emit(String(partial[..<newline]))
                    partial = String(partial[partial.index(after: newline)...])
                }
            }
            Thread.sleep(forTimeInterval: pollInterval)
        }
    }

    func fileSize() -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    func fileIdentity() -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
    }
}
