import CLibXML2
import Glibc
import StationCore

/// Reads an N02 railway file (JPGIS 2.1 GML, sources.md section 3) into a `SourceNetwork` of kind `.n02`.
///
/// The document is streamed through libxml2's SAX2 push parser in fixed-size chunks: no tree is
/// built and the file is never held in memory. Per curve only its middle point is kept, so memory
/// grows with the number of curves and features, not with the length of their coordinate lists.
/// The declared encoding (UTF-8, Shift_JIS, ...) is honoured by libxml2 (iconv).
package enum N02Reader {
    package static func read(path: String, label: String) throws -> SourceNetwork {
        var parser = N02Parser(label: label)
        try parser.parse(path: path)
        try parser.diagnostics.check()
        var assembly = N02Assembly(label: label, curves: parser.curves, companies: parser.companies.names,
                                   lineNames: parser.lineNames.names,
                                   stations: parser.stations, sections: parser.sections)
        var network = try assembly.build()
        network.warnings = parser.unknownCodes.keys.sorted().map { what in
            let seen = parser.unknownCodes[what]!
            return Diagnostic(SourceLocation(file: label, line: seen.line, field: what.element),
                              "unknown code \(what.code) (known: \(what.known)); kept, on \(seen.count) feature\(seen.count == 1 ? "" : "s")")
        }
        return network
    }

    /// The codes of sources.md: railwayType and serviceProviderType.
    static let knownRailwayTypes = [11, 12, 13, 14, 15, 16, 17, 21, 22, 23, 24, 25]
    static let knownServiceProviderTypes = [1, 2, 3, 4, 5]
}

/// A code the known list lacks, e.g. ksj:railwayType 18.
struct N02UnknownCode: Hashable, Comparable {
    var element: String
    var code: Int
    var known: String {
        (element == N02Tag.railwayType.qualifiedName ? N02Reader.knownRailwayTypes : N02Reader.knownServiceProviderTypes)
            .map(String.init).joined(separator: ", ")
    }
    static func < (a: N02UnknownCode, b: N02UnknownCode) -> Bool { (a.element, a.code) < (b.element, b.code) }
}

// MARK: - Records the parser keeps

/// A curve's middle point (nil when its coordinates were bad; that was reported already).
struct N02Curve {
    var line: Int
    var lat: Int
    var lng: Int
    var valid: Bool
}

/// The attributes shared by ksj:Station and ksj:RailroadSection.
struct N02FeatureCore {
    var gmlID: String
    var line: Int            // line of the feature's start tag
    var curveID: String      // xlink:href without the '#'
    var hrefLine: Int        // line of ksj:location
    var company: Int         // index into the parser's company names
    var lineName: Int        // index into the parser's line names
    var serviceProviderType: Int?
    var railwayType: Int?
}

struct N02StationRecord {
    var core: N02FeatureCore
    var name: String
    var code: String?
    var group: String?
    var isShinkansen: Bool { core.serviceProviderType == 1 }
}

/// Company and line names repeat on every feature: each distinct one becomes one String, and
/// features carry its index. Consecutive features mostly repeat the last name, so it is checked first.
struct N02Names {
    private var index: [[UInt8]: Int] = [:]
    private(set) var names: [String] = []
    private var last: (bytes: [UInt8], index: Int)?

    mutating func intern(_ bytes: ArraySlice<UInt8>) -> Int {
        if let last, last.bytes.elementsEqual(bytes) { return last.index }
        let key = Array(bytes)
        let found = index[key] ?? {
            names.append(String(decoding: key, as: UTF8.self))
            index[key] = names.count - 1
            return names.count - 1
        }()
        last = (key, found)
        return found
    }
}

/// A small code element's content.
enum N02Code {
    case absent
    case value(Int)
    case invalid(String)

    init(_ bytes: ArraySlice<UInt8>) {
        if bytes.isEmpty { self = .absent; return }
        var n = 0
        for b in bytes {
            guard b >= 48 && b <= 57, n < 1_000_000 else {
                self = .invalid(String(decoding: bytes.prefix(40), as: UTF8.self))
                return
            }
            n = n * 10 + Int(b - 48)
        }
        self = .value(n)
    }
}

// MARK: - The streaming parser

