import Foundation
import Liquid
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a promotion code is for: a list, a send and a recipient. Braze gives a user one code
/// per list and send, whatever the channels (the iOS and the Android payload of one recipient
/// show the same code), so asking again for the same assignment gives the same code back.
public struct PromotionCodeAssignment: Sendable, Hashable {
    /// The list (`{% promotion('spring25') %}`).
    public var list: String
    /// The send and recipient (`cmp-1|dispatch-7|user-ana`), or `nil` when the recipient has
    /// no id: then every render takes a new code.
    public var key: String?

    /// An assignment.
    public init(list: String, key: String?) {
        self.list = list
        self.key = key
    }

    /// The assignment of `list` for a render context document: the send is the document's
    /// `campaign.api_id` (else `campaign.name`), `campaign.dispatch_id` and `canvas.api_id`;
    /// the recipient its profile's `external_id`, else `braze_id`.
    public init(list: String, document: LiquidValue) {
        let profile = document.property("profile")
        let recipient = profile.property("external_id").stringValue ?? profile.property("braze_id").stringValue
        let campaign = document.property("campaign"), canvas = document.property("canvas")
        let send = [campaign.property("api_id").stringValue ?? campaign.property("name").stringValue ?? "",
                    campaign.property("dispatch_id").stringValue ?? "", canvas.property("api_id").stringValue ?? ""]
        self.init(list: list, key: recipient.map { (send + [$0]).joined(separator: "|") })
    }
}

/// Why a promotion code could not be had.
public enum PromotionCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No list of that name.
    case listNotFound(String)
    /// The list's file does not read (where and why).
    case invalidList(String)
    /// The record of codes handed out could not be read or written (a full disk, say).
    case ledger(String)

    public var description: String {
        switch self {
        case .listNotFound(let m), .invalidList(let m), .ledger(let m): return m
        }
    }
}

/// Where `{% promotion('list') %}` takes codes from. Implementations are thread-safe.
public protocol PromotionCodeSource: Sendable {
    /// The code for `assignment`: the one it already has, else the next unused code of the
    /// list; `nil` when the list has no code left.
    /// - Throws: ``PromotionCodeError``.
    func code(for assignment: PromotionCodeAssignment) throws -> String?
    /// Makes every code handed out so far durable; a payload that shows a code is sent only
    /// after this returns.
    func sync() throws
}

/// Promotion code lists kept in a workspace, and a durable record of the codes handed out.
///
/// A list is `PromotionCodes/LIST.csv`: one code per row (Braze's upload format; a header row
/// `code`, `codes`, `promotion_code` or `promo_code` is skipped; blank rows are ignored; a code
/// given twice is handed out once). What was handed out is appended to `LIST.used` (in
/// `ledgerDirectory`, by default the lists' folder), one JSON line per code:
/// `["CODE","ASSIGNMENT"]`.
///
/// No code is handed out twice: threads share one record (a lock), and processes (parallel
/// batches, a run after a crash, Spark executors on one file system) take turns on the file
/// with `flock`, each reading what the others appended before choosing. ``sync()`` flushes the
/// record to disk (`fsync`); callers write a payload only after it, so a code in any payload
/// written is in the record, and a crash at any moment never hands a written code out again.
/// An assignment asked for again (a retry, the other platform) gets its recorded code.
///
/// With `consume: false` (previews, dry runs, golden files) nothing is written: codes are
/// handed out in memory only, as a run would hand them out after what the record holds (or,
/// with `readRecord: false`, as from a fresh list), so that each recipient still shows its own.
public final class PromotionCodeLedger: PromotionCodeSource, @unchecked Sendable {
    /// The folder of the code lists.
    public let directory: URL
    /// Where the records of codes handed out are.
    public let ledgerDirectory: URL
    /// Whether codes are handed out for real (recorded); `false` hands them out in memory only.
    public let consume: Bool
    /// Whether the record of earlier runs is read (always, when consuming).
    public let readRecord: Bool

    /// The largest code list read (Braze's upload limit, 100 MB).
    public static let maxListBytes = 100 << 20

    private let lock = NSLock()
    private var lists: [String: ListState] = [:]

