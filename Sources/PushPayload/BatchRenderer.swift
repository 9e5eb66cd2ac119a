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
        renderLine(line, number: number, with: campaign)
    }

    func renderLine(_ line: Substring, number: Int, with campaign: CompiledCampaign) -> (text: String, status: String) {
        // {"line":N,"external_id":...,"status":...,then "payload", "reason" or "error"}
        var out = JSONTextWriter(capacity: 1024)
        out.beginObject()
        out.key("line")
        out.value(.int(number))
        out.key("external_id")
        let document: RenderContextDocument
        do {
            document = try RenderContextDocument(json: String(line))
        } catch {
            out.null()
            out.key("status"); out.string("failed")
            out.key("error"); out.string("line \(number): \(error)")
            out.endObject()
            return (out.text, "failed")
        }
        if let id = document.externalID { out.string(id) } else { out.null() }
        let status: String
        switch campaign.render(document, platform: platform) {
        case .rendered(let payload):
            status = "rendered"
            out.key("status"); out.string(status)
            // The payload is already serialized: spliced in, not serialized again.
            out.key("payload"); out.raw(payload.serialized)
        case .aborted(let reason, _):
            status = "aborted"
            out.key("status"); out.string(status)
            out.key("reason")
            if let reason { out.string(reason) } else { out.null() }
        case .failed(let error):
            status = "failed"
            out.key("status"); out.string(status)
            out.key("error"); out.string(error.description)
        }
        out.endObject()
        return (out.text, status)
    }

    /// One chunk being rendered on the workers while the caller's thread reads the next chunk
    /// and writes the previous one.
    private final class Job: @unchecked Sendable {
        let lines: [String]
        let numbers: [Int]
        let results: UnsafeMutableBufferPointer<(text: String, status: String)>
        let group = DispatchGroup()

        init(lines: [String], numbers: [Int]) {
            self.lines = lines
            self.numbers = numbers
            results = .allocate(capacity: lines.count)
            results.initialize(repeating: ("", ""))
        }

        deinit {
            results.deinitialize()
            results.deallocate()
        }
    }

    /// Starts rendering `job`: each worker renders one contiguous slice with its own campaign
    /// copy and writes only its own result slots.
    private func start(_ job: Job) {
        let renderer = self
        let workerCount = min(workers.count, job.lines.count)
        let per = (job.lines.count + workerCount - 1) / workerCount
        DispatchQueue.global().async(group: job.group) {
            DispatchQueue.concurrentPerform(iterations: workerCount) { w in
                let copy = renderer.workers[w]
                for i in (w * per)..<min(job.lines.count, (w + 1) * per) {
                    job.results[i] = renderer.renderLine(Substring(job.lines[i]), number: job.numbers[i], with: copy)
                }
            }
        }
    }

    /// Reads lines with `nextLine` until it returns `nil`, and writes each chunk's results
    /// (newline-terminated, in input order) with `write`; `progress` is called after each
    /// chunk. At most two chunks are in memory: the one rendering and the one being read or written.
    public func run(nextLine: () -> String?, write: (String) -> Void, progress: (Summary) -> Void = { _ in }) -> Summary {
        var summary = Summary()
        var number = 0
        var chunk: [String] = []
        var numbers: [Int] = []
        chunk.reserveCapacity(chunkSize)
        var rendering: Job?

        func output(_ job: Job) {
            var text = ""
            for r in job.results {
                text += r.text
                text += "\n"
                switch r.status {
                case "rendered": summary.rendered += 1
                case "aborted": summary.aborted += 1
                default: summary.failed += 1
                }
            }
            write(text)
            progress(summary)
        }
        func launch() {
            let previous = rendering
            previous?.group.wait()
            rendering = nil
            if !chunk.isEmpty {
                let job = Job(lines: chunk, numbers: numbers)
                start(job)
                rendering = job
                chunk = []
                numbers = []
                chunk.reserveCapacity(chunkSize)
            }
            // Written while the next chunk renders.
            if let previous { output(previous) }
        }
        // Lines keep their input line numbers; blank lines are skipped.
        while let line = nextLine() {
            number += 1
            if line.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\r" }) { continue }
            chunk.append(line)
            numbers.append(number)
            if chunk.count >= chunkSize { launch() }
        }
        launch()
        launch()
        return summary
    }
}