/// Elements the reader cares about; everything else is `.other` and skipped.
enum N02Tag: UInt8 {
    case other, dataset, curve, posList
    case railroadSection, station
    case location, railwayType, serviceProviderType, railwayLineName, operationCompany
    case stationName, stationCode, groupCode

    var qualifiedName: String {
        switch self {
        case .other: return "?"
        case .dataset: return "ksj:Dataset"
        case .curve: return "gml:Curve"
        case .posList: return "gml:posList"
        case .railroadSection: return "ksj:RailroadSection"
        case .station: return "ksj:Station"
        case .location: return "ksj:location"
        case .railwayType: return "ksj:railwayType"
        case .serviceProviderType: return "ksj:serviceProviderType"
        case .railwayLineName: return "ksj:railwayLineName"
        case .operationCompany: return "ksj:operationCompany"
        case .stationName: return "ksj:stationName"
        case .stationCode: return "ksj:stationCode"
        case .groupCode: return "ksj:groupCode"
        }
    }
}

private let ksjNamespace: StaticString = "http://nlftp.mlit.go.jp/ksj/schemas/ksj-app"
private let gmlNamespace: StaticString = "http://www.opengis.net/gml/3.2"
private let xlinkNamespace: StaticString = "http://www.w3.org/1999/xlink"

/// Whether a NUL-terminated libxml2 string equals a static ASCII string, without making a Swift String.
@inline(__always)
private func equals(_ p: UnsafePointer<xmlChar>, _ s: StaticString) -> Bool {
    let n = s.utf8CodeUnitCount
    let q = s.utf8Start
    var i = 0
    while i < n {
        if p[i] != q[i] { return false }
        i += 1
    }
    return p[n] == 0
}
/// Driven by libxml2's SAX callbacks, on one thread and never overlapping. A struct the callbacks
/// reach through a pointer: a class's every property access was checked for exclusivity at run
/// time (a tenth of the reader's time).
struct N02Parser {
    let label: String
    var diagnostics = DiagnosticCollector()

    private(set) var curves: [String: N02Curve] = [:]
    /// Each ksj:Station's and ksj:RailroadSection's gml:id with its line: gml:id is an XML ID,
    /// unique in the document across features and curves alike.
    private var featureIDs: [String: (line: Int, tag: N02Tag)] = [:]
    private(set) var stations: [N02StationRecord] = []
    private(set) var sections: [N02FeatureCore] = []
    private(set) var companies = N02Names()
    private(set) var lineNames = N02Names()
    /// Each unknown code's first line and how many features carry it.
    private(set) var unknownCodes: [N02UnknownCode: (line: Int, count: Int)] = [:]

    private var ctxt: xmlParserCtxtPtr?
    private var sawRoot = false
    private var sawFatalXMLError = false
    private var stack: [N02Tag] = []
    /// Local names of the open elements (libxml2's dictionary keeps them alive), to name the one
    /// a truncated file ends in.
    private var openElements: [UnsafePointer<xmlChar>] = []

    // Current gml:Curve.
    private var curveID: String?
    private var curveLine = 0
    private var curveInvalid = false
    private var points: [(lat: Int, lng: Int)] = []

    // Current gml:posList: numbers are parsed straight from the character callbacks.
    private var inPosList = false
    private var posListLine = 0
    private var posListNewlines = 0
    private var numberCount = 0
    private var pendingLat: Int?
    private var token: [UInt8] = []
    private var tokenLine = 0

    // Current feature.
    private var featureTag: N02Tag?
    private var featureID = ""
    private var featureLine = 0
    /// Text of the feature's child elements, by N02Tag.rawValue; company and line name are interned instead.
    private var field: [String?] = Array(repeating: nil, count: 16)
    private var companyIndex: Int?
    private var lineNameIndex: Int?
    /// ksj:railwayType and ksj:serviceProviderType, parsed from bytes; .invalid keeps bad text for the message.
    private var codes: [N02Code] = [.absent, .absent]
    private var href: String?
    private var hrefLine = 0
    private var sawLocation = false
    private var capture: N02Tag?
    private var text: [UInt8] = []

    init(label: String) {
        self.label = label
        points.reserveCapacity(64)
        token.reserveCapacity(64)
        text.reserveCapacity(256)
    }

    // MARK: Driving libxml2

