import Foundation

/// A local time a user typed that a daylight-saving change makes ambiguous, and the instant
/// appt chose for it: never taken silently (README, "Time zones"). A value, shown
/// by whoever took the input: `appt: note: ...` on stderr for a one-shot command,
/// `line N: note: ...` in a script, the "what appt understood" line under the form.
public struct LocalTimeNotice: Equatable, Sendable {
  public enum Kind: Equatable, Sendable {
    /// The time does not exist (spring forward): it moved forward by the gap.
    case gap
    /// The time happens twice (fall back): the first was taken.
    case overlap
  }

  public var kind: Kind
  /// The time as typed, minutes after midnight.
  public var minutes: Int
  /// The instant chosen.
  public var instant: Date
  /// `02:30 does not exist on 28 March 2027 in Europe/Berlin`, or
  /// `02:30 happens twice on 31 October 2027 in Europe/Berlin`.
  public var situation: String
  /// `at 03:30`, or `the first (+02:00)`.
  public var choice: String

  public init(kind: Kind, minutes: Int, instant: Date, situation: String, choice: String) {
    self.kind = kind
    self.minutes = minutes
    self.instant = instant
    self.situation = situation
    self.choice = choice
  }

  /// After the change: `02:30 does not exist on 28 March 2027 in Europe/Berlin; saved at 03:30`,
  /// `02:30 happens twice on 31 October 2027 in Europe/Berlin; saved the first (+02:00)`.
  public var message: String { "\(situation); saved \(choice)" }

  /// Before it, under the form's "what appt understood" line (which shows the day and the
  /// zone's offsets): `02:30 does not exist that day: it will be 03:30`,
  /// `02:30 happens twice that day: the first (+02:00)`.
  public var preview: String {
    let typed = "\(LocalTimeNotice.pad2(minutes / 60)):\(LocalTimeNotice.pad2(minutes % 60))"
    switch kind {
    case .gap: return "\(typed) does not exist that day: it will be \(choice.dropFirst("at ".count))"
    case .overlap: return "\(typed) happens twice that day: \(choice)"
    }
  }

  static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

  static let monthNames = [
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
  ]
}

extension When {
  /// `instant(in:)`, and a notice when the typed time falls in a DST gap or overlap.
  public func resolved(in clock: Clock) -> (instant: Date, notice: LocalTimeNotice?) {
    let instant = instant(in: clock)
    guard let minutes else { return (instant, nil) }
    let formatter = AppointmentFormatter(clock: clock)
    let typed = "\(LocalTimeNotice.pad2(minutes / 60)):\(LocalTimeNotice.pad2(minutes % 60))"
    let date = formatter.local(day)
    let dayText = "\(date.day) \(LocalTimeNotice.monthNames[date.month - 1]) \(date.year)"
    let zone = clock.timeZone.identifier
    let chosen = formatter.local(instant)
    if chosen.hour * 60 + chosen.minute != minutes || chosen.dayNumber != date.dayNumber {
      let notice = LocalTimeNotice(
        kind: .gap,
        minutes: minutes,
        instant: instant,
        situation: "\(typed) does not exist on \(dayText) in \(zone)",
        choice: "at \(formatter.time(instant))"
      )
      return (instant, notice)
    }
    guard let twin = formatter.twin(of: instant) else { return (instant, nil) }
    let which = twin > instant ? "first" : "second"
    let offset = AppointmentFormatter.offsetText(chosen.offset, long: true)
    let notice = LocalTimeNotice(
      kind: .overlap,
      minutes: minutes,
      instant: instant,
      situation: "\(typed) happens twice on \(dayText) in \(zone)",
      choice: "the \(which) (\(offset))"
    )
    return (instant, notice)
  }
}

extension AppointmentFormatter {
  /// How far either side of an instant `twin(of:)` looks for a change of offset: a time with
  /// none that near is in no repeated hour.
  static let twinWindow: TimeInterval = 3 * 3600

  /// The other instant with the same local wall-clock time as `date`, when `date` is in the
  /// hour a fall-back change repeats; nil otherwise (nearly always: two offset look-ups).
  func twin(of date: Date) -> Date? {
    let window = Self.twinWindow
    // Nearly always: no change of offset near it, known from the span it is in.
    if offsets.keepsOneOffset(from: date.addingTimeInterval(-window), through: date.addingTimeInterval(window)) {
      return nil
    }
    let before = zoneOffset(date.addingTimeInterval(-window))
    let after = zoneOffset(date.addingTimeInterval(window))
    guard before > after else { return nil }
    let shift = TimeInterval(before - after)
    let offset = zoneOffset(date)
    if offset == before {
      let later = date.addingTimeInterval(shift)
      return zoneOffset(later) == after ? later : nil
    }
    if offset == after {
      let earlier = date.addingTimeInterval(-shift)
      return zoneOffset(earlier) == before ? earlier : nil
    }
    return nil
  }

  /// `+02` (`+05:30` when minutes are needed), or `+02:00` when `long`.
  static func offsetText(_ seconds: Int, long: Bool = false) -> String {
    let sign = seconds < 0 ? "-" : "+"
    let magnitude = abs(seconds) / 60
    let hours = magnitude / 60 < 10 ? "0\(magnitude / 60)" : "\(magnitude / 60)"
    let minutes = magnitude % 60 < 10 ? "0\(magnitude % 60)" : "\(magnitude % 60)"
    return long || magnitude % 60 != 0 ? "\(sign)\(hours):\(minutes)" : "\(sign)\(hours)"
  }
}
