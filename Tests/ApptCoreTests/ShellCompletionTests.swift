import Testing

@testable import ApptCore

/// The completions are generated from the usage lines; these tests hold the usage lines to
/// what the parser takes, so a completion never offers an option appt then refuses.
@Suite("Shell completion")
struct ShellCompletionTests {
  let parser = CommandParser(clock: Fixture.clock)

  func error(_ words: [String]) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(words: words) }
  }

  @Test("every command is completed, and every option completed is one the parser knows")
  func optionsAreTheParsers() {
    let entries = ShellCompletion.entries
    #expect(entries.map(\.name) == CommandHelp.names)
    var checked = 0
    for entry in entries {
      for option in entry.options {
        // `calendar`'s options are its subcommands': one of them must take it.
        let heads =
          entry.name == "calendar" ? [["calendar", "add", "x"], ["calendar", "delete", "x"]] : [[entry.name]]
        let messages = heads.map { head in
          error(head + [option] + (entry.valued.contains(option) ? ["x"] : []))?.message ?? ""
        }
        #expect(messages.contains { !$0.contains("unknown option") }, "\(entry.name) \(option): \(messages)")
        checked += 1
      }
    }
    #expect(checked > 40)
    // And one the parser does not know is caught by the same check.
    #expect(error(["list", "--frm"])?.message.contains("unknown option") == true)
  }

  @Test("values: options taking one, fixed sets, and what follows each command")
  func values() throws {
    let entries = Dictionary(uniqueKeysWithValues: ShellCompletion.entries.map { ($0.name, $0) })
    let add = try #require(entries["add"])
    #expect(add.valued.contains("--at"))
    #expect(!add.valued.contains("--all-day"))
    #expect(add.choices["--repeat"] == ["daily", "weekly", "monthly", "yearly"])
    #expect(add.options.contains("-c"))
    #expect(entries["list"]?.valued.contains("--format") == true)
    #expect(entries["show"]?.argument == .id)
    #expect(entries["import"]?.argument == .file)
    #expect(entries["calendar"]?.argument == .calendarWords)
  }

  @Test("each shell's script names every command and the id list it asks appt for")
  func scripts() {
    for shell in ShellCompletion.allCases {
      let script = shell.script
      for name in CommandHelp.names { #expect(script.contains(name), "\(shell) lacks \(name)") }
      #expect(script.contains("{short_id}"), "\(shell) completes ids")
      #expect(script.contains("calendars"), "\(shell) completes calendar names")
    }
  }

  @Test("the id list the scripts run is a command appt parses")
  func idListParses() throws {
    #expect(try parser.parse(line: ShellCompletion.idList) != nil)
  }
}
