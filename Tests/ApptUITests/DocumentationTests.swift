import Foundation
import Testing

@testable import ApptUI

/// The README's key table is documentation of `KeyMap.standard`: they must say the same.
@Suite struct DocumentationTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  @Test func readmeKeyTableIsTheKeyMap() throws {
    let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(readme.components(separatedBy: "### Keys").dropFirst().first)
    let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }
    let documented = rows.map { row -> String in
      let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      return "\(cells[0].replacingOccurrences(of: "`", with: "")) = \(cells[1])"
    }
    let expected = KeyMap.standard.bindings.map { binding in
      "\(binding.keys.map(\.description).joined(separator: " ")) = \(binding.action.summary)"
    }
    #expect(documented == expected)
  }
}
