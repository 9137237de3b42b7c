import Foundation
import Testing

@testable import EndpointKit

/// Every decision a download makes, without files or a network: what it asks for, which heads it writes, and
/// what it does once a body is written.
@Suite
struct DownloadPlanTests {
    private let kept = DownloadPlan.Kept(bytes: 100, validator: "\"v1\"")

    private func headers(_ fields: [String: String]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for (name, value) in fields { headers.add(value, for: HTTPHeaders.Name(name)) }
        return headers
    }

    // MARK: What is asked for

    @Test("With nothing kept and no part size, the whole file is asked for, with no range")
    func asksForTheWholeFile() {
        let plan = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true)
        #expect(plan.ask() == DownloadPlan.Ask(range: nil, ifRange: nil, resumedBytes: nil, start: 0))
    }

    @Test("A kept part is resumed after its last byte, with If-Range naming its validator")
    func resumesAfterTheKeptPart() {
        let plan = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true)
        #expect(plan.ask() == DownloadPlan.Ask(range: "bytes=100-", ifRange: "\"v1\"", resumedBytes: 100, start: 100))
    }

    @Test("In parts, the first part is asked from byte 0, and a 206 for it is expected from 0")
    func asksForTheFirstPart() {
        let plan = DownloadPlan(kept: nil, partSize: 1000, canBeSentAgain: true)
        #expect(plan.ask() == DownloadPlan.Ask(range: "bytes=0-999", ifRange: nil, resumedBytes: 0, start: 0))
    }

    @Test("A part near Int64.max ends at Int64.max instead of overflowing")
    func partEndSaturates() {
        let plan = DownloadPlan(
            kept: DownloadPlan.Kept(bytes: .max - 10, validator: "v"),
            partSize: 1000,
            canBeSentAgain: true
        )
        #expect(plan.ask().range == "bytes=\(Int64.max - 10)-\(Int64.max)")
    }

    @Test("No parts for a body that cannot be sent once per part, nor for a part size of zero or less")
    func partsNeedARepeatableBody() {
        #expect(DownloadPlan(kept: nil, partSize: 1000, canBeSentAgain: false).partSize == nil)
        #expect(DownloadPlan(kept: nil, partSize: 0, canBeSentAgain: true).partSize == nil)
        #expect(DownloadPlan(kept: nil, partSize: -5, canBeSentAgain: true).partSize == nil)
    }

    // MARK: Which heads are the file

    @Test("A 200 is the whole file from byte 0, whatever was kept; its length is the expected size")
    func wholeFileTarget() {
        let ask = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true).ask()
        let target = DownloadPlan.target(for: ask, statusCode: 200, headers: HTTPHeaders(), length: 500)
        #expect(target == DownloadPlan.Target(start: 0, expected: 500, end: 500))
    }

    @Test("A 206 for exactly the range asked continues the kept part up to the total")
    func matchingPartTarget() {
        let ask = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true).ask()
        let head = headers(["Content-Range": "bytes 100-499/500", "ETag": "\"v1\""])
        let target = DownloadPlan.target(for: ask, statusCode: 206, headers: head, length: 400)
        #expect(target == DownloadPlan.Target(start: 100, expected: 500, end: 500))
    }

    @Test("A 206 for another range than asked is not the file")
    func otherRangeIsNotTheFile() {
        let ask = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true).ask()
        let head = headers(["Content-Range": "bytes 0-499/500"])
        #expect(DownloadPlan.target(for: ask, statusCode: 206, headers: head, length: 500) == nil)
    }

    @Test("A 206 naming another validator than If-Range did (a server ignoring If-Range) is not the file")
    func otherVersionIsNotTheFile() {
        let ask = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true).ask()
        let head = headers(["Content-Range": "bytes 100-499/500", "ETag": "\"v2\""])
        #expect(DownloadPlan.target(for: ask, statusCode: 206, headers: head, length: 400) == nil)
    }

    @Test("A 206 to a request that asked for no range, or with no Content-Range, is not the file")
    func unaskedPartIsNotTheFile() {
        let whole = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true).ask()
        let head = headers(["Content-Range": "bytes 0-9/10"])
        #expect(DownloadPlan.target(for: whole, statusCode: 206, headers: head, length: 10) == nil)
        let resumed = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true).ask()
        #expect(DownloadPlan.target(for: resumed, statusCode: 206, headers: HTTPHeaders(), length: 10) == nil)
    }

    @Test("A part of a file in parts ends where its Content-Range ends; the total is the expected size")
    func partTargetEndsWithItsRange() {
        let ask = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true).ask()
        let head = headers(["Content-Range": "bytes 0-99/250"])
        let target = DownloadPlan.target(for: ask, statusCode: 206, headers: head, length: 100)
        #expect(target == DownloadPlan.Target(start: 0, expected: 250, end: 100))
    }

    @Test("A status outside 2xx is never the file")
    func errorStatusIsNotTheFile() {
        let ask = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true).ask()
        #expect(DownloadPlan.target(for: ask, statusCode: 404, headers: HTTPHeaders(), length: 10) == nil)
    }

    // MARK: After a refusal

    @Test("A 416 to a resumption whose total is what was kept completes the kept file as it is")
    func rangeNotSatisfiableCompletesAWholeKeptFile() {
        var plan = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true)
        #expect(plan.afterRefusal(statusCode: 416, total: 100) == .complete(creatingEmptyFile: false))
    }

    @Test("A 416 to the first part of an empty file completes an empty file")
    func rangeNotSatisfiableCompletesAnEmptyFile() {
        var plan = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true)
        #expect(plan.afterRefusal(statusCode: 416, total: 0) == .complete(creatingEmptyFile: true))
    }

    @Test("A 416 naming another total than what was kept starts over, from nothing")
    func rangeNotSatisfiableForAStaleFileRestarts() {
        var plan = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true)
        #expect(plan.afterRefusal(statusCode: 416, total: 50) == .sendAfterDiscarding)
        #expect(plan.kept == nil)
        #expect(plan.ask().range == nil)
    }

    @Test("A 416 to a request that asked for nothing past the end, or any other error, stands")
    func otherRefusalsStand() {
        var whole = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true)
        #expect(whole.afterRefusal(statusCode: 416, total: 0) == .rethrow)
        var inParts = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true)
        #expect(inParts.afterRefusal(statusCode: 416, total: 10) == .rethrow)
        var resumed = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true)
        #expect(resumed.afterRefusal(statusCode: 404, total: nil) == .rethrow)
        #expect(resumed.afterRefusal(statusCode: nil, total: nil) == .rethrow)
    }

    @Test("Only the first request's 416 is read as 'already whole'")
    func laterRangeNotSatisfiableStands() {
        var plan = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true)
        _ = plan.afterHead(DownloadPlan.Target(start: 100, expected: 500, end: 500))
        #expect(plan.afterRefusal(statusCode: 416, total: 100) == .rethrow)
    }

    // MARK: After a head

    @Test("A head that is the file is written; one that is not starts over, and the second time gives up")
    func headsThatAreNotTheFileRestartThenGiveUp() {
        var plan = DownloadPlan(kept: kept, partSize: nil, canBeSentAgain: true)
        #expect(plan.afterHead(DownloadPlan.Target(start: 100, expected: 500, end: 500)) == .write)
        #expect(plan.afterHead(nil) == .sendAfterDiscarding)
        #expect(plan.kept == nil)
        #expect(plan.afterHead(nil) == .giveUp)
        #expect(plan.restarts == DownloadPlan.maxRestarts)
    }

    // MARK: After a body

    @Test("A body that reached its announced end completes the file")
    func completeBodyCompletes() {
        var plan = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true)
        let target = DownloadPlan.Target(start: 0, expected: 500, end: 500)
        #expect(
            plan.afterBody(written: 500, target: target, statusCode: 200, keptNow: nil)
                == .complete(creatingEmptyFile: false)
        )
    }

    @Test("A body of unknown length that ended completes the file")
    func unknownLengthCompletes() {
        var plan = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true)
        let target = DownloadPlan.Target(start: 0, expected: nil, end: nil)
        #expect(
            plan.afterBody(written: 12, target: target, statusCode: 200, keptNow: nil)
                == .complete(creatingEmptyFile: false)
        )
    }

    @Test("A body cut short of its end is a transient failure that keeps the partial file")
    func shortBodyFails() {
        var plan = DownloadPlan(kept: nil, partSize: nil, canBeSentAgain: true)
        let target = DownloadPlan.Target(start: 0, expected: 500, end: 500)
        let next = plan.afterBody(written: 200, target: target, statusCode: 200, keptNow: nil)
        #expect(next == .fail("the download ended after 200 of 500 bytes; the next download resumes it"))
    }

    @Test("A whole part of a larger file asks for the next part, with the validator it named")
    func nextPart() {
        var plan = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true)
        let target = DownloadPlan.Target(start: 0, expected: 250, end: 100)
        let now = DownloadPlan.Kept(bytes: 100, validator: "\"v1\"")
        #expect(plan.afterBody(written: 100, target: target, statusCode: 206, keptNow: now) == .send)
        #expect(
            plan.ask() == DownloadPlan.Ask(range: "bytes=100-199", ifRange: "\"v1\"", resumedBytes: 100, start: 100)
        )
    }

    @Test("A part whose head named no validator makes the download ask for the whole file instead")
    func partWithoutValidatorAsksWhole() {
        var plan = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true)
        let target = DownloadPlan.Target(start: 0, expected: 250, end: 100)
        #expect(plan.afterBody(written: 100, target: target, statusCode: 206, keptNow: nil) == .sendAfterDiscarding)
        #expect(plan.partSize == nil)
        #expect(plan.ask().range == nil)
        #expect(plan.restarts == 0)
    }

    @Test("A part of a file whose total is unknown makes the download ask for the whole file")
    func partOfUnknownSizeAsksWhole() {
        var plan = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true)
        let target = DownloadPlan.Target(start: 0, expected: nil, end: nil)
        #expect(plan.afterBody(written: 100, target: target, statusCode: 206, keptNow: nil) == .sendAfterDiscarding)
        #expect(plan.partSize == nil)
    }

    @Test("A short body that is not a part in progress fails instead of asking again")
    func shortNonPartFails() {
        // A 200 to a request in parts (the server ignored Range) that ends short.
        var inParts = DownloadPlan(kept: nil, partSize: 100, canBeSentAgain: true)
        let whole = DownloadPlan.Target(start: 0, expected: 250, end: nil)
        #expect(
            inParts.afterBody(written: 120, target: whole, statusCode: 200, keptNow: nil)
                == .fail(
                    "the download ended after 120 of 250 bytes; the next download resumes it"
                )
        )
        // A part that added nothing.
        var stuck = DownloadPlan(
            kept: DownloadPlan.Kept(bytes: 100, validator: "v"),
            partSize: 100,
            canBeSentAgain: true
        )
        let empty = DownloadPlan.Target(start: 100, expected: 250, end: nil)
        #expect(
            stuck.afterBody(written: 100, target: empty, statusCode: 206, keptNow: nil)
                == .fail(
                    "the download ended after 100 of 250 bytes; the next download resumes it"
                )
        )
    }
}
