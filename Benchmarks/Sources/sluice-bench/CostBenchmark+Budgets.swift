import BenchChild

extension CostBenchmark {
    /// A limit a GET's cost must keep (Docs/Decisions.md, "Speed"): the transport against C, and
    /// what the client's one path adds on top of its transport.
    struct Budget: Sendable {
        /// The line's title in the report.
        var title: String
        /// Its key in the JSON (`<key>` and `<key>_met`).
        var key: String
        /// The figure, from the suite's figures; nil when a subject it needs was not measured.
        var measure: @Sendable ([String: Figures]) -> Double?
        /// The most the figure may be.
        var limit: Double
        /// Decimals to print the figure and the limit with.
        var decimals: Int
        /// Whether the figure is compared once rounded to a whole number (objects: a fraction of
        /// one per request is work that depends on time, such as the metrics' timer, not on requests).
        var comparesWhole = false

        /// Whether `figure` keeps within the limit.
        func isMet(_ figure: Double) -> Bool {
            (comparesWhole ? figure.rounded() : figure) <= limit
        }
    }

    /// The chain's own cost: the client's GET less its transport's, handed the same request.
    static func chain(_ figures: [String: Figures], _ value: (Figures) -> Double) -> Double? {
        guard let client = figures["sluice_get"], let transport = figures["sluice_transport_get"] else { return nil }
        return value(client) - value(transport)
    }

    /// The budgets, in the order the report prints them.
    static let budgets = [
        Budget(
            title: "transport alone ÷ C sending Sluice's headers", key: "budget_transport_get_over_c_headers",
            measure: { figures in
                guard let transport = figures["sluice_transport_get"], let c = figures["c_headers_get"] else {
                    return nil
                }
                return transport.instructions / c.instructions
            }, limit: 1.08, decimals: 2),
        Budget(
            title: "the chain's instructions (client − transport alone)", key: "sluice_chain_get_instructions",
            measure: { chain($0, \.instructions) }, limit: 11_000, decimals: 0),
        Budget(
            title: "the chain's Swift objects", key: "sluice_chain_get_allocations",
            measure: { chain($0, \.allocations) }, limit: 6, decimals: 2, comparesWhole: true),
        Budget(
            title: "the client's Swift objects", key: "budget_sluice_get_allocations",
            measure: { $0["sluice_get"]?.allocations }, limit: 12, decimals: 2, comparesWhole: true),
    ]

    /// The budget lines of the report, and their JSON members (each figure, whether it is met, and
    /// whether all measured ones are).
    static func budgetReport(_ figures: [String: Figures]) -> (lines: [String], members: [(String, JSON)]) {
        var table = TextTable(header: ["budgets per GET (Docs/Decisions.md)", "figure", "limit", ""])
        var members: [(String, JSON)] = []
        var allMet = true
        for budget in budgets {
            guard let figure = budget.measure(figures), figure.isFinite else { continue }
            let met = budget.isMet(figure)
            allMet = allMet && met
            let text = { (value: Double) in
                budget.decimals == 0 ? grouped(Int(value.rounded())) : formatted(value, decimals: budget.decimals)
            }
            let limit = budget.comparesWhole ? grouped(Int(budget.limit)) : text(budget.limit)
            table.rows.append([budget.title, text(figure), "≤ " + limit, met ? "met" : "MISSED"])
            members.append((budget.key, budget.decimals == 0 ? .integer(Int(figure.rounded())) : .number(figure)))
            members.append((budget.key + "_met", .bool(met)))
        }
        guard !table.rows.isEmpty else { return ([], []) }
        members.append(("budgets_met", .bool(allMet)))
        return (["", table.rendered], members)
    }
}
