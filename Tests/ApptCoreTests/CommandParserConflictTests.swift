import Foundation
import Testing

@testable import ApptCore

@Suite("Command parser: conflicts and resolve")
struct CommandParserConflictTests {
  let parser = CommandParser(clock: Fixture.clock)

  func failure(_ line: String) -> CommandError? {
    commandError { () throws(CommandError) in try parser.parse(line: line) }
  }

  @Test("conflicts; resolve ID --keep local|server")
  func commands() throws {
    #expect(try parser.parse(line: "conflicts") == .conflicts)
    #expect(try parser.parse(line: "resolve 3f2a --keep local") == .resolve(id: "3f2a", keep: .local))
    #expect(try parser.parse(line: "resolve --keep=SERVER 3f2a") == .resolve(id: "3f2a", keep: .server))
    #expect(try parser.parse(line: "resolve --help") == .help(topic: "resolve"))
    #expect(try parser.parse(line: "help conflicts") == .help(topic: "conflicts"))
    #expect(CommandHelp.summary.contains("  resolve ID --keep local|server\n"))
  }

  @Test("what resolve refuses is a usage error naming the fix")
  func refusals() {
    #expect(failure("resolve 3f2a")?.message == "resolve: missing --keep local|server")
    #expect(failure("resolve 3f2a --keep both")?.message == "resolve: --keep takes local or server, not \"both\"")
    #expect(failure("resolve --keep local")?.message == "resolve: missing ID ('appt conflicts' lists them)")
    #expect(failure("resolve a b --keep local")?.kind == .usage)
    #expect(failure("conflicts now")?.message == "conflicts: unexpected argument \"now\"")
    #expect(failure("resolve 3f2a --keep")?.kind == .usage)
  }
}
