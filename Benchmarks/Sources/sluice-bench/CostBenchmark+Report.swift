import BenchChild

extension CostBenchmark {
    /// A ratio between two subjects' instructions, in the table's last lines and the JSON.
    private struct Ratio {
        var title: String
        var key: String
        var subject: String
        var reference: String

        init(_ title: String, _ key: String, _ subject: String, over reference: String) {
            self.title = title
            self.key = key
            self.subject = subject
            self.reference = reference
        }
    }

    private static let ratios = [
        Ratio(
            "Sluice ÷ C sending Sluice's headers, GET:", "sluice_get_over_c_headers", "sluice_get",
            over: "c_headers_get"),
        Ratio(
            "Sluice ÷ C sending Sluice's headers, POST:", "sluice_post_over_c_headers", "sluice_post",
            over: "c_headers_post"),
        Ratio("Sluice without default headers ÷ C, GET:", "sluice_bare_get_over_c", "sluice_bare_get", over: "c_get"),
        Ratio(
            "Sluice without default headers ÷ C, POST:", "sluice_bare_post_over_c", "sluice_bare_post", over: "c_post"),
        Ratio(
            "Sluice's transport alone ÷ C sending Sluice's headers, GET:", "sluice_transport_get_over_c_headers",
            "sluice_transport_get", over: "c_headers_get"),
        Ratio("C sending Sluice's headers ÷ C, GET:", "c_headers_get_over_c", "c_headers_get", over: "c_get"),
        Ratio("C sending Sluice's headers ÷ C, POST:", "c_headers_post_over_c", "c_headers_post", over: "c_post"),
        Ratio(
            "Sluice with .adapt { $0 } ÷ Sluice, GET:", "sluice_adapt_get_over_sluice", "sluice_adapt_get",
            over: "sluice_get"),
        Ratio(
            "Sluice with its events observed ÷ Sluice, GET:", "sluice_observed_get_over_sluice", "sluice_observed_get",
            over: "sluice_get"),
        Ratio("AsyncHTTPClient ÷ Sluice, GET:", "ahc_get_over_sluice", "ahc_get", over: "sluice_get"),
        Ratio("URLSession ÷ Sluice, GET:", "urlsession_get_over_sluice", "urlsession_get", over: "sluice_get"),
    ]

    /// The tables, the ratios and the JSON member.
    static func report(plan: Plan, figures: [String: Figures], failures: [String], seconds: Double) -> SuiteReport {
        func ratio(_ subject: String, _ reference: String) -> Double {
            guard let measured = figures[subject], let base = figures[reference] else { return .nan }
            return measured.instructions / base.instructions
        }
        let made = { (count: Int) in grouped(plan.requestsMade(.parallel, count)) }
        var lines = [
            "cost: instructions and Swift objects (calls to swift_allocObject) per request under callgrind, "
                + "\(plan.inFlight) in flight against a local nginx: each child run twice, with "
                + "\(grouped(plan.low)) and \(grouped(plan.high)) requests (\(made(plan.low)) and \(made(plan.high)) "
                + "with the warm-up), the difference of the counts divided by the difference of the requests; "
                + "median of \(plan.rounds) round\(plan.rounds == 1 ? "" : "s") (range: the rounds' lowest and "
                + "highest); by object file: the instructions that ran in it (medians each), program = the child's "
                + "own code (Sluice and the harness, or the C client); \(formatted(seconds, decimals: 0)) s"
        ]
        for workload in [E2EWorkload.parallel, .post] {
            let title =
                workload == .post
                ? "\(E2EContext.postBytes)-byte POSTs, \(plan.inFlight) in flight"
                : "GETs of \(NginxRoutes.smallPayload.utf8.count) bytes, \(plan.inFlight) in flight"
            var table = TextTable(
                header: [title, "instructions", "range", "÷ C", "÷ C w/ headers", "Swift objects"]
                    + CallgrindProfile.Part.allCases.map(\.label))
            let verb = workload == .post ? "post" : "get"
            for subject in subjects where subject.workload == workload {
                guard let f = figures[subject.key] else { continue }
                table.rows.append(
                    [
                        subject.client.label, grouped(Int(f.instructions.rounded())),
                        "\(grouped(Int(f.lowest.rounded())))–\(grouped(Int(f.highest.rounded())))",
                        formatted(ratio(subject.key, "c_\(verb)"), decimals: 2),
                        formatted(ratio(subject.key, "c_headers_\(verb)"), decimals: 2),
                        formatted(f.allocations, decimals: 2),
                    ]
                        + CallgrindProfile.Part.allCases.map { grouped(Int((f.instructionsByPart[$0] ?? 0).rounded())) }
                )
            }
            if !table.rows.isEmpty { lines += ["", table.rendered] }
        }
        lines.append("")
        for r in ratios {
            let value = ratio(r.subject, r.reference)
            guard value.isFinite else { continue }
            lines.append(
                r.title + String(repeating: " ", count: max(1, 52 - r.title.count)) + formatted(value, decimals: 2))
        }
        let budgets = budgetReport(figures)
        lines += budgets.lines
        if !failures.isEmpty { lines.append("FAILED: " + failures.joined(separator: ", ")) }

        var members: [(String, JSON)] = []
        for subject in subjects {
            guard let f = figures[subject.key] else { continue }
            members.append((subject.key + "_instructions", .integer(Int(f.instructions.rounded()))))
        }
        for subject in subjects {
            guard let f = figures[subject.key] else { continue }
            members.append((subject.key + "_allocations", .number(f.allocations)))
        }
        for r in ratios {
            let value = ratio(r.subject, r.reference)
            if value.isFinite { members.append((r.key, .number(value))) }
        }
        members += budgets.members
        for subject in subjects {
            guard let f = figures[subject.key] else { continue }
            members.append((subject.key + "_instructions_min", .integer(Int(f.lowest.rounded()))))
            members.append((subject.key + "_instructions_max", .integer(Int(f.highest.rounded()))))
        }
        for subject in subjects {
            guard let f = figures[subject.key] else { continue }
            for part in CallgrindProfile.Part.allCases {
                members.append(
                    (
                        "\(subject.key)_instructions_\(part.rawValue)",
                        .integer(Int((f.instructionsByPart[part] ?? 0).rounded()))
                    ))
            }
        }
        members += [
            ("requests_low", .integer(plan.low)),
            ("requests_high", .integer(plan.high)),
            ("in_flight", .integer(plan.inFlight)),
            ("rounds", .integer(plan.rounds)),
            ("all_succeeded", .bool(failures.isEmpty)),
        ]
        return SuiteReport(text: lines.joined(separator: "\n"), json: .object(members), isConsistent: failures.isEmpty)
    }
}
