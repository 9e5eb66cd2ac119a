import Foundation
import Liquid
import Personalization

/// Renders a campaign for a stream of recipients: NDJSON render context documents in, one
/// JSON result line out for every input line, in input order, each naming its input line.
/// Lines are rendered in chunks on every core; memory stays bounded by the chunk size and
/// ``maxLineBytes``, whatever the input's length. A malformed line, a line over
/// ``maxLineBytes`` or a recipient whose render fails (an error, a limit) gives a `failed`
/// result with its reason, a blank line a `skipped` one, and the batch goes on.
public struct BatchRenderer: Sendable {
    /// The compiled campaign.
    public let campaign: CompiledCampaign
    /// The platform.
    public let platform: Platform
    /// Lines rendered together, at most (the memory bound, with ``chunkBytes``).
    public var chunkSize: Int
    /// Input bytes read into one chunk: a chunk ends at the last whole line that fits (a
    /// longer line gets a larger buffer). Buffers are reused from chunk to chunk.
    public var chunkBytes: Int

    /// The longest input line read (4 MiB): a longer one is a `failed` result, its bytes
    /// dropped as they are read rather than held.
    public var maxLineBytes: Int
    /// The first input line rendered (1-based): the lines before it are read, counted and
    /// dropped, so that a run resumed after an interruption numbers its results as the first
    /// run would have.
    public var firstLine: Int
    /// Whether each input line carries its own number: `NUMBER<TAB>DOCUMENT`, NUMBER the
    /// line's place in a larger input (1-based, decimal; at most 18 digits). A result is then
    /// numbered NUMBER instead of the line's place in this input, so that the parts of one
    /// segment rendered by separate processes (the Spark job's partitions) are numbered as one
    /// run over the whole segment would number them. ``maxLineBytes`` applies to the document,
    /// not the prefix; `NUMBER<TAB>` alone is a blank line. A document may also be given as
    /// `base64:BYTES`, its bytes in base64 (how the Spark job passes a line that is not UTF-8,
    /// which its strings cannot carry), and is then read from those bytes. A line without the
    /// prefix ends the run with ``NumberedLineError`` (it is not the recipient's fault, but the
    /// feeder's).
    public var numberedInput: Bool = false