    /// Lists in `directory`, their records in `ledgerDirectory` (default: `directory`); with
    /// `consume: false` nothing is written, and with `readRecord: false` earlier runs are
    /// not looked at either.
    public init(directory: URL, ledgerDirectory: URL? = nil, consume: Bool = true, readRecord: Bool = true) {
        self.directory = directory
        self.ledgerDirectory = ledgerDirectory ?? directory
        self.consume = consume
        self.readRecord = consume || readRecord
    }

    deinit {
        for state in lists.values where state.fd >= 0 { close(state.fd) }
    }

    /// One list: its codes, what the record says, and the open record.
    final class ListState {
        let codes: [String]
        /// The first code not known to be used (codes before it all are).
        var cursor = 0
        var used = Set<String>()
        var assigned: [String: String] = [:]
        /// The record, open for appending (read-only when only looking; -1 until first needed).
        var fd: Int32 = -1
        /// How much of the record has been read.
        var readOffset = 0
        var dirty = false
        init(codes: [String]) { self.codes = codes }
    }

    /// The list file of `name`, when there is one.
    public func file(of name: String) -> URL? {
        guard DirectoryCatalogs.isValidName(name) else { return nil }
        let url = directory.appendingPathComponent(name + ".csv")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// The number of codes of `list` not handed out yet (as this process knows from the record).
    public func remaining(in list: String) throws -> Int {
        lock.lock()
        defer { lock.unlock() }
        let state = try self.state(list)
        if readRecord { try catchUp(list, state, locked: false) }
        return state.codes.count - state.used.count
    }

    public func code(for assignment: PromotionCodeAssignment) throws -> String? {
        lock.lock()
        defer { lock.unlock() }
        let state = try self.state(assignment.list)
        if consume {
            try openRecord(assignment.list, state)
            guard flock(state.fd, LOCK_EX) == 0 else { throw PromotionCodeError.ledger("cannot lock \(recordURL(assignment.list).path): \(String(cString: strerror(errno)))") }
        }
        defer { if consume { flock(state.fd, LOCK_UN) } }
        if readRecord { try catchUp(assignment.list, state, locked: consume) }
        if let key = assignment.key, let code = state.assigned[key] { return code }
        guard let code = nextUnused(state) else { return nil }
        if consume {
            var line = LiquidValue.array([.string(code), assignment.key.map { .string($0) } ?? .nil]).jsonString
            line += "\n"
            try append(line, to: state, list: assignment.list)
            state.dirty = true
        }
        state.used.insert(code)
        if let key = assignment.key { state.assigned[key] = code }
        return code
    }

    public func sync() throws {
        lock.lock()
        defer { lock.unlock() }
        for (list, state) in lists where state.dirty {
            guard fsync(state.fd) == 0 else { throw PromotionCodeError.ledger("cannot flush \(recordURL(list).path): \(String(cString: strerror(errno)))") }
            state.dirty = false
        }
    }

    // MARK: The lists

    private func recordURL(_ list: String) -> URL { ledgerDirectory.appendingPathComponent(list + ".used") }

    /// The state of `list`, its codes read on first use (the lock held).
    private func state(_ list: String) throws -> ListState {
        if let s = lists[list] { return s }
        guard let url = file(of: list) else {
            throw PromotionCodeError.listNotFound("promotion code list '\(list)' not found (no \(directory.lastPathComponent)/\(list).csv)")
        }
        let codes = try Self.readCodes(url, display: directory.lastPathComponent + "/" + url.lastPathComponent)
        let s = ListState(codes: codes)
        lists[list] = s
        return s
    }

    /// The codes of a list file: one per row, a header row skipped, duplicates once.
    static func readCodes(_ url: URL, display: String) throws -> [String] {
        let size = ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxListBytes else { throw PromotionCodeError.invalidList("\(display): \(size) bytes, over Braze's 100 MB limit for a code list") }
        guard let data = FileManager.default.contents(atPath: url.path) else { throw PromotionCodeError.invalidList("\(display): cannot read the file") }
        let text: String
        do { text = try SourceText.decode(data, name: display) } catch let e as LiquidError {
            throw PromotionCodeError.invalidList("\(display):\(e.location.map { "\($0.line):\($0.column):" } ?? "") \(e.message)")
        }
        return try codes(csv: text, display: display)
    }

    /// The codes of a list's CSV text.
    public static func codes(csv text: String, display: String) throws -> [String] {
        var codes: [String] = []
        var seen = Set<String>()
        var first = true
        try CSVReader.read(text) { line, cells in
            let code = cells[0].text.trimmingCharacters(in: .whitespaces)
            defer { first = false }
            if cells.count == 1 && code.isEmpty { return }
            guard cells.count == 1 else {
                throw PromotionCodeError.invalidList("\(display):\(line):\(cells[1].column - 1): one code per row (this row has \(cells.count) cells)")
            }
            if first && ["code", "codes", "promotion_code", "promo_code", "promotion_codes"].contains(code.lowercased()) { return }
            guard !code.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw PromotionCodeError.invalidList("\(display):\(line):1: a code with a control character")
            }
            if seen.insert(code).inserted { codes.append(code) }
        } onError: { line, column, message in
            throw PromotionCodeError.invalidList("\(display):\(line):\(column): \(message)")
        }
        return codes
    }

