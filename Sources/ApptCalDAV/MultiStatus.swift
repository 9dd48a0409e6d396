// Reading a WebDAV answer: 207 Multi-Status (RFC 4918 section 13, RFC 6578's sync-token) and
// the `<d:error>` body of a refused precondition. The XML is read into a small tree by
// XMLParser with namespaces processed, so any prefix a server picks (none, D:, ns0:, a
// default namespace per element) reads the same; properties are looked up by namespace and
// name. Tolerant of what real servers send: missing properties, properties in 404 propstats,
// hrefs as paths or as absolute URLs, several hrefs in one response, CDATA.

public import Foundation

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// One XML element: its name, attributes, text (the concatenated character data directly in it,
/// CDATA included) and child elements.
public struct DAVNode: Sendable, Equatable {
  public var name: DAVName
  public var attributes: [String: String]
  public var text: String
  public var children: [DAVNode]

  public func child(_ name: DAVName) -> DAVNode? { children.first { $0.name == name } }
  public func children(_ name: DAVName) -> [DAVNode] { children.filter { $0.name == name } }

  /// The text with surrounding white space removed.
  public var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

  /// The `<d:href>` children's text (for current-user-principal, calendar-home-set).
  public var hrefs: [String] {
    children(.dav("href")).map(\.trimmedText).filter { !$0.isEmpty }
  }
}

/// One `<d:response>`.
public struct DAVResponse: Sendable, Equatable {
  /// The first href as the server wrote it (a path, or an absolute URL), percent-encoding kept.
  public var href: String
  /// Further hrefs of the same response (RFC 4918 allows several with one status).
  public var otherHrefs: [String]
  /// The response-level status (e.g. 404 for a removed member in sync-collection), if any.
  public var status: Int?
  /// Properties found (in propstats with a 2xx status).
  public var properties: [DAVName: DAVNode]
  /// Properties the server named with a non-2xx status (404 not found, 403 ...).
  public var missing: [DAVName: Int]

  public func text(_ name: DAVName) -> String? {
    guard let node = properties[name] else { return nil }
    let text = node.trimmedText
    return text.isEmpty ? nil : text
  }

  public var displayName: String? { text(.displayName) }
  public var etag: String? { text(.getETag) }
  public var ctag: String? { text(.getCTag) }
  public var syncToken: String? { text(.syncToken) }
  public var calendarColor: String? { text(.calendarColor) }
  /// The calendar data as sent (not trimmed: it is an iCalendar object).
  public var calendarData: String? { properties[.calendarData]?.text }

  public var resourceTypes: Set<DAVName> { Set(properties[.resourceType]?.children.map(\.name) ?? []) }
  public var isCollection: Bool { resourceTypes.contains(.dav("collection")) }
  public var isCalendar: Bool { resourceTypes.contains(.calDAV("calendar")) }

  /// The component names (VEVENT, VTODO, ...) of supported-calendar-component-set, upper-cased;
  /// nil when the server did not give the property (RFC 4791: then any component is allowed).
  public var supportedComponents: [String]? {
    guard let node = properties[.supportedCalendarComponentSet] else { return nil }
    return node.children(.calDAV("comp")).compactMap { $0.attributes["name"]?.uppercased() }
  }

  public func hrefs(_ name: DAVName) -> [String] { properties[name]?.hrefs ?? [] }
}

/// A parsed 207 Multi-Status body.
public struct MultiStatus: Sendable, Equatable {
  public var responses: [DAVResponse]
  /// The top-level `<d:sync-token>` of a sync-collection answer (RFC 6578).
  public var syncToken: String?

  /// Parses `data`; throws `DAVParseError` when it is not XML or not a multistatus.
  public init(parsing data: Data) throws(DAVParseError) {
    let root = try DAVXMLTree.parse(data)
    guard root.name == .dav("multistatus") else {
      throw DAVParseError(reason: "expected a DAV:multistatus, got \(root.name)")
    }
    syncToken = root.child(.syncToken).map(\.trimmedText).flatMap { $0.isEmpty ? nil : $0 }
    responses = try root.children(.dav("response")).map { node throws(DAVParseError) in
      try Self.response(node)
    }
  }

