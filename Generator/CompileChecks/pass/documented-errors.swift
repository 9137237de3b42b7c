// A documented error body is read from the EndpointError a call throws: one type with documentedBody(as:), several
// through the operation's error enum, by status.
import EndpointKit

func read(_ error: EndpointError) throws {
    let problem: Problem = try error.documentedBody(as: Problem.self)
    _ = problem.code
    switch try DeleteThingError(error) {
    case .status409(let conflict): _ = conflict.holders
    case .status5XX(let outage): _ = outage.detail
    }
}
