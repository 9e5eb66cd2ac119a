import Foundation
import Liquid
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Pending analytics, saved in a shared directory (the app group container) by the
/// notification extension and sent by the app on its next launch.
///
/// Durability: every entry is its own file, written to `tmp/`, flushed with `fsync`, renamed
/// into `pending/` and the directory flushed too, so `append` returns only once the entry
/// survives a crash, and a process killed at any moment leaves either the whole entry or none
/// of it (an orphan in `tmp/`, never read). Writers never touch each other's files, so the
/// extension and the app can write at the same time without losing entries.
public final class AnalyticsStore: Sendable {
    /// Points inside `append` where a test can stop the process (fault injection).
    public enum CrashPoint: String, Sendable, CaseIterable {
        case afterCreate, afterPartialWrite, afterWrite, afterSync, afterRename, afterDirectorySync
    }

    /// The shared directory.
    public let directory: URL
    let pendingDir: URL
    let tmpDir: URL
    let corruptDir: URL
    private let crashHook: (@Sendable (CrashPoint, Int) -> Void)?
    private let counter = AtomicCounter()

    /// A store in `directory` (created when missing). `crashHook` is for tests that kill the
    /// writer at each ``CrashPoint``; it is called with the point and the entry's sequence number.
    public init(directory: URL, crashHook: (@Sendable (CrashPoint, Int) -> Void)? = nil) throws {
        self.directory = directory
        pendingDir = directory.appendingPathComponent("analytics/pending")
        tmpDir = directory.appendingPathComponent("analytics/tmp")
        corruptDir = directory.appendingPathComponent("analytics/corrupt")
        self.crashHook = crashHook
        for d in [pendingDir, tmpDir, corruptDir] {
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        }
    }

    /// Saves `entry` durably; returns its id.
    @discardableResult
    public func append(_ entry: AnalyticsEntry) throws -> String {
        let seq = counter.next()
        let nanos = UInt64(max(0, Date().timeIntervalSince1970 * 1e9))
        let id = String(format: "%020llu-%08d-%06d-%@", nanos, getpid(), seq, String(UUID().uuidString.prefix(8)).lowercased())
        let data = Array((entry.json.jsonString + "\n").utf8)
        let tmpPath = tmpDir.appendingPathComponent(id + ".tmp").path
        let fd = open(tmpPath, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { throw AnalyticsError.io("cannot create \(tmpPath): \(String(cString: strerror(errno)))") }
        crashHook?(.afterCreate, seq)
        var written = 0
        while written < data.count {
            let chunk = crashHook != nil ? min(16, data.count - written) : data.count - written
            let n = data[written..<(written + chunk)].withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                close(fd)
                unlink(tmpPath)
                throw AnalyticsError.io("cannot write \(tmpPath): \(String(cString: strerror(errno)))")
            }
            written += n
            if written < data.count { crashHook?(.afterPartialWrite, seq) }
        }
        crashHook?(.afterWrite, seq)
        guard fsync(fd) == 0 else {
            close(fd)
            unlink(tmpPath)
            throw AnalyticsError.io("cannot sync \(tmpPath)")
        }
        close(fd)
        crashHook?(.afterSync, seq)
        let finalPath = pendingDir.appendingPathComponent(id + ".json").path
        guard rename(tmpPath, finalPath) == 0 else {
            unlink(tmpPath)
            throw AnalyticsError.io("cannot move the entry into place: \(String(cString: strerror(errno)))")
        }
        crashHook?(.afterRename, seq)
        syncDirectory(pendingDir)
        crashHook?(.afterDirectorySync, seq)
        return id
    }

    func syncDirectory(_ url: URL) {
        let dfd = open(url.path, O_RDONLY)
        if dfd >= 0 {
            fsync(dfd)
            close(dfd)
        }
    }

    /// Every pending entry, oldest first. A file that does not parse (which `append` never
    /// leaves) is moved to `corrupt/`, kept for inspection, and reported in `problems`.
    public func pending() throws -> (entries: [AnalyticsEntry], problems: [String]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: pendingDir.path).filter { $0.hasSuffix(".json") }.sorted()
        var entries: [AnalyticsEntry] = []
        var problems: [String] = []
        for name in names {
            let url = pendingDir.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: url.path) else { continue }
            let id = String(name.dropLast(5))
            if let json = try? JSONValueParser.parse(String(decoding: data, as: UTF8.self)), let entry = AnalyticsEntry(id: id, json: json) {
                entries.append(entry)
            } else {
                problems.append("unreadable entry \(name) moved to corrupt/")
                _ = rename(url.path, corruptDir.appendingPathComponent(name).path)
            }
        }
        return (entries, problems)
    }

    /// Removes entries the server has confirmed.
    public func remove(ids: [String]) throws {
        for id in ids {
            let path = pendingDir.appendingPathComponent(id + ".json").path
            if unlink(path) != 0 && errno != ENOENT { throw AnalyticsError.io("cannot remove \(path)") }
        }
        syncDirectory(pendingDir)
    }

    /// Orphans in `tmp/` left by writers killed mid-write (never complete, never read).
    public func orphanedTemporaries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: tmpDir.path).sorted()
    }

    /// Deletes orphans older than `age` seconds (a writer's own temporary is seconds old at most).
    public func removeOrphans(olderThan age: TimeInterval = 3600) throws {
        let limit = Date().addingTimeInterval(-age)
        for name in try orphanedTemporaries() {
            let url = tmpDir.appendingPathComponent(name)
            let attrs = try? FileManager.default.attributesOfItem(atPath: url.path)
            if let modified = attrs?[.modificationDate] as? Date, modified < limit { try? FileManager.default.removeItem(at: url) }
        }
    }

    /// Runs `body` holding the store's send lock (another sender waits), so two launches of
    /// the app never send the same entries twice.
    func withSendLock<T>(_ body: () throws -> T) throws -> T {
        let path = directory.appendingPathComponent("analytics/send.lock").path
        let fd = open(path, O_RDWR | O_CREAT, 0o644)
        guard fd >= 0 else { throw AnalyticsError.io("cannot open \(path)") }
        defer { close(fd) }
        guard flock(fd, LOCK_EX) == 0 else { throw AnalyticsError.io("cannot lock \(path)") }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }
}

/// Storage and sending problems.
public enum AnalyticsError: Error, Sendable, Equatable, CustomStringConvertible {
    case io(String)
    case server(status: Int, body: String)
    case transport(String)

    public var description: String {
        switch self {
        case .io(let m): return "analytics storage: \(m)"
        case .server(let s, let b): return "analytics server answered \(s): \(b)"
        case .transport(let m): return "analytics send failed: \(m)"
        }
    }
}

final class AtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