    mutating func parse(path: String) throws {
        // A source file that is gone is bad input (exit 2), for this kind as for the CSV ones.
        guard Files.exists(path) else { throw StationError.badInput(SourceLocation(file: label), "file not found; expected the N02 XML file sources.json names") }
        if Files.isFolder(path) { throw StationError.badInput(SourceLocation(file: label), "a folder, not a file; expected the N02 XML file") }
        // Read as every file is (Files.read): a FIFO or a device refused before a byte is read,
        // the read limit held, and in a run the very bytes it hashed.
        let bytes = try Files.read(path, label: label)
        if bytes.isEmpty { return report(line: 1, "the file is empty") }
        // From here the parser is reached through `me` alone, by this loop and the callbacks alike.
        try withUnsafeMutablePointer(to: &self) { me in try Self.parse(bytes, into: me) }
    }

    private static func parse(_ bytes: [UInt8], into me: UnsafeMutablePointer<N02Parser>) throws {
        let label = me.pointee.label
        xmlInitParser()
        var sax = xmlSAXHandler()
        sax.initialized = 0xDEEDBEAF  // XML_SAX2_MAGIC: use the namespace-aware callbacks and serror
        sax.startElementNs = { ctx, localname, _, uri, _, _, attributeCount, _, attributes in
            N02Parser.from(ctx).pointee.startElement(localname!, uri, Int(attributeCount), attributes)
        }
        sax.endElementNs = { ctx, _, _, _ in
            N02Parser.from(ctx).pointee.endElement()
        }
        sax.characters = { ctx, ch, len in
            N02Parser.from(ctx).pointee.characters(ch!, Int(len))
        }
        sax.cdataBlock = sax.characters
        sax.serror = { ctx, error in
            guard let ctx, let error else { return }
            N02Parser.from(ctx).pointee.xmlError(error)
        }

        let ctx = UnsafeMutableRawPointer(me)
        // Encoding and I/O errors are raised without a parser context, so they reach the
        // thread's global structured handler: route them here too, then put the old one back.
        let savedHandler = __xmlStructuredError().pointee
        let savedContext = __xmlStructuredErrorContext().pointee
        xmlSetStructuredErrorFunc(ctx, sax.serror)
        defer { xmlSetStructuredErrorFunc(savedContext, savedHandler) }

        let chunkSize = 1 << 16
        try bytes.withUnsafeBufferPointer { all in
            let start = UnsafeRawPointer(all.baseAddress!).assumingMemoryBound(to: CChar.self)
            // The first bytes let libxml2 detect the encoding family before the prolog is read.
            let head = min(4, all.count)
            guard let ctxt = xmlCreatePushParserCtxt(&sax, ctx, start, Int32(head), label) else {
                throw StationError.environment("cannot create an XML parser for \(label)")
            }
            me.pointee.ctxt = ctxt
            defer { xmlFreeParserCtxt(ctxt); me.pointee.ctxt = nil }
            _ = xmlCtxtUseOptions(ctxt, Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue
                                              | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NOCDATA.rawValue))

            me.pointee.rawNewlinesBefore = N02Parser.newlines(UnsafeRawPointer(start), head)
            // National files are tens of MB: show how far the parse is, on a terminal only.
            let progress = Progress("reading \(label) (MB)", total: max(1, all.count >> 20))
            defer { progress.finish() }
            var done = head
            while !me.pointee.shouldStop {
                let n = min(chunkSize, all.count - done), chunk = start + done
                if n == 0 {
                    me.pointee.terminating = true
                    _ = xmlParseChunk(ctxt, nil, 0, 1)
                    break
                }
                done += n
                progress.update(done >> 20)
                me.pointee.rawChunk = UnsafeRawPointer(chunk)
                me.pointee.rawChunkLength = n
                _ = xmlParseChunk(ctxt, chunk, Int32(n), 0)
                me.pointee.rawChunk = nil
                // Raw newlines are only needed to place encoding errors of converted (non-UTF-8) input.
                if ctxt.pointee.input?.pointee.buf?.pointee.encoder != nil {
                    me.pointee.rawNewlinesBefore += N02Parser.newlines(UnsafeRawPointer(chunk), n)
                }
            }
        }
    }

    // Where an encoding error is: libxml2 converts whole chunks before parsing them and reports a
    // conversion failure without a line. The bytes it could not convert stay in its raw buffer and
    // end where the chunk being fed ends, which gives the bad byte's offset; its line follows from
    // the raw newlines before it (0x0A is a newline in UTF-8 and Shift_JIS alike, never a trail byte).
    private var rawNewlinesBefore = 0   // in the chunks before the one being fed
    private var rawChunk: UnsafeRawPointer?
    private var terminating = false

    static func newlines(_ p: UnsafeRawPointer, _ n: Int) -> Int {
        let bytes = p.assumingMemoryBound(to: UInt8.self)
        var count = 0
        for i in 0..<n where bytes[i] == 0x0A { count += 1 }
        return count
    }

    private var rawChunkLength = 0

    private func conversionErrorLine() -> Int? {
        guard let ctxt, let chunk = rawChunk, let buf = ctxt.pointee.input?.pointee.buf,
              let raw = buf.pointee.raw else { return nil }
        let offset = rawChunkLength - Int(xmlBufUse(raw))
        guard offset >= 0 else { return rawNewlinesBefore + 1 }  // a few bytes left over from the chunk before
        return rawNewlinesBefore + N02Parser.newlines(chunk, offset) + 1
    }

    private var shouldStop: Bool {
        sawFatalXMLError || diagnostics.isFull
    }

    @inline(__always)
    static func from(_ ctx: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<N02Parser> {
        ctx!.assumingMemoryBound(to: N02Parser.self)
    }

    private var currentLine: Int {
        guard let ctxt else { return 0 }
        return Int(xmlSAX2GetLineNumber(UnsafeMutableRawPointer(ctxt)))
    }

    private func stop() {
        if let ctxt { xmlStopParser(ctxt) }
    }

    private mutating func report(line: Int, field: String? = nil, _ message: String) {
        diagnostics.add(SourceLocation(file: label, line: line, field: field), message)
        if diagnostics.isFull { stop() }
    }

    mutating func xmlError(_ error: UnsafePointer<xmlError>) {
        let e = error.pointee
        // Warnings (e.g. a relative namespace URI) do not make the data wrong.
        if e.level == XML_ERR_WARNING || e.level == XML_ERR_NONE { return }
        // After a fatal error libxml2 keeps scanning and reports consequences; the first one is the cause.
        if sawFatalXMLError { return }
        var message = e.message.map { String(cString: $0) } ?? "error \(e.code)"
        message = message.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { String($0.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
        if terminating && !openElements.isEmpty {
            // libxml2's words for a file cut short vary ("Extra content at the end of the document").
            message = "the file ends inside the element \(String(cString: openElements[openElements.count - 1])) (truncated?)"
        }
        var line = e.line > 0 ? Int(e.line) : currentLine
        if e.domain == Int32(XML_FROM_I18N.rawValue), let at = conversionErrorLine() { line = at }
        let column = e.int2 > 0 ? "column \(e.int2)" : nil
        // No xmlStopParser here: this may run inside libxml2's input conversion, which stopping
        // would pull the buffers from under. The chunk loop stops at the next chunk instead, and
        // after a fatal error libxml2 makes no more SAX calls.
        diagnostics.add(SourceLocation(file: label, line: line, field: column), "malformed XML: \(message)")
        if e.level == XML_ERR_FATAL { sawFatalXMLError = true }
    }

    // MARK: SAX callbacks

    private enum Namespace { case ksj, gml, xlink, other }

    /// libxml2 hands every element the same pointer for the same URI, so each is
    /// compared as text once.
    private var knownURIs: [(uri: UnsafePointer<xmlChar>, namespace: Namespace)] = []

    private mutating func namespace(_ uri: UnsafePointer<xmlChar>?) -> Namespace {
        guard let uri else { return .other }
        if let known = knownURIs.first(where: { $0.uri == uri }) { return known.namespace }
        let namespace: Namespace = equals(uri, ksjNamespace) ? .ksj : equals(uri, gmlNamespace) ? .gml : equals(uri, xlinkNamespace) ? .xlink : .other
        knownURIs.append((uri, namespace))
        return namespace
    }

    private mutating func classify(_ local: UnsafePointer<xmlChar>, _ uri: UnsafePointer<xmlChar>?) -> N02Tag {
        switch namespace(uri) {
        case .gml:
            if equals(local, "posList") { return .posList }
            if equals(local, "Curve") { return .curve }
            return .other
        case .ksj:
            switch local[0] {
            case UInt8(ascii: "l"): return equals(local, "location") ? .location : .other
            case UInt8(ascii: "r"):
                if equals(local, "railwayType") { return .railwayType }
                if equals(local, "railwayLineName") { return .railwayLineName }
                return .other
            case UInt8(ascii: "s"):
                if equals(local, "serviceProviderType") { return .serviceProviderType }
                if equals(local, "stationName") { return .stationName }
                if equals(local, "stationCode") { return .stationCode }
                return .other
            case UInt8(ascii: "o"): return equals(local, "operationCompany") ? .operationCompany : .other
            case UInt8(ascii: "g"): return equals(local, "groupCode") ? .groupCode : .other
            case UInt8(ascii: "S"): return equals(local, "Station") ? .station : .other
            case UInt8(ascii: "R"): return equals(local, "RailroadSection") ? .railroadSection : .other
            case UInt8(ascii: "D"): return equals(local, "Dataset") ? .dataset : .other
            default: return .other
            }
        default:
            return .other
        }
    }

    /// The value of the attribute `local` in namespace `ns` (SAX2 gives 5 pointers per attribute:
    /// localname, prefix, URI, value start, value end).
    private mutating func attribute(_ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?, _ count: Int,
                           _ ns: Namespace, _ local: StaticString) -> String? {
        guard let attributes else { return nil }
        for i in 0..<count {
            let base = attributes + 5 * i
            guard let name = base[0], equals(name, local), namespace(base[2]) == ns,
                  let start = base[3], let end = base[4] else { continue }
            return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        }
        return nil
    }

    mutating func startElement(_ local: UnsafePointer<xmlChar>, _ uri: UnsafePointer<xmlChar>?, _ attributeCount: Int,
                      _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        var tag = classify(local, uri)
        if !sawRoot {
            sawRoot = true
            if tag != .dataset {
                let name = String(cString: local)
                report(line: currentLine, "the root element is \(name), expected ksj:Dataset")
                sawFatalXMLError = true
                stop()
                return
            }
        }
        switch tag {
        case .curve where curveID == nil && featureTag == nil:
            curveID = attribute(attributes, attributeCount, .gml, "id") ?? ""
            curveLine = currentLine
            curveInvalid = false
            points.removeAll(keepingCapacity: true)
        case .posList where curveID != nil && !inPosList:
            inPosList = true
            posListLine = currentLine
            posListNewlines = 0
            numberCount = 0
            pendingLat = nil
            token.removeAll(keepingCapacity: true)
        case .station where featureTag == nil && curveID == nil,
             .railroadSection where featureTag == nil && curveID == nil:
            featureTag = tag
            featureID = attribute(attributes, attributeCount, .gml, "id") ?? ""
            featureLine = currentLine
            for i in field.indices { field[i] = nil }
            companyIndex = nil
            lineNameIndex = nil
            codes[0] = .absent
            codes[1] = .absent
            href = nil
            sawLocation = false
        case .location where featureTag != nil:
            if !sawLocation {
                sawLocation = true
                href = attribute(attributes, attributeCount, .xlink, "href")
                hrefLine = currentLine
            }
        case .railwayType, .serviceProviderType, .railwayLineName, .operationCompany,
             .stationName, .stationCode, .groupCode:
            if featureTag != nil && capture == nil {
                capture = tag
                text.removeAll(keepingCapacity: true)
            } else {
                tag = .other
            }
        case .dataset where stack.isEmpty:
            break
        default:
            tag = .other
        }
        stack.append(tag)
        openElements.append(local)
    }

    mutating func endElement() {
        guard let tag = stack.popLast() else { return }
        openElements.removeLast()
        switch tag {
        case .posList:
            endPosList()
        case .curve:
            endCurve()
        case .station, .railroadSection:
            endFeature()
        case .railwayType, .serviceProviderType, .railwayLineName, .operationCompany,
             .stationName, .stationCode, .groupCode:
            if capture == tag {
                capture = nil
                var lo = 0, hi = text.count
                while lo < hi && isXMLSpace(text[lo]) { lo += 1 }
                while hi > lo && isXMLSpace(text[hi - 1]) { hi -= 1 }
                let value = text[lo..<hi]
                switch tag {
                case .operationCompany where companyIndex == nil:
                    companyIndex = value.isEmpty ? -1 : companies.intern(value)
                case .railwayLineName where lineNameIndex == nil:
                    lineNameIndex = value.isEmpty ? -1 : lineNames.intern(value)
                case .railwayType, .serviceProviderType:
                    let slot = tag == .railwayType ? 0 : 1
                    if case .absent = codes[slot] { codes[slot] = N02Code(value) }
                case .operationCompany, .railwayLineName:
                    break
                default:
                    if field[Int(tag.rawValue)] == nil { field[Int(tag.rawValue)] = String(decoding: value, as: UTF8.self) }
                }
            }
        default:
            break
        }
    }

    mutating func characters(_ ch: UnsafePointer<xmlChar>, _ len: Int) {
        if inPosList {
            scanPosList(ch, len)
        } else if capture != nil {
            text.append(contentsOf: UnsafeBufferPointer(start: ch, count: len))
        }
    }

    // MARK: Curves

    private var curveField: String { "gml:Curve \(curveID ?? "")" }

    /// Splits posList text into numbers. A number cut by a chunk boundary waits in `token`;
    /// whole numbers are parsed in place.
    private mutating func scanPosList(_ ch: UnsafePointer<xmlChar>, _ len: Int) {
        var newlines = posListNewlines
        var i = 0
        while i < len {
            if isXMLSpace(ch[i]) {
                if !token.isEmpty {
                    token.withUnsafeBufferPointer { endNumber($0) }
                    token.removeAll(keepingCapacity: true)
                }
                if ch[i] == 0x0A { newlines += 1 }
                i += 1
                continue
            }
            var j = i + 1
            while j < len && !isXMLSpace(ch[j]) { j += 1 }
            if token.isEmpty { tokenLine = posListLine + newlines }
            let piece = UnsafeBufferPointer(start: ch + i, count: j - i)
            if j == len {
                token.append(contentsOf: piece)   // may continue in the next callback
            } else if token.isEmpty {
                endNumber(piece)
            } else {
                token.append(contentsOf: piece)
                token.withUnsafeBufferPointer { endNumber($0) }
                token.removeAll(keepingCapacity: true)
            }
            i = j
        }
        posListNewlines = newlines
    }

    private mutating func endNumber(_ bytes: UnsafeBufferPointer<UInt8>) {
        numberCount += 1
        if curveInvalid { return }
        guard let value = N02Parser.parseMicroDegrees(bytes) else {
            let shown = String(decoding: bytes.prefix(40), as: UTF8.self)
            report(line: tokenLine, field: curveField, "'\(shown)' in gml:posList is not a number")
            curveInvalid = true
            return
        }
        guard let lat = pendingLat else { pendingLat = value; return }
        pendingLat = nil
        if !MicroDegrees.inJapan(lat: lat, lng: value) {
            report(line: tokenLine, field: curveField,
                   "point \(MicroDegrees.format(lat)) \(MicroDegrees.format(value)) lies outside Japan (20..46 N, 122..154 E)")
            curveInvalid = true
            return
        }
        points.append((lat, value))
    }

    private mutating func endPosList() {
        if !token.isEmpty {
            token.withUnsafeBufferPointer { endNumber($0) }
            token.removeAll(keepingCapacity: true)
        }
        inPosList = false
        if pendingLat != nil && !curveInvalid {
            report(line: posListLine, field: curveField,
                   "gml:posList has an odd count of numbers (\(numberCount)); expected lat lng pairs")
            curveInvalid = true
        }
        pendingLat = nil
    }

    private mutating func endCurve() {
        guard let id = curveID else { return }
        curveID = nil
        if !curveInvalid && points.isEmpty {
            report(line: curveLine, field: "gml:Curve \(id)", "the curve has no coordinates")
            curveInvalid = true
        }
        if id.isEmpty { return }  // nothing can refer to it
        if let first = curves[id] {
            report(line: curveLine, field: "gml:Curve \(id)", "duplicate gml:id (first at line \(first.line))")
            return
        }
        if let first = featureIDs[id] {
            report(line: curveLine, field: "gml:Curve \(id)", "duplicate gml:id (first at line \(first.line), a \(first.tag.qualifiedName))")
            return
        }
        if curveInvalid {
            curves[id] = N02Curve(line: curveLine, lat: 0, lng: 0, valid: false)
        } else {
            let middle = N02Geometry.middle(of: points)
            curves[id] = N02Curve(line: curveLine, lat: middle.lat, lng: middle.lng, valid: true)
        }
    }

    /// Decimal degrees to micro-degrees from bytes, with MicroDegrees.parse's rounding
    /// (half away from zero on the 7th decimal), so no String is made per number.
    static func parseMicroDegrees(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? { MicroDegrees.parse(bytes) }

    // MARK: Features

    private mutating func endFeature() {
        guard let tag = featureTag else { return }
        featureTag = nil
        capture = nil
        let where_ = featureID.isEmpty ? tag.qualifiedName : "\(tag.qualifiedName) \(featureID)"
        var ok = true
        // Two features under one id cannot be told apart, and a reference to it would name either.
        if !featureID.isEmpty {
            if let curve = curves[featureID] {
                report(line: featureLine, field: where_, "duplicate gml:id (first at line \(curve.line), a gml:Curve)")
                return
            }
            if let first = featureIDs[featureID] {
                report(line: featureLine, field: where_, "duplicate gml:id (first at line \(first.line), a \(first.tag.qualifiedName))")
                return
            }
            featureIDs[featureID] = (featureLine, tag)
        }

        func present(_ t: N02Tag, _ index: Int?) -> Int {
            guard let index else {
                report(line: featureLine, field: where_, "missing \(t.qualifiedName)")
                ok = false
                return -1
            }
            if index < 0 {
                report(line: featureLine, field: where_, "empty \(t.qualifiedName)")
                ok = false
            }
            return index
        }
        func required(_ t: N02Tag) -> String {
            guard let v = field[Int(t.rawValue)] else {
                report(line: featureLine, field: where_, "missing \(t.qualifiedName)")
                ok = false
                return ""
            }
            if v.isEmpty {
                report(line: featureLine, field: where_, "empty \(t.qualifiedName)")
                ok = false
            }
            return v
        }
        func integer(_ t: N02Tag) -> Int? {
            switch codes[t == .railwayType ? 0 : 1] {
            case .absent: return nil
            case .value(let n): return n
            case .invalid(let v):
                report(line: featureLine, field: where_, "\(t.qualifiedName) '\(v)' is not an integer")
                ok = false
                return nil
            }
        }
        func optional(_ t: N02Tag) -> String? {
            guard let v = field[Int(t.rawValue)], !v.isEmpty else { return nil }
            return v
        }

        var curveRef = ""
        if !sawLocation {
            report(line: featureLine, field: where_, "missing ksj:location")
            ok = false
        } else if let href, href.hasPrefix("#"), href.count > 1 {
            curveRef = String(href.dropFirst())
        } else if let href {
            report(line: hrefLine, field: where_, "ksj:location xlink:href '\(href)' is not a reference to a gml:id in this file (#id)")
            ok = false
        } else {
            report(line: hrefLine, field: where_, "ksj:location has no xlink:href")
            ok = false
        }
        let company = present(.operationCompany, companyIndex)
        let lineName = present(.railwayLineName, lineNameIndex)
        let name = tag == .station ? required(.stationName) : ""
        let railwayType = integer(.railwayType)
        let serviceProviderType = integer(.serviceProviderType)
        guard ok else { return }
        for (tag, value, known) in [(N02Tag.railwayType, railwayType, N02Reader.knownRailwayTypes),
                                    (.serviceProviderType, serviceProviderType, N02Reader.knownServiceProviderTypes)] {
            guard let value, !known.contains(value) else { continue }
            let key = N02UnknownCode(element: tag.qualifiedName, code: value)
            let seen = unknownCodes[key] ?? (featureLine, 0)
            unknownCodes[key] = (seen.line, seen.count + 1)
        }

        let core = N02FeatureCore(gmlID: featureID, line: featureLine, curveID: curveRef, hrefLine: hrefLine,
                                  company: company, lineName: lineName,
                                  serviceProviderType: serviceProviderType, railwayType: railwayType)
        if tag == .station {
            stations.append(N02StationRecord(core: core, name: name,
                                             code: optional(.stationCode), group: optional(.groupCode)))
        } else {
            sections.append(core)
        }
    }
}

@inline(__always)
private func isXMLSpace(_ b: UInt8) -> Bool {
    b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D
}