    /// An input line that ``numberedInput`` expects to start with `NUMBER<TAB>` and does not.
    public struct NumberedLineError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The line's place in this input (1-based).
        public var inputLine: Int
        /// What is wrong with its prefix.
        public var problem: String
        public var description: String { "input line \(inputLine): \(problem) (numbered input: NUMBER<TAB>DOCUMENT)" }
    }

    /// The longest `NUMBER<TAB>` prefix of numbered input: 18 digits and the tab.
    static let maxNumberPrefix = 19
    /// What starts a numbered line's document given in base64.
    static let base64Marker = Array("base64:".utf8)

    /// The longest numbered line that can hold a document of `maxLineBytes`: its prefix, and the
    /// document in base64 (saturating: any limit, up to `Int.max`, is a limit).
    static func numberedLineLimit(_ maxLineBytes: Int) -> Int {
        let (encoded, overflow) = (maxLineBytes / 3 + 1).multipliedReportingOverflow(by: 4)
        guard !overflow, encoded <= Int.max - maxNumberPrefix - base64Marker.count else { return Int.max }
        return encoded + maxNumberPrefix + base64Marker.count
    }

    /// The length of the document in `buffer[range]` as ``maxLineBytes`` counts it: its bytes,
    /// or for a numbered line's `base64:` document, the bytes it decodes to.
    func documentLength(_ buffer: [UInt8], _ range: Range<Int>) -> Int {
        guard numberedInput, let text = base64Text(buffer, range) else { return range.count }
        let encoded = buffer[text]
        let padding = encoded.suffix(2).filter { $0 == UInt8(ascii: "=") }.count
        return encoded.count / 4 * 3 - (encoded.count % 4 == 0 ? padding : 0)
    }

    /// Workers rendering in parallel, each with its own compiled copy of the campaign.
    let workers: [CompiledCampaign]

    /// A renderer for `campaign` on `platform`, using every core.
    public init(campaign: CompiledCampaign, platform: Platform, chunkSize: Int = 4096, chunkBytes: Int = 1 << 20,
                maxLineBytes: Int = 4 << 20, firstLine: Int = 1,
                workers: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.campaign = campaign
        self.platform = platform
        self.chunkSize = max(1, chunkSize)
        self.chunkBytes = max(64, chunkBytes)
        self.maxLineBytes = max(1, maxLineBytes)
        self.firstLine = max(1, firstLine)
        var copies = [campaign]
        for _ in 1..<max(1, workers) { copies.append((try? campaign.recompiled()) ?? campaign) }
        self.workers = copies
    }

    /// Counts of one batch: one per result line.
    public struct Summary: Sendable, Equatable {
        /// Lines rendered.
        public var rendered = 0
        /// Lines whose message aborted.
        public var aborted = 0
        /// Lines that failed (malformed, too long, a render error or limit).
        public var failed = 0
        /// Blank lines (no document; a `skipped` result).
        public var skipped = 0
        /// All lines with a result.
        public var lines: Int { rendered + aborted + failed + skipped }
        /// Counts.
        public init(rendered: Int = 0, aborted: Int = 0, failed: Int = 0, skipped: Int = 0) {
            self.rendered = rendered
            self.aborted = aborted
            self.failed = failed
            self.skipped = skipped
        }

        mutating func count(_ status: Status) {
            switch status {
            case .rendered: rendered += 1
            case .aborted: aborted += 1
            case .failed: failed += 1
            case .skipped: skipped += 1
            }
        }

        mutating func add(_ other: Summary) {
            rendered += other.rendered
            aborted += other.aborted
            failed += other.failed
            skipped += other.skipped
        }
    }

    /// Renders one NDJSON line (1-based `number`) into its result line.
    public func renderLine(_ line: Substring, number: Int) -> (text: String, status: String) {
        var out = JSONTextWriter(capacity: 1024)
        var scratch = Scratch()
        let bytes = Array(line.utf8)
        let status = renderLine(bytes, 0..<bytes.count, number: number, with: campaign, into: &out, scratch: &scratch)
        return (out.text, status.rawValue)
    }

    /// How a line ended.
    enum Status: String {
        case rendered, aborted, failed, skipped
    }

    /// What a worker reuses from line to line: a writer to build the payload in, and the
    /// buffer the fields' texts are rendered into.
    struct Scratch {
        var payload = JSONTextWriter(capacity: 1024)
        var texts = MessageTemplate.RenderedTexts()
    }

    /// Renders the NDJSON line `buffer[range]` (1-based `number`) and writes its result line
    /// (no newline) into `out`.
    func renderLine(_ buffer: [UInt8], _ range: Range<Int>, number: Int, with campaign: CompiledCampaign,
                    into out: inout JSONTextWriter, scratch: inout Scratch) -> Status {
        // {"line":N,"external_id":...,"status":...,then "payload", "reason" or "error"}
        out.beginObject()
        out.key("line")
        out.value(.int(number))
        if isBlankLine(buffer[range]) {
            out.key("status"); out.string(Status.skipped.rawValue)
            out.key("reason"); out.string("blank line")
            out.endObject()
            return .skipped
        }
        out.key("external_id")
        let document: RenderContextDocument
        do {
            document = try RenderContextDocument(jsonBuffer: buffer, range: range)
        } catch {
            out.null()
            out.key("status"); out.string("failed")
            out.key("error"); out.string("line \(number): \(error)")
            out.endObject()
            return .failed
        }
        if let id = document.externalID { out.string(id) } else { out.null() }
        scratch.payload.removeAll()
        let status: Status
        switch campaign.renderPayload(document, platform: platform, into: &scratch.payload, texts: &scratch.texts) {
        case nil:
            status = .rendered
            out.key("status"); out.string(status.rawValue)
            // The payload is already JSON text: copied in, not serialized again.
            out.key("payload"); out.raw(bytes: scratch.payload.bytes)
            // Beside the payload, never in it: what the send event carries.
            if !scratch.texts.messageExtras.isEmpty {
                out.key("message_extras"); out.value(messageExtrasObject(scratch.texts.messageExtras))
            }
        case .aborted(let reason, _)?:
            status = .aborted
            out.key("status"); out.string(status.rawValue)
            out.key("reason")
            if let reason { out.string(reason) } else { out.null() }
        case .failed(let error)?:
            status = .failed
            out.key("status"); out.string(status.rawValue)
            out.key("error"); out.string(error.description)
        case .rendered(let payload)?:
            // (renderPayload writes a rendered payload into `scratch` and returns nil.)
            status = .rendered
            out.key("status"); out.string(status.rawValue)
            out.key("payload"); out.raw(payload.serialized)
            if !payload.messageExtras.isEmpty { out.key("message_extras"); out.value(payload.messageExtrasJSON) }
        }
        // What rendered but may not be as meant (a Connected Content call without an answer).
        if !scratch.texts.warnings.isEmpty {
            out.key("warnings")
            out.value(.array(campaign.warnings(in: scratch.texts, platform: platform).map { .string($0.description) }))
        }
        out.endObject()
        return status
    }

    /// A chunk of input: whole lines in one buffer, rendered on the workers while the caller's
    /// thread reads the next chunk and writes the previous one. Two jobs take turns, so their
    /// buffers (input and results) are reused: memory is touched once, not once a chunk.
    private final class Job: @unchecked Sendable {
        /// The input bytes: `buffer[..<filled]` holds the lines (and maybe the start of the
        /// next one); line `k` is `buffer[starts[k]..<ends[k]]`, input line `numbers[k]`.
        var buffer: [UInt8]
        var filled = 0
        /// Where the bytes after the chunk's last line start (carried to the next chunk).
        var carryStart = 0
        var starts: [Int] = [], ends: [Int] = [], numbers: [Int] = []
        /// One slot per worker: its lines' results (newline-terminated, in order) and counts.
        let results: UnsafeMutableBufferPointer<(json: JSONTextWriter, summary: Summary)>
        let group = DispatchGroup()

        init(bytes: Int, lines: Int, workers: Int) {
            buffer = [UInt8](repeating: 0, count: bytes)
            starts.reserveCapacity(lines)
            ends.reserveCapacity(lines)
            numbers.reserveCapacity(lines)
            results = .allocate(capacity: workers)
            results.initialize(repeating: (JSONTextWriter(capacity: 0), Summary()))
        }

        var count: Int { starts.count }

        /// Empties the job for the next chunk (keeping every buffer's storage).
        func reset() {
            filled = 0
            carryStart = 0
            starts.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
            numbers.removeAll(keepingCapacity: true)
            for w in results.indices {
                results[w].json.removeAll()
                results[w].summary = Summary()
            }
        }

        deinit {
            results.deinitialize()
            results.deallocate()
        }
    }

    /// The result of an input line longer than ``maxLineBytes`` (its bytes were not kept).
    func tooLongLine(number: Int, into out: inout JSONTextWriter) -> Status {
        failedLine(number: number, "longer than \(maxLineBytes) bytes (the line limit); not read", into: &out)
    }

    /// A `failed` result for line `number` that has no document to read.
    func failedLine(number: Int, _ reason: String, into out: inout JSONTextWriter) -> Status {
        out.beginObject()
        out.key("line"); out.value(.int(number))
        out.key("external_id"); out.null()
        out.key("status"); out.string(Status.failed.rawValue)
        out.key("error"); out.string("line \(number): \(reason)")
        out.endObject()
        return .failed
    }

    /// Starts rendering `job`: each worker renders one contiguous slice with its own campaign
    /// copy and writes only its own result slot.
    private func start(_ job: Job) {
        let renderer = self
        let workerCount = min(workers.count, job.count)
        let per = (job.count + workerCount - 1) / workerCount
        DispatchQueue.global().async(group: job.group) {
            DispatchQueue.concurrentPerform(iterations: workerCount) { w in
                let copy = renderer.workers[w]
                let lines = (w * per)..<min(job.count, (w + 1) * per)
                var out = JSONTextWriter(capacity: 0)
                swap(&out, &job.results[w].json)
                var scratch = Scratch()
                var summary = Summary()
                for k in lines {
                    if job.ends[k] < 0 {
                        summary.count(renderer.tooLongLine(number: job.numbers[k], into: &out))
                    } else if renderer.numberedInput, let encoded = base64Document(job.buffer, job.starts[k]..<job.ends[k]) {
                        if let bytes = encoded {
                            summary.count(renderer.renderLine(bytes, 0..<bytes.count, number: job.numbers[k], with: copy,
                                                              into: &out, scratch: &scratch))
                        } else {
                            summary.count(renderer.failedLine(number: job.numbers[k], "a base64: document that is not base64", into: &out))
                        }
                    } else {
                        summary.count(renderer.renderLine(job.buffer, job.starts[k]..<job.ends[k], number: job.numbers[k], with: copy,
                                                          into: &out, scratch: &scratch))
                    }
                    out.endLine()
                }
                job.results[w] = (out, summary)
            }
        }
    }

    /// Reads NDJSON with `read` (which fills the buffer it is given from the start and returns
    /// how many bytes it put there, 0 at the end of the input) and writes each chunk's result
    /// lines (newline-terminated, in input order, one for every input line from ``firstLine``
    /// on) with `write`; `progress` is called after each chunk. At most two chunks are in
    /// memory: the one rendering and the one being read or written. An error thrown by `read`
    /// or `write` ends the run (after the chunk rendering has finished) and is rethrown; the
    /// results written before it are whole lines (each chunk's are written in order). With
    /// ``numberedInput``, a line without its number ends the run with ``NumberedLineError``.
    public func run(read: (UnsafeMutableRawBufferPointer) throws -> Int, write: (UnsafeRawBufferPointer) throws -> Void,
                    progress: (Summary) -> Void = { _ in }) throws -> Summary {
        var summary = Summary()
        var number = 0
        var rendering: Job?
        defer { rendering?.group.wait() }
        var spare: Job?
        var atEnd = false
        /// Inside a line longer than `maxLineBytes`: its bytes are dropped as they are read,
        /// across chunks, until its newline.
        var discarding = false
        /// The number of the numbered line being dropped.
        var discardedNumber = 0
        /// How long a line may grow before it is dropped: a numbered line's may hold its prefix,
        /// and a document of ``maxLineBytes`` in base64.
        let dropAfter = numberedInput ? Self.numberedLineLimit(maxLineBytes) : maxLineBytes

        func output(_ job: Job) throws {
            // The chunk's promotion codes are recorded durably before any of its payloads is written.
            if case .failed(let error)? = campaign.makeDurable() { throw error }
            for w in 0..<job.results.count where !job.results[w].json.bytes.isEmpty {
                try job.results[w].json.bytes.withUnsafeBytes { try write($0) }
                summary.add(job.results[w].summary)
            }
            progress(summary)
        }
        /// Reads into the free end of `job.buffer` (grown when full); `false` at the end of the input.
        func fill(_ job: Job) throws -> Bool {
            if job.filled == job.buffer.count { job.buffer.append(contentsOf: repeatElement(0, count: job.buffer.count)) }
            let got = try job.buffer.withUnsafeMutableBytes { raw in
                try read(UnsafeMutableRawBufferPointer(rebasing: raw[job.filled...]))
            }
            job.filled += min(max(got, 0), job.buffer.count - job.filled)
            return got > 0
        }
        /// The next chunk's lines in `job`, which starts with `carry` (the part of a line the
        /// previous chunk's buffer ended with); nil at the end.
        func nextChunk(into job: Job, carry: ArraySlice<UInt8>) throws -> Job? {
            job.reset()
            if job.buffer.count < carry.count + chunkBytes { job.buffer = [UInt8](repeating: 0, count: carry.count + chunkBytes) }
            job.buffer.replaceSubrange(0..<carry.count, with: carry)
            job.filled = carry.count
            var lineStart = 0
            var scanned = 0  // no newline in buffer[lineStart..<scanned]
            /// Counts an input line and takes it, `buffer[lineStart..<end]` (or, with `end` -1,
            /// a line too long to keep), unless it comes before `firstLine`.
            func takeLine(to end: Int) throws {
                number += 1
                guard number >= firstLine else { return }
                var start = end < 0 ? 0 : lineStart, end = end, lineNumber = number
                if numberedInput && end < 0 {
                    lineNumber = discardedNumber
                } else if numberedInput {
                    (lineNumber, start) = try job.buffer.withUnsafeBufferPointer { try numberPrefix($0, lineStart..<end, inputLine: number) }
                }
                // A line over the limit fails whether or not it was read whole (the limit is the
                // document's: a numbered line's prefix and a base64 document's encoding are not counted).
                if end >= 0 && documentLength(job.buffer, start..<end) > maxLineBytes { (start, end) = (0, -1) }
                job.starts.append(start)
                job.ends.append(end)
                job.numbers.append(lineNumber)
            }
            while job.count < chunkSize {
                let lineEnd = job.buffer.withUnsafeBufferPointer { buf -> Int? in
                    guard scanned < job.filled, let base = buf.baseAddress,
                          let found = memchr(base + scanned, 0x0A, job.filled - scanned) else { return nil }
                    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                if let lineEnd {
                    try takeLine(to: discarding ? -1 : lineEnd)
                    discarding = false
                    lineStart = lineEnd + 1
                    scanned = lineStart
                    continue
                }
                // No newline in buffer[lineStart..<filled]: a line still being read.
                if !discarding && job.filled - lineStart > dropAfter {
                    // A numbered line's number is read before its bytes are dropped.
                    if numberedInput && number + 1 >= firstLine {
                        discardedNumber = try job.buffer.withUnsafeBufferPointer {
                            try numberPrefix($0, lineStart..<job.filled, inputLine: number + 1).number
                        }
                    }
                    discarding = true
                }
                if discarding {
                    // Its bytes are dropped; a chunk with lines in it ends rather than reading
                    // the rest into a sliver of buffer (the next chunk goes on dropping).
                    job.filled = lineStart
                    if job.count > 0 && job.buffer.count - lineStart < 1 << 16 { break }
                }
                scanned = job.filled
                if job.filled == job.buffer.count {
                    // A full buffer with whole lines in it ends the chunk; the rest is carried.
                    if job.count > 0 { break }
                    // Nothing taken (lines before `firstLine`): they are dropped, not kept
                    // growing the buffer.
                    if lineStart > 0 {
                        job.buffer.withUnsafeMutableBytes { raw in
                            raw.baseAddress!.copyMemory(from: raw.baseAddress! + lineStart, byteCount: job.filled - lineStart)
                        }
                        job.filled -= lineStart
                        scanned = job.filled
                        lineStart = 0
                    }
                }
                if !atEnd, try fill(job) { continue }
                atEnd = true
                // The last line, without a newline.
                if discarding || lineStart < job.filled {
                    try takeLine(to: discarding ? -1 : job.filled)
                    discarding = false
                    lineStart = job.filled
                }
                break
            }
            // What follows the chunk's lines goes to the next chunk.
            job.carryStart = lineStart
            return job.count == 0 ? nil : job
        }
        while true {
            // Read while the previous chunk renders; its buffer ends with the start of this one.
            let fresh = spare ?? Job(bytes: chunkBytes, lines: min(chunkSize, 1 << 16), workers: workers.count)
            spare = nil
            let carry = rendering.map { $0.buffer[$0.carryStart..<$0.filled] } ?? []
            let next = atEnd && carry.isEmpty && !discarding ? nil : try nextChunk(into: fresh, carry: carry)
            if next == nil { spare = fresh }
            let previous = rendering
            previous?.group.wait()
            rendering = nil
            if let next {
                start(next)
                rendering = next
            }
            // Written while the next chunk renders; then its buffers take the chunk after.
            if let previous {
                try output(previous)
                spare = previous
            }
            if next == nil && previous == nil { break }
        }
        return summary
    }

    /// Reads lines with `nextLine` until it returns `nil`, and writes each chunk's results
    /// (newline-terminated, in input order) with `write`; `progress` is called after each
    /// chunk. At most two chunks are in memory: the one rendering and the one being read or written.
    public func run(nextLine: () -> String?, write: (String) -> Void, progress: (Summary) -> Void = { _ in }) throws -> Summary {
        // Lines become bytes for the byte-level run; a line longer than what `read` is asked
        // for is handed over in parts.
        var carry: [UInt8] = []
        var carried = 0
        return try run(
            read: { buffer in
                if carried == carry.count {
                    guard let line = nextLine() else { return 0 }
                    carry = Array(line.utf8)
                    carry.append(0x0A)
                    carried = 0
                }
                let n = min(buffer.count, carry.count - carried)
                carry.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[carried..<(carried + n)])) }
                carried += n
                return n
            },
            write: { write(String(decoding: $0, as: UTF8.self)) },
            progress: progress)
    }
}