  public init(responses: [DAVResponse], syncToken: String?) {
    self.responses = responses
    self.syncToken = syncToken
  }

  private static func response(_ node: DAVNode) throws(DAVParseError) -> DAVResponse {
    let hrefs = node.hrefs
    guard let href = hrefs.first else { throw DAVParseError(reason: "a DAV:response without a DAV:href") }
    var properties: [DAVName: DAVNode] = [:]
    var missing: [DAVName: Int] = [:]
    for propstat in node.children(.dav("propstat")) {
      // A propstat without a readable status: the properties are taken as found.
      let status = propstat.child(.dav("status")).flatMap { statusCode($0.trimmedText) } ?? 200
      for prop in propstat.children(.dav("prop")) {
        for property in prop.children {
          if (200..<300).contains(status) {
            properties[property.name] = property
          } else {
            missing[property.name] = status
          }
        }
      }
    }
    let status = node.child(.dav("status")).flatMap { statusCode($0.trimmedText) }
    return DAVResponse(
      href: href,
      otherHrefs: Array(hrefs.dropFirst()),
      status: status,
      properties: properties,
      missing: missing
    )
  }

  /// "HTTP/1.1 404 Not Found" -> 404.
  static func statusCode(_ line: String) -> Int? {
    let parts = line.split(separator: " ", omittingEmptySubsequences: true)
    guard parts.count >= 2, parts[0].uppercased().hasPrefix("HTTP/") else { return nil }
    return Int(parts[1])
  }
}

/// A `<d:error>` body (RFC 4918 section 16): the preconditions it names.
public struct DAVErrorBody: Sendable, Equatable {
  public var conditions: Set<DAVName>
  public var description: String?

  /// nil when `data` is not a DAV:error document.
  public init?(parsing data: Data) {
    // Any other body (HTML, text, empty) is simply not an error body.
    let root = try? DAVXMLTree.parse(data)  // ok: see above
    guard let root, root.name == .dav("error") else { return nil }
    conditions = Set(root.children.map(\.name))
    description = root.child(.dav("responsedescription"))?.trimmedText
  }
}

public struct DAVParseError: Error, Sendable, Equatable {
  public var reason: String
}

enum DAVXMLTree {
  static func parse(_ data: Data) throws(DAVParseError) -> DAVNode {
    let parser = XMLParser(data: data)
    parser.shouldProcessNamespaces = true
    parser.shouldReportNamespacePrefixes = false
    parser.shouldResolveExternalEntities = false
    let builder = TreeBuilder()
    parser.delegate = builder
    let parsed = parser.parse()
    if let error = builder.error { throw error }
    guard parsed, let root = builder.root else {
      let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "not XML"
      throw DAVParseError(reason: "the body is not well-formed XML (\(reason), line \(parser.lineNumber))")
    }
    return root
  }
}

/// The deepest a server's XML may nest: a multistatus is 6 levels deep; more is refused rather
/// than recursed into.
private let maxDepth = 64

private final class TreeBuilder: NSObject, XMLParserDelegate {
  var stack: [DAVNode] = []
  var root: DAVNode?
  var error: DAVParseError?

  func parser(
    _ parser: XMLParser,
    didStartElement elementName: String,
    namespaceURI: String?,
    qualifiedName: String?,
    attributes: [String: String] = [:]
  ) {
    guard stack.count < maxDepth else {
      error = DAVParseError(reason: "the XML nests deeper than \(maxDepth) elements")
      parser.abortParsing()
      return
    }
    // Without a namespace (a server that forgot xmlns) the local name still counts, as DAV:.
    let namespace = namespaceURI.flatMap { $0.isEmpty ? nil : $0 } ?? DAVName.davNamespace
    let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
    stack.append(DAVNode(name: DAVName(namespace, local), attributes: attributes, text: "", children: []))
  }

  func parser(_ parser: XMLParser, foundCharacters string: String) {
    guard !stack.isEmpty else { return }
    stack[stack.count - 1].text += string
  }

  func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
    guard !stack.isEmpty else { return }
    stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
  }

  func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
    guard let node = stack.popLast() else { return }
    if stack.isEmpty {
      root = node
    } else {
      stack[stack.count - 1].children.append(node)
    }
  }
}
