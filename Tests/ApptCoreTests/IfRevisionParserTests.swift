import Foundation
import Testing

@testable import ApptCore

/// `--if-revision N` on edit, cancel, restore and delete: change it only if nobody else did.
@Suite("Command parser: --if-revision")
struct IfRevisionParserTests {
  let parser = CommandParser(clock: Fixture.clock)

  func parse(_ line: String) throws(CommandError) -> Command? { try parser.parse(line: line) }

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(line: line) }
  }

  @Test("each command takes it, as --if-revision N or --if-revision=N, in any place")
  func accepted() throws {
    #expect(
      try parse("edit ABCD --title X --if-revision 3") == .edit(EditRequest(id: "abcd", title: "X", ifRevision: 3))
    )
    #expect(
      try parse("edit --if-revision=12 abcd --note hi") == .edit(EditRequest(id: "abcd", note: "hi", ifRevision: 12))
    )
    #expect(try parse("cancel abcd --if-revision 1") == .cancel(id: "abcd", occurrence: nil, ifRevision: 1))
    #expect(try parse("restore --if-revision 2 abcd") == .restore(id: "abcd", occurrence: nil, ifRevision: 2))
    #expect(try parse("delete abcd --if-revision 7") == .delete(id: "abcd", ifRevision: 7))
    #expect(
      try parse("cancel abcd --occurrence 2026-12-07 --if-revision 4")
        == .cancel(id: "abcd", occurrence: Fixture.instant("2026-12-07T00:00:00+01:00"), ifRevision: 4)
    )
  }

  @Test("without it nothing is checked")
  func absent() throws {
    #expect(try parse("delete abcd") == .delete(id: "abcd", ifRevision: nil))
    #expect(try parse("edit abcd --title X") == .edit(EditRequest(id: "abcd", title: "X")))
  }

  @Test(
    "a revision is a whole number from 1: anything else is a usage error",
    arguments: ["0", "-1", "x", "1.5", "+2", " 3", "", "99999999999999999999999", "٣"]
  )
  func refused(value: String) {
    for command in ["edit abcd --title X", "cancel abcd", "restore abcd", "delete abcd"] {
      let name = String(command.prefix { $0 != " " })
      let error = commandError { () throws(CommandError) in
        try parser.parse(words: command.split(separator: " ").map(String.init) + ["--if-revision=\(value)"])
      }
      #expect(
        error == .usage("\(name): --if-revision needs a revision number (1 or more), not \(WhenParser.quoted(value))"),
        "\(command) --if-revision=\(value)"
      )
    }
  }

  @Test("usage mistakes around it")
  func usage() {
    #expect(failure("delete abcd --if-revision") == .usage("delete: --if-revision needs a value"))
    #expect(
      failure("cancel abcd --if-revision 1 --if-revision 2") == .usage("cancel: --if-revision given more than once")
    )
    #expect(failure("show abcd --if-revision 1") == .usage("show: unknown option --if-revision"))
    #expect(
      failure("edit abcd --if-revision 2")
        == .usage("edit: nothing to change; give --title, --at, --for, --note, --location, --calendar or --remind")
    )
  }

  @Test("help mentions it for every command that takes it")
  func help() throws {
    for command in ["edit", "cancel", "restore", "delete"] {
      #expect(try #require(CommandHelp.usage(for: command)).contains("[--if-revision N]"), "\(command)")
    }
  }
}
