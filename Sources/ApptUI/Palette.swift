import ApptCore

/// The colours the terminal gives each style: the theme's, with `[colors]` on top. A style
/// without a pair is shown with attributes only (bold, reverse...), as without colour; a
/// terminal without colour, or `NO_COLOR`, uses none of it.
public struct Palette: Sendable, Equatable {
  public var pairs: [Screen.Style: ColorPair]

  public init(pairs: [Screen.Style: ColorPair]) {
    self.pairs = pairs
  }

  public init(settings: Settings) {
    var pairs: [Screen.Style: ColorPair] = [:]
    for element in ColorElement.allCases {
      if let pair = settings.color(for: element)?.value { pairs[Self.style(of: element)] = pair }
    }
    self.pairs = pairs
  }

  /// The colours appt always had (the default theme).
  public static let standard = Palette(settings: Settings())

  /// The style that draws `element`.
  public static func style(of element: ColorElement) -> Screen.Style {
    switch element {
    case .header: .header
    case .status: .status
    case .selected: .selected
    case .error: .error
    case .accent: .accent
    case .field: .field
    case .focusedField: .focusedField
    case .today: .today
    case .marked: .marked
    }
  }
}
