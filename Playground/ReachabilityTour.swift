import Foundation
import Sluice
import SluiceReachability

/// Step: reachability, read from the kernel's routing tables through netlink.
enum ReachabilityTour {
    static func run(_ client: Client) async throws {
        Tour.step("Reachability: the default route and the API's host, from the kernel (netlink)")
        for (name, reachability) in [("default route", Reachability.shared), ("API host", client.reachability)] {
            // Waits for the kernel's first answer (or for the reason it cannot be watched).
            let status: ReachabilityStatus
            do {
                status = try await reachability.firstKnownStatus().timeout(after: .seconds(2)).value
            } catch {
                status = reachability.status.value
            }
            let path = reachability.path.value
            let through = path.interface.map { " through \($0.name)" } ?? ""
            let why = reachability.failure.map { " (\($0.message))" } ?? ""
            print("  \(name): \(status)\(through)\(why)")
        }
    }
}
