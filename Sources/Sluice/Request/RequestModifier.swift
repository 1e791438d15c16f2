import FoundationEssentials

/// Changes one request after the client has built it and before it is sent: the way to give a
/// single request its own options (a timeout, a deadline, a retry policy, TLS settings), headers
/// or body, as Alamofire's request modifier does. It runs once, when the producer or task is
/// made; the request's own fields win over the client's configuration.
///
///     client.get("report") { request in
///         request.options.timeout = .seconds(60)
///         request.options.deadline = .seconds(120)  // across every retry and redirect
///     }
///
/// A modifier that throws fails the request, and nothing is sent.
public typealias RequestModifier = (inout Request) throws(SluiceError) -> Void