    private func nextUnused(_ state: ListState) -> String? {
        while state.cursor < state.codes.count, state.used.contains(state.codes[state.cursor]) { state.cursor += 1 }
        return state.cursor < state.codes.count ? state.codes[state.cursor] : nil
    }

    // MARK: The record

    private func openRecord(_ list: String, _ state: ListState) throws {
        guard state.fd < 0 else { return }
        try FileManager.default.createDirectory(at: ledgerDirectory, withIntermediateDirectories: true)
        let path = recordURL(list).path
        let existed = FileManager.default.fileExists(atPath: path)
        let fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PromotionCodeError.ledger("cannot open \(path): \(String(cString: strerror(errno)))") }
        if !existed {
            // The new file's name is durable too.
            let dir = open(ledgerDirectory.path, O_RDONLY)
            if dir >= 0 { fsync(dir); close(dir) }
        }
        state.fd = fd
    }

    /// Reads what the record gained since this process last read it (other processes'
    /// codes). With the file locked, a last line without its newline (a writer killed
    /// mid-line, whose payload was never written) is cut off.
    private func catchUp(_ list: String, _ state: ListState, locked: Bool) throws {
        let path = recordURL(list).path
        if state.fd < 0 && consume { try openRecord(list, state) }
        if state.fd < 0 {
            // Only looking: the record, read-only, once it exists.
            let fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                if errno == ENOENT { return }
                throw PromotionCodeError.ledger("cannot read \(path): \(String(cString: strerror(errno)))")
            }
            state.fd = fd
        }
        let fd = state.fd
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw PromotionCodeError.ledger("cannot read \(path): \(String(cString: strerror(errno)))") }
        let size = Int(st.st_size)
        guard size > state.readOffset else { return }
        var bytes = [UInt8](repeating: 0, count: size - state.readOffset)
        var got = 0
        while got < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + got, $0.count - got, off_t(state.readOffset + got)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw PromotionCodeError.ledger("cannot read \(path): \(String(cString: strerror(errno)))") }
            got += n
        }
        var lineStart = 0
        for i in bytes.indices where bytes[i] == 0x0A {
            var parser = JSONValueParser(buffer: bytes, range: lineStart..<i)
            if case .array(let a)? = try? parser.parse(), let code = a.first?.stringValue {
                state.used.insert(code)
                if a.count > 1, let key = a[1].stringValue { state.assigned[key] = code }
            }
            lineStart = i + 1
        }
        state.readOffset += lineStart
        if lineStart < bytes.count && locked {
            // A torn last line: its writer died before finishing it (and before any sync).
            guard ftruncate(fd, off_t(state.readOffset)) == 0 else { throw PromotionCodeError.ledger("cannot repair \(path): \(String(cString: strerror(errno)))") }
        }
    }

    private func append(_ line: String, to state: ListState, list: String) throws {
        let bytes = Array(line.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(state.fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw PromotionCodeError.ledger("cannot write \(recordURL(list).path): \(String(cString: strerror(errno)))") }
            written += n
        }
        state.readOffset += bytes.count
    }
}
