import Foundation
import Liquid
import Personalization

/// Renders a campaign for a stream of recipients: NDJSON render context documents in, one
/// JSON result a line out, in input order. Lines are rendered in chunks on every core; memory
/// stays bounded by the chunk size, whatever the input's length. A malformed line gives a
/// `failed` line and the batch goes on.
public struct BatchRenderer: Sendable {
    /// The compiled campaign.
    public let campaign: CompiledCampaign
    /// The platform.
    public let platform: Platform
    /// Lines rendered together (the memory bound).
    public var chunkSize: Int

    /// Workers rendering in parallel, each with its own compiled copy of the campaign.
    let workers: [CompiledCampaign]

    /// A renderer for `campaign` on `platform`, using every core.
    public init(campaign: CompiledCampaign, platform: Platform, chunkSize: Int = 4096,
                workers: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.campaign = campaign
        self.platform = platform
        self.chunkSize = max(1, chunkSize)
        var copies = [campaign]
        for _ in 1..<max(1, workers) { copies.append((try? campaign.recompiled()) ?? campaign) }
        self.workers = copies
    }

    /// Counts of one batch.
    public struct Summary: Sendable, Equatable {
        /// Lines rendered.
        public var rendered = 0
        /// Lines whose message aborted.
        public var aborted = 0
        /// Lines that failed (malformed or errors).
        public var failed = 0
        /// All lines.
        public var lines: Int { rendered + aborted + failed }
        /// Counts.
        public init(rendered: Int = 0, aborted: Int = 0, failed: Int = 0) {
            self.rendered = rendered
            self.aborted = aborted
            self.failed = failed
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
        case rendered, aborted, failed
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
        }
        out.endObject()
        return status
    }

    /// A chunk of input: whole lines in one buffer, rendered on the workers while the caller's
    /// thread reads the next chunk and writes the previous one.
    private final class Job: @unchecked Sendable {
        /// The input bytes; line `k` is `buffer[starts[k]..<ends[k]]`, input line `numbers[k]`.
        var buffer: [UInt8]
        let starts: [Int], ends: [Int], numbers: [Int]
        /// One slot per worker: its lines' results (newline-terminated, in order) and counts.
        let results: UnsafeMutableBufferPointer<(bytes: [UInt8], summary: Summary)>
        let group = DispatchGroup()

        init(buffer: [UInt8], starts: [Int], ends: [Int], numbers: [Int], workers: Int) {
            (self.buffer, self.starts, self.ends, self.numbers) = (buffer, starts, ends, numbers)
            results = .allocate(capacity: workers)
            results.initialize(repeating: ([], Summary()))
        }

        var count: Int { starts.count }

