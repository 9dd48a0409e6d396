// ApptCore: the values and pure logic of appt. No I/O happens in this module: times come
// from an injected `Clock`, text comes in as strings, and everything here is `Sendable`.

import Foundation

/// An appointment's identity: a UUID, printed lower-case, addressed by any unique prefix.
public struct AppointmentID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
  public let uuid: UUID

  public init(_ uuid: UUID = UUID()) { self.uuid = uuid }

  /// Parses a full UUID in any case; prefixes are resolved by the store, not here.
  public init?(string: String) {
    guard let uuid = UUID(uuidString: string) else { return nil }
    self.uuid = uuid
  }

  /// The canonical lower-case spelling used in output, JSON and the database.
  public var description: String { uuid.uuidString.lowercased() }

  /// The first six characters: enough to address an appointment in a personal calendar.
  public var short: String { String(description.prefix(6)) }

  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }

  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let id = AppointmentID(string: text) else {
      throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a UUID: \(text)"))
    }
    self = id
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// An appointment as every layer sees it: a plain value, safe to send between actors.
public struct Appointment: Hashable, Sendable, Identifiable {
  public enum Status: String, Hashable, Sendable, Codable, CaseIterable {
    case scheduled
    case cancelled
  }

  public var id: AppointmentID
  public var title: String
  /// The first instant of the appointment (stored as UTC).
  public var start: Date
  /// The instant it ends; always after `start`.
  public var end: Date
  public var note: String
  public var status: Status
  public var created: Date
  public var updated: Date

  public init(
    id: AppointmentID = AppointmentID(),
    title: String,
    start: Date,
    end: Date,
    note: String = "",
    status: Status = .scheduled,
    created: Date,
    updated: Date? = nil
  ) {
    self.id = id
    self.title = title
    self.start = start
    self.end = end
    self.note = note
    self.status = status
    self.created = created
    self.updated = updated ?? created
  }

  public var duration: TimeInterval { end.timeIntervalSince(start) }
  public var isCancelled: Bool { status == .cancelled }

  /// Whether the appointment intersects the half-open interval `[from, to)`.
  public func overlaps(from: Date, to: Date) -> Bool { start < to && end > from }

  /// Display order everywhere: by start, then end, then title, then id (a total order, so
  /// lists and change sets are deterministic).
  public static func displayOrder(_ lhs: Appointment, _ rhs: Appointment) -> Bool {
    if lhs.start != rhs.start { return lhs.start < rhs.start }
    if lhs.end != rhs.end { return lhs.end < rhs.end }
    if lhs.title != rhs.title { return lhs.title < rhs.title }
    return lhs.id < rhs.id
  }
}
