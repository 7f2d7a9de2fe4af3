import ArgumentParser
import Glibc
import Priority
import Publishing
import StationCore

struct PriorityMapCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "map",
        abstract: "Draw the stations coloured by weight as an SVG (optionally one viewport's pins).",
        discussion: Help.text(PackageResources.prioritymap_txt)
    )

    @OptionGroup var stations: WeightedStationsOptions

    @OptionGroup var proposal: ProposalOptions

    @Option(help: "With --proposal: the raw folder whose weights.csv is the default of --hand.")
    var raw = "raw"

    @Option(help: "The SVG file to write.")
    var out = "build/weights.svg"

    @Option(help: "LAT,LNG,SPAN: frame this view and ring the pins it shows, e.g. 35.68,139.76,0.5.")
    var viewport: Viewport?

    @Option(help: "Pins per view (the clients' N) for --viewport.")
    var pins = 100

    @Option(help: "Also write a PNG with rsvg-convert.")
    var png: String?

    func validate() throws {
        guard proposal.proposal != nil else { return try stations.checkGiven() }
        guard stations.staging != nil, stations.bundle == nil, stations.weights == nil else {
            throw ValidationError("--proposal weighs the stations itself: give --staging PATH alone")
        }
    }

    func run() throws {
        // With a proposal: the hand weights in place and the proposal side by side, each ringing the country's pins.
        let panels = proposal.proposal == nil ? [(stations.label, try stations.load())]
            : try proposal.weighings(staging: stations.staging ?? "", raw: raw).prefix(2).map { ($0.label, $0.stations) }
        let svg = WeightMap.svg(panels, viewport: viewport, country: proposal.proposal != nil, pins: pins)
        try AtomicFile.write(svg, to: out)
        note("priority: wrote \(out)")
        if let png {
            let candidates = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"]
            guard let tool = candidates.first(where: { access($0, X_OK) == 0 }) else {
                note("priority: rsvg-convert is not installed (Debian: librsvg2-bin); only the SVG was written")
                return
            }
            guard try Subprocess.run([tool, "-o", png, out], capture: false).status == 0 else { throw StationError.environment("rsvg-convert failed on \(out)") }
            note("priority: wrote \(png)")
        }
    }
}

extension Viewport: ExpressibleByArgument {
    package init?(argument: String) { self.init(text: argument) }
}
