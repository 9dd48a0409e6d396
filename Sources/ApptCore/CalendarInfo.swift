import Foundation

/// One calendar of the store (README, "Calendars"): a name, a colour and a source, and
/// whether the calendar shows it. Appointments point at it by `id`.
public struct CalendarInfo: Hashable, Sendable, Identifiable {
  /// A UUID, lower-case (the store's key; names can change).
  public var id: String
  public var name: String
  /// One of `CalendarRules.colorNames`, or `#rrggbb`.
  public var color: String
  /// `local`, or `caldav` for a CalDAV account's collection.
  public var source: String
  public var account: String?
  /// The collection's URL on the account's server, for a synced calendar.
  public var remoteURL: String?
  /// The collection's display name on the server, as the last sync saw it.
  public var remoteName: String?
  /// False for a synced calendar the user stopped syncing (`calendar unsync`).
  public var syncs: Bool
  /// The user renamed it: a sync no longer names it after the server's display name.
  public var isNamedByUser: Bool
  /// When the calendar last synced without error; nil when never.
  public var syncedAt: Date?
  /// False when hidden: its appointments stay out of the calendar's day list and month.
  public var isShown: Bool
  /// The order calendars are listed in.
  public var position: Int
  /// How many appointments (rows: a series counts once) it holds, when asked for.
  public var count: Int?

  public init(
    id: String,
    name: String,
    color: String = CalendarRules.defaultColor,
    source: String = "local",
    account: String? = nil,
    remoteURL: String? = nil,
    remoteName: String? = nil,
    syncs: Bool = true,
    isNamedByUser: Bool = false,
    syncedAt: Date? = nil,
    isShown: Bool = true,
    position: Int = 0,
    count: Int? = nil
  ) {
    self.id = id
    self.name = name
    self.color = color
    self.source = source
    self.account = account
    self.remoteURL = remoteURL
    self.remoteName = remoteName
    self.syncs = syncs
    self.isNamedByUser = isNamedByUser
    self.syncedAt = syncedAt
    self.isShown = isShown
    self.position = position
    self.count = count
  }

  /// The index (0-7, curses' order: black red green yellow blue magenta cyan white) of the
  /// colour, a `#rrggbb` one taken as the nearest of the eight.
  public var colorIndex: Int { CalendarRules.colorIndex(color) }

  /// The letter that stands for the calendar where colours cannot be shown: its name's first.
  public var letter: Character { name.first.map { Character($0.uppercased()) } ?? "?" }
}

/// What a calendar's name and colour may be (shared with the sync).
public enum CalendarRules {
  /// The calendar every store starts with; existing appointments moved into it.
  public static let defaultName = "personal"
  /// The id of the calendar every store starts with (named `personal` until renamed).
  public static let personalID = "5e7a0c11-0000-4000-8000-000000000001"
  public static let defaultColor = "blue"
  public static let maximumNameLength = 64
  /// The eight curses colours, in their curses order (COLOR_BLACK = 0 ... COLOR_WHITE = 7).
  public static let colorNames = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"]

  /// What a name is compared by: two names that fold the same are the same calendar.
  public static func folded(_ name: String) -> String { name.lowercased() }

  /// `name` as stored (trimmed), or why it cannot be a calendar's name: 1-64 characters, no
  /// control characters, no "/" (the sync's `ACCOUNT/Name` form is the sync's own).
  public static func checkName(_ name: String, allowSlash: Bool = false) throws(CommandError) -> String {
    let trimmed = name.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { throw .invalid("a calendar's name cannot be empty") }
    guard trimmed.count <= maximumNameLength else {
      throw .invalid("the calendar name is \(trimmed.count) characters long; at most \(maximumNameLength)")
    }
    if trimmed.unicodeScalars.contains(where: TextSafety.isControl) {
      throw .invalid("the calendar name \(WhenParser.quoted(trimmed)) contains a control character")
    }
    if !allowSlash, trimmed.contains("/") {
      throw .invalid(
        "the calendar name \(WhenParser.quoted(trimmed)) contains \"/\"; that form is for synced calendars"
      )
    }
    return trimmed
  }

  /// `color` as stored (lower-case), or why it is not a colour.
  public static func checkColor(_ color: String) throws(CommandError) -> String {
    let lowered = color.trimmingCharacters(in: .whitespaces).lowercased()
    if colorNames.contains(lowered) { return lowered }
    if rgb(lowered) != nil { return lowered }
    throw .invalid(
      "not a colour: \(WhenParser.quoted(color)); use \(colorNames.joined(separator: ", ")) or #rrggbb"
    )
  }

  static func rgb(_ text: String) -> (Int, Int, Int)? {
    guard text.count == 7, text.first == "#", let value = Int(text.dropFirst(), radix: 16),
      text.dropFirst().allSatisfy(\.isHexDigit)
    else { return nil }
    return (value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF)
  }

  /// The curses colour index of `color`; a `#rrggbb` colour is the nearest of the eight
  /// (each channel taken as on or off at its middle, as an 8-colour terminal shows it).
  public static func colorIndex(_ color: String) -> Int {
    if let index = colorNames.firstIndex(of: color) { return index }
    guard let (red, green, blue) = rgb(color) else { return 4 }
    return (red >= 128 ? 1 : 0) | (green >= 128 ? 2 : 0) | (blue >= 128 ? 4 : 0)
  }

  /// The existing name closest to `name` (at most two edits away, or a third of its letters,
  /// case ignored), for "did you mean"; nil when none is near.
  public static func suggestion(for name: String, among names: [String]) -> String? {
    let target = Array(folded(name))
    let bound = max(2, target.count / 3)
    var best: (name: String, distance: Int)?
    for candidate in names {
      let other = Array(folded(candidate))
      guard abs(target.count - other.count) <= bound else { continue }  // farther than the bound
      let distance = Suggestion.distance(target, other)
      if distance <= bound, distance < (best?.distance ?? .max) { best = (candidate, distance) }
    }
    return best?.name
  }

  /// "no calendar "wrok"; did you mean "work"? (appt calendars lists them)".
  public static func unknown(_ name: String, among names: [String]) -> String {
    var message = "no calendar \(WhenParser.quoted(name))"
    if let near = suggestion(for: name, among: names) { message += "; did you mean \(WhenParser.quoted(near))?" }
    return message + " ('appt calendars' lists them; 'appt calendar add NAME' makes one)"
  }
}
