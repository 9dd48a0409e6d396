import ApptCore
import ApptTestSupport
import Foundation
import Testing

@testable import ApptUI

/// The detail pane of an invitation: its organizer, its attendees with their answers, and the
/// user's own answer when `[mail] addresses` names one of them (lines as Thunderbird writes them).
@Suite struct AttendeePaneTests: UIModelTest {
  static var settings: Settings {
    var settings = Settings()
    settings.mail.addresses = Setting(["receiver@example.com"])
    return settings
  }
  let environment = Environment(clock: TestClock.clock, settings: AttendeePaneTests.settings)

  var invitation: Appointment {
    var a = TestStore.appointment("Repeat Event", TestClock.date(2026, 11, 29, 10), minutes: 30)
    a.extras.lines = [
      "ORGANIZER;CN=Sender;EMAIL=sender@example.com:mailto:sender@example.com",
      "ATTENDEE;CN=Sender;EMAIL=sender@example.com;PARTSTAT=ACCEPTED;RSVP=FALSE:mailto:sender@example.com",
      "ATTENDEE;CN=Receiver;PARTSTAT=NEEDS-ACTION;RSVP=TRUE:mailto:receiver@example.com",
      "ATTENDEE;PARTSTAT=DECLINED:mailto:other@example.com",
    ]
    return a
  }

  @Test("the pane lists the organizer, every attendee's answer and the user's own")
  func paneListsAttendees() {
    var state = loaded([invitation])
    state.size = Screen.Size(rows: 30, columns: 120)
    let rows = Views.render(state, environment: environment).rows
    #expect(rows.contains { $0.contains(" Organizer: Sender <sender@example.com>") }, "\(rows)")
    #expect(
      rows.contains {
        $0.contains(" Attendees: Sender (accepted), Receiver (needs action), other@example.com (declined)")
      },
      "\(rows)"
    )
    #expect(rows.contains { $0.contains(" Your answer: needs action") }, "\(rows)")
  }

  @Test("without [mail] addresses there is no answer of the user's; without attendees, no lines")
  func noAddressesNoAnswer() {
    let plain = Environment(clock: TestClock.clock)
    var state = UI.start(size: Screen.Size(rows: 30, columns: 120), environment: plain).0
    _ = UI.update(&state, .snapshotArrived(day: state.selectedDay, appointments: [invitation]), environment: plain)
    let rows = Views.render(state, environment: plain).rows
    #expect(rows.contains { $0.contains(" Attendees: ") })
    #expect(!rows.contains { $0.contains("Your answer") })
    var lone = loaded([TestStore.appointment("Alone", TestClock.date(2026, 11, 29, 10), minutes: 30)])
    lone.size = Screen.Size(rows: 30, columns: 120)
    let loneRows = Views.render(lone, environment: environment).rows
    #expect(!loneRows.contains { $0.contains("Attendees:") || $0.contains("Organizer:") })
  }
}