/// `true` for a line of NDJSON input that holds no document: empty, or only spaces, tabs and a
/// carriage return. Such a line's result is `skipped`.
func isBlankLine(_ line: ArraySlice<UInt8>) -> Bool {
    line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
}

/// The line number and where the document starts, of a numbered input line `bytes[range]`
/// (`NUMBER<TAB>DOCUMENT`: 1 to 18 decimal digits, at least 1); `inputLine` names the line in errors.
func numberPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, inputLine: Int) throws -> (number: Int, documentStart: Int) {
    var value = 0
    var i = range.lowerBound
    while i < range.upperBound, i - range.lowerBound < BatchRenderer.maxNumberPrefix {
        let byte = bytes[i]
        if byte == 0x09 {
            guard i > range.lowerBound else { break }
            guard value >= 1 else { throw BatchRenderer.NumberedLineError(inputLine: inputLine, problem: "line number 0 (numbers start at 1)") }
            return (value, i + 1)
        }
        guard (0x30...0x39).contains(byte), i - range.lowerBound < BatchRenderer.maxNumberPrefix - 1 else { break }
        value = value * 10 + Int(byte - 0x30)  // at most 18 digits: no overflow
        i += 1
    }
    throw BatchRenderer.NumberedLineError(inputLine: inputLine, problem: "it does not start with a line number (1 to 18 digits) and a tab")
}

/// Where the base64 text of a numbered line's `base64:BYTES` document in `buffer[range]` is;
/// `nil` for a document given as it is.
func base64Text(_ buffer: [UInt8], _ range: Range<Int>) -> Range<Int>? {
    let marker = BatchRenderer.base64Marker
    guard range.count >= marker.count, buffer[range.lowerBound..<(range.lowerBound + marker.count)].elementsEqual(marker) else { return nil }
    return (range.lowerBound + marker.count)..<range.upperBound
}

/// A numbered line's document given as `base64:BYTES`: `.some(bytes)` decoded, `.some(nil)`
/// when BYTES is not base64; `nil` for a document given as it is.
func base64Document(_ buffer: [UInt8], _ range: Range<Int>) -> [UInt8]?? {
    guard let text = base64Text(buffer, range) else { return nil }
    var encoded = buffer[text]
    while let last = encoded.last, last == 0x0D || last == 0x20 || last == 0x09 { encoded.removeLast() }
    guard let data = Data(base64Encoded: Data(encoded)) else { return .some(nil) }
    return .some([UInt8](data))
}
