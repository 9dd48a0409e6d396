/// The table of what a search matches, shared by the tests of every place that searches:
/// `TextSearch` itself, the calendar's `/`, and `list --search` on both engines.
public enum SearchCases {
  public struct Case: Sendable, CustomStringConvertible {
    public let search: String
    public let text: String
    public let matches: Bool

    public var description: String { "\"\(search)\" in \"\(text)\"" }
  }

  public static let table: [Case] = [
    // Case, beyond ASCII.
    Case(search: "DENTIST", text: "Dentist", matches: true),
    Case(search: "réunion", text: "RÉUNION ÉQUIPE", matches: true),
    Case(search: "straße", text: "STRASSE 5", matches: true),
    Case(search: "STRASSE", text: "Hauptstraße", matches: true),
    Case(search: "ẞ", text: "strasse", matches: true),
    Case(search: "οδος", text: "ΟΔΟΣ", matches: true),
    Case(search: "ǆ", text: "ǄEMAL", matches: true),
    // Turkish dotted and dotless i.
    Case(search: "istanbul", text: "İSTANBUL", matches: true),
    Case(search: "ISTANBUL", text: "ıstanbul", matches: true),
    Case(search: "kız", text: "KIZ", matches: true),
    // Accents, precomposed or combining, either side.
    Case(search: "e", text: "É", matches: true),
    Case(search: "É", text: "cafe\u{301}", matches: true),
    Case(search: "cafe\u{301}", text: "CAFÉ", matches: true),
    Case(search: "resume", text: "Résumé review", matches: true),
    Case(search: "a\u{30A}", text: "Ångström", matches: true),
    // Compatibility forms.
    Case(search: "fi", text: "ﬁle", matches: true),
    Case(search: "abc", text: "ＡＢＣ", matches: true),
    // Marks outside the accents stay, and syllables stay whole.
    Case(search: "か", text: "がっこう", matches: false),
    Case(search: "が", text: "がっこう", matches: true),
    Case(search: "가", text: "각", matches: false),
    // Not patterns: % and _ are characters.
    Case(search: "%", text: "100% review_meeting", matches: true),
    Case(search: "w_m", text: "100% review_meeting", matches: true),
    Case(search: "w%m", text: "100% review_meeting", matches: false),
    Case(search: "🎉", text: "会議 🎉", matches: true),
    Case(search: "会議", text: "会議 🎉", matches: true),
    Case(search: "lunch", text: "Dentist", matches: false),
    // Only accents: nothing to look for, so everything matches.
    Case(search: "\u{301}", text: "Dentist", matches: true),
  ]
}
