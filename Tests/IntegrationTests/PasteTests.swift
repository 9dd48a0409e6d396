import ApptCore
import ApptRuntime
import ApptStore
import ApptTerminal
import ApptTestSupport
import ApptUI
import Foundation
import Testing

/// A burst of typed keys (a paste without bracketed paste) ends up in the field whatever its
/// length, in one frame; a bracketed paste is one key. No timings are asserted.
@MainActor
@Suite struct PasteTests {
  func form(_ pilot: Pilot) -> Form? {
    if case .form(let form) = pilot.state.mode { return form }
    return nil
  }

  @Test(arguments: [0, 4])
  func twentyThousandTypedCharactersEndUpInTheField(tabs: Int) async throws {
    let field = tabs == 0 ? Form.Field.title : .note
    // No clock ticks: a tick draws a frame of its own, and 20,000 keys in a debug build beside
    // other work can take longer than the 20 s between ticks (seen in CI: 33 s, two frames),
    // or than the minute after which a tick comes anyway (under ThreadSanitizer: 110 s).
    let terminal = HeadlessTerminal(size: Screen.Size(rows: 24, columns: 80))
    let loop = RenderLoop(
      dao: TestStore.memoryDAO(),
      terminal: terminal,
      environment: Environment(clock: TestClock.clock, settings: Settings()),
      tickInterval: nil
    )
    let pilot = Pilot(terminal: terminal, loop: loop)
    await pilot.start()
    pilot.press("a")
    for _ in 0..<tabs { pilot.press("tab") }
    await pilot.settle()
    let frames = pilot.terminal.frameCount
    let text = String(repeating: "abcdefghi ", count: 2_000)
    pilot.type(text)
    await pilot.settle()
    #expect(form(pilot)?[field].text == text)
    #expect(pilot.terminal.frameCount == frames + 1, "the burst cost one frame")
    #expect(pilot.shows("abcdefghi abcdefghi"), "the end of the text shows, with the cursor")
    // The title's count leaves out its trailing space, as saving would.
    let expected = field == .title ? "19999 characters; at most 500" : "20000 characters; at most 10000"
    #expect(form(pilot)?.errors[field] == expected)
  }

  @Test func aBracketedPasteIsOneEdit() async throws {
    let pilot = Pilot(dao: TestStore.memoryDAO())
    await pilot.start()
    pilot.press("a")
    pilot.terminal.paste("Lunch\nwith Ana")
    pilot.press("tab", "ctrl+e")
    pilot.type("12:30")
    pilot.press("enter")
    await pilot.settle()
    #expect(pilot.agenda.contains { $0.contains("12:30-13:30  Lunch with Ana") })
  }

  /// Past any validation of the DAO's: 20 MB of "0" straight into the table.
  @DatabaseActor
  static func storeRawNote(in database: AsyncDatabase, id: String) throws {
    try database.write { connection throws(StoreError) in
      _ = try connection.run("UPDATE appointment SET note = hex(zeroblob(10485760)) WHERE id = '\(id)'")
    }
  }

  /// A 20 MB note stored by something that did not check its length, opened with `e`: the
  /// form opens with its first 10,000 characters and says so, keys and frames stay cheap,
  /// and quitting works. (The old code never finished the first frame.)
  @Test func aTwentyMegabyteNoteOpensInTheFormAndQuittingWorks() async throws {
    let directory = TemporaryDirectory()
    let dao = TestStore.fileDAO(in: directory)
    let dentist = TestStore.appointment("Dentist", TestClock.date(2026, 11, 29, 10))
    try await dao.saveAppointment(dentist)
    let id = dentist.id.description
    try await Self.storeRawNote(in: dao.database, id: id)
    let pilot = Pilot(dao: dao)
    await pilot.start()
    #expect(pilot.state.appointments.first?.note.utf8.count == 20_971_520)
    #expect(pilot.shows("Note: 0000000000"), "the detail pane shows the start of it")
    pilot.press("e")
    await pilot.settle()
    #expect(form(pilot)?[.note].characters.count == CommandParser.maximumNoteLength)
    #expect(pilot.shows("! The note is longer than 10000 characters"))
    pilot.press("tab", "tab", "tab", "tab", "end")
    pilot.type("more")
    await pilot.settle()
    #expect(pilot.shows("10004 characters; at most 10000"))
    pilot.press("ctrl+c")
    await pilot.waitUntilFinished()
    #expect(!pilot.isRunning)
  }
}
