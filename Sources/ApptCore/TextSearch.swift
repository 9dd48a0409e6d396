import Foundation

/// What "matches" means in a search, the one definition: the calendar's `/` filter and
/// `list --search` use it, and the store keeps each appointment's title, note and location
/// `folded` by this very function, so SQLite and PostgreSQL find exactly what the calendar
/// shows whatever the server's locale.
///
/// A search matches an appointment when its folded text is a run of the folded title, the
/// folded note or the folded location. Folding ignores case (full case folding: "STRASSE"
/// finds "Straße", "ΟΔΟΣ" finds "οδος"), accents (the combining marks U+0300–U+036F after
/// decomposition: "e" finds "É" spelled either way, "istanbul" finds "İSTANBUL" and
/// "Istanbul" finds "ıstanbul") and compatibility forms ("fi" finds "ﬁ", "abc" finds
/// "ＡＢＣ"). Other marks, such as kana's voicing marks, stay significant.
public struct TextSearch: Equatable, Sendable {
  /// What is looked for, folded; empty matches everything.
  public let key: String

  public init(_ text: String) { key = Self.folded(text) }

  public var isEmpty: Bool { key.isEmpty }

  /// Whether `text` contains what is looked for.
  public func matches(_ text: String) -> Bool {
    key.isEmpty || Self.folded(text).utf8.firstRange(of: key.utf8) != nil
  }

  /// Whether the appointment's title, note or location contains what is looked for.
  public func matches(_ appointment: Appointment) -> Bool {
    matches(appointment.title) || matches(appointment.note) || matches(appointment.location)
  }

  /// `text` in the form searches compare: case, accents and compatibility forms folded
  /// away, canonically composed (NFC), so a byte-wise substring test is the whole match.
  public static func folded(_ text: String) -> String {
    if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }  // ASCII: nothing else to fold
    // Upper then lower case is full case folding for the text that matters here ("ß" and "ẞ"
    // become "ss", final "ς" becomes "σ", "ı" becomes "i"); repeated because one round can
    // leave a character that folds further ("ẞ" -> "ß" -> "ss").
    var caseless = text.decomposedStringWithCompatibilityMapping
    for _ in 0..<3 {
      let next = caseless.uppercased().lowercased()
      if next == caseless { break }
      caseless = next
    }
    var scalars = String.UnicodeScalarView()
    for scalar in caseless.decomposedStringWithCanonicalMapping.unicodeScalars
    where !(0x300...0x36F).contains(scalar.value) {
      scalars.append(scalar)
    }
    return String(scalars).precomposedStringWithCanonicalMapping
  }
}