        deinit {
            results.deinitialize()
            results.deallocate()
        }
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
                var out = JSONTextWriter(capacity: lines.count * 512)
                var scratch = Scratch()
                var summary = Summary()
                for k in lines {
                    switch renderer.renderLine(job.buffer, job.starts[k]..<job.ends[k], number: job.numbers[k], with: copy, into: &out, scratch: &scratch) {
                    case .rendered: summary.rendered += 1
                    case .aborted: summary.aborted += 1
                    case .failed: summary.failed += 1
                    }
                    out.endLine()
                }
                job.results[w] = (out.bytes, summary)
            }
        }
    }

    /// Reads NDJSON with `read` (which fills the buffer it is given from the start and returns
    /// how many bytes it put there, 0 at the end of the input) and writes each chunk's result
    /// lines (newline-terminated, in input order) with `write`; `progress` is called after each
    /// chunk. At most two chunks are in memory: the one rendering and the one being read or
    /// written. An error thrown by `read` or `write` ends the run (after the chunk rendering
    /// has finished) and is rethrown.
    public func run(read: (UnsafeMutableRawBufferPointer) throws -> Int, write: (UnsafeRawBufferPointer) throws -> Void,
                    progress: (Summary) -> Void = { _ in }) rethrows -> Summary {
        var summary = Summary()
        var number = 0
        var rendering: Job?
        defer { rendering?.group.wait() }
        // Bytes read and not yet in a chunk (at most one partial line past the chunk's lines).
        var pending: [UInt8] = []
        var scanned = 0
        var atEnd = false
        let block = 1 << 18
        let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: block, alignment: 16)
        var spareInput: [UInt8] = []
        defer { readBuffer.deallocate() }

        func output(_ job: Job) throws {
            for w in 0..<job.results.count where !job.results[w].bytes.isEmpty {
                try job.results[w].bytes.withUnsafeBytes { try write($0) }
                summary.rendered += job.results[w].summary.rendered
                summary.aborted += job.results[w].summary.aborted
                summary.failed += job.results[w].summary.failed
            }
            // Its input buffer takes the next input (memory already mapped: no page faults).
            if spareInput.capacity < job.buffer.capacity { swap(&spareInput, &job.buffer) }
            progress(summary)
        }
        /// Reads one more block into `pending`; `false` at the end of the input.
        func fill() throws -> Bool {
            let got = min(try read(readBuffer), readBuffer.count)
            if got > 0 { pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: readBuffer[..<got])) }
            return got > 0
        }
        /// The next chunk's lines (blank lines skipped, though counted), or nil at the end.
        func nextChunk() throws -> Job? {
            var starts: [Int] = [], ends: [Int] = [], numbers: [Int] = []
            starts.reserveCapacity(chunkSize)
            ends.reserveCapacity(chunkSize)
            numbers.reserveCapacity(chunkSize)
            var lineStart = 0
            while starts.count < chunkSize {
                // `scanned`: where the search for the line's newline goes on (no newline before it).
                let from = max(scanned, lineStart)
                let lineEnd = pending.withUnsafeBufferPointer { buf -> Int in
                    guard from < buf.count, let base = buf.baseAddress,
                          let found = memchr(base + from, 0x0A, buf.count - from) else { return buf.count }
                    return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                }
                let complete = lineEnd < pending.count
                if !complete {
                    scanned = lineEnd
                    if !atEnd {
                        if try !fill() { atEnd = true }
                        continue
                    }
                    if lineStart == pending.count { break }  // nothing after the last newline
                }
                number += 1
                if !isBlankLine(pending[lineStart..<lineEnd]) {
                    starts.append(lineStart)
                    ends.append(lineEnd)
                    numbers.append(number)
                }
                lineStart = complete ? lineEnd + 1 : lineEnd
                scanned = lineStart
                if !complete { break }  // the last line, without a newline
            }
            // The chunk takes the buffer; what follows its lines starts the next one.
            var next: [UInt8] = []
            swap(&next, &spareInput)
            if !next.isEmpty { next.removeAll(keepingCapacity: true) }
            // Room for a chunk like this one, so that reading does not grow the buffer step by step.
            next.reserveCapacity(pending.count + block)
            next.append(contentsOf: pending[lineStart...])
            let buffer = pending
            pending = next
            scanned = 0
            if starts.isEmpty { return atEnd && pending.isEmpty ? nil : try nextChunk() }
            return Job(buffer: buffer, starts: starts, ends: ends, numbers: numbers, workers: workers.count)
        }
        while true {
            // Read while the previous chunk renders.
            let next = try nextChunk()
            let previous = rendering
            previous?.group.wait()
            rendering = nil
            if let next {
                start(next)
                rendering = next
            }
            // Written while the next chunk renders.
            if let previous { try output(previous) }
            if next == nil && previous == nil { break }
        }
        return summary
    }

    /// Reads lines with `nextLine` until it returns `nil`, and writes each chunk's results
    /// (newline-terminated, in input order) with `write`; `progress` is called after each
    /// chunk. At most two chunks are in memory: the one rendering and the one being read or written.
    public func run(nextLine: () -> String?, write: (String) -> Void, progress: (Summary) -> Void = { _ in }) -> Summary {
        // Lines become bytes for the byte-level run; a line longer than what `read` is asked
        // for is handed over in parts.
        var carry: [UInt8] = []
        var carried = 0
        return run(
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
/// carriage return. Such lines are skipped (and still counted for line numbers).
func isBlankLine(_ line: ArraySlice<UInt8>) -> Bool {
    line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }
}
