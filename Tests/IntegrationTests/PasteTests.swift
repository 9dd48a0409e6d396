import ApptCore
import ApptStore
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// A burst of typed keys (a paste without bracketed paste) ends up in the field, whatever
/// its length.
@MainActor
@Suite struct PasteTests {
  @Test(arguments: [1_000, 2_000, 4_000])
  func typedCharactersEndUpInTheTitle(count: Int) async throws {
    let pilot = Pilot(dao: TestStore.memoryDAO())
    await pilot.start()
    pilot.press("a")
    await pilot.settle()
    let text = String(repeating: "abcdefghij", count: count / 10)
    let started = ContinuousClock.now
    pilot.type(text)
    await pilot.settle()
    print("typed \(count) characters into the title: \(ContinuousClock.now - started)")
    guard case .form(let form) = pilot.state.mode else {
      Issue.record("the form closed")
      return
    }
    #expect(form[.title].text == text)
  }
}
