// A sync cut at every request in turn (the connection lost before the request reaches the
// server, or after the server carried it out: the answer lost), then one more sync: both
// sides must hold the same events, each once, with every change of both sides in them.

import ApptCalDAV
import ApptCore
import ApptStore
import ApptSync
import Foundation
import Testing

@Suite("sync engine: interrupted anywhere", .serialized)
struct InterruptionTests {
  /// Synced a, b, c, g; then the server edits a, deletes b, adds d; appt edits c, adds e,
  /// deletes g. Returns the harness and e's UID.
  func scenario(_ kind: StoreKind) async throws -> (Harness, String) {
    let h = try Harness(kind)
    for name in ["a", "b", "c", "g"] {
      await h.server.clientPut("work", "\(name).ics", event(name, name.uppercased()))
    }
    _ = try await h.good()
    await h.server.clientPut("work", "a.ics", event("a", "A2"))
    await h.server.clientDelete("work", "b.ics")
    await h.server.clientPut("work", "d.ics", event("d", "D"))
    try await h.local.editLocal(Harness.calendar, uid: "c", title: "C2")
    let e = try await h.local.addLocal(Harness.calendar, title: "E", day: 5)
    try await h.local.deleteLocal(Harness.calendar, uid: "g")
    await h.server.resetRequests()
    return (h, e)
  }

  @Test("cut at request N, for every N: the next sync converges", arguments: [StoreKind.fake, .sqlite])
  func everyRequest(kind: StoreKind) async throws {
    // How many requests a clean run of the scenario makes.
    let (clean, e) = try await scenario(kind)
    _ = try await clean.good()
    let total = await clean.server.requests.count
    #expect(await clean.serverTitles() == ["a": "A2", "c": "C2", "d": "D", e: "E"])
    let methods = await clean.methods()
    #expect(total >= 8, "\(methods)")

    for fault in [FakeServer.Fault.unreachable, .lostAnswer, .status(500)] {
      for cut in 1...total {
        let (h, e) = try await scenario(kind)
        await h.server.setFaults { number, _ in number == cut ? fault : nil }
        let interrupted = try await h.sync()
        await h.server.clearFaults()
        #expect(interrupted.count == 1)
        let summary = try await h.good()
        let expected = ["a": "A2", "c": "C2", "d": "D", e: "E"]
        #expect(await h.serverTitles() == expected, "\(fault) at request \(cut)")
        #expect(try await h.local.titles(Harness.calendar) == expected, "\(fault) at request \(cut)")
        #expect(summary.pending == 0 && summary.conflicts == 0, "\(fault) at request \(cut): \(summary)")
        #expect(try await h.local.conflictCount() == 0, "\(fault) at request \(cut)")
        // And it is finished: one more sync finds nothing to do either way.
        let again = try await h.good()
        #expect((again.new, again.changed, again.deleted, again.pushed) == (0, 0, 0, 0), "\(fault) at \(cut)")
      }
    }
  }
}
