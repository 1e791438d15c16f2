import Foundation
import Sluice
import SluiceReachability

/// Step: reachability, read from the kernel's routing tables through netlink.
enum ReachabilityTour {
    static func run(_ client: Client) async throws {
        Tour.step("Reachability: the default route and the API's host, from the kernel (netlink)")
        for (name, reachability) in [("default route", Reachability.shared), ("API host", client.reachability)] {
            // The first known status is published at once; give the kernel a moment to answer.
            let deadline = ContinuousClock.now + .seconds(2)
            while reachability.status.value == .unknown, reachability.failure == nil, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            let status = reachability.status.value
            let path = reachability.path.value
            let through = path.interface.map { " through \($0.name)" } ?? ""
            let why = reachability.failure.map { " (\($0.message))" } ?? ""
            print("  \(name): \(status)\(through)\(why)")
        }
    }
}
