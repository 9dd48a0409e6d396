// Fuzz target: WhenParser.parse (one string, and words split at newlines as the option
// scanner passes them) with two stopped clocks, and DurationParser.parse / format.
//
// Invariants (beyond "no crash"):
// - errors are CommandError values of kind .invalid with a terminal-safe message;
// - an accepted WHEN is a local midnight in years 1970-9999 with minutes in 0..<1440, and
//   printing it back as `YYYY-MM-DD HH:MM` (or `YYYY-MM-DD`) parses to the same WHEN;
// - parse(words:) consumes 1 to 3 words, more than 1 only for a day phrase (`dec 1 10:00`)
//   or a date and its time word (takesTimeWord);
// - an accepted DURATION is whole minutes in (0, 366 days], and format() parses back to it;
// - format() never crashes on any Double (the input's first 8 bytes), and every whole number
//   of minutes from 1 to 366 days formats to text that parses back to itself.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWhenDuration(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let text = Fuzz.text(data, size)
  for clock in Fuzz.clocks {
    checkWhen(text, clock: clock)
  }
  checkDuration(text)
  checkFormat(Fuzz.bytes(data, size), input: text)
  return 0
}

private func checkWhen(_ text: String, clock: Clock) {
  let parser = WhenParser(clock: clock)
  do throws(CommandError) {
    let when = try parser.parse(text)
    checkAccepted(when, clock: clock, input: text)
  } catch {
    Fuzz.checkError(error, input: text)
    Fuzz.check(error.kind == .invalid, "WHEN error of kind \(error.kind)", input: text)
  }

  let words = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  do throws(CommandError) {
    let (when, consumed) = try parser.parse(words: words)
    Fuzz.check((1...3).contains(consumed), "parse(words:) consumed \(consumed)", input: text)
    Fuzz.check(consumed <= words.count, "parse(words:) consumed more words than given", input: text)
    if consumed >= 2 {
      let phrase = WhenParser.isDayPhrase(words[0].lowercased(), words[1].lowercased())
      Fuzz.check(
        phrase || (consumed == 2 && WhenParser.takesTimeWord(words[0], words[1])),
        "took \(consumed) words where it should not",
        input: text
      )
    }
    checkAccepted(when, clock: clock, input: text)
  } catch {
    Fuzz.checkError(error, input: text)
  }
}

private func checkAccepted(_ when: When, clock: Clock, input: String) {
  let calendar = clock.calendar
  Fuzz.check(calendar.startOfDay(for: when.day) == when.day, "WHEN day is not a local midnight", input: input)
  Fuzz.check(
    WhenParser.years.contains(calendar.component(.year, from: when.day)),
    "WHEN year out of 1970-9999",
    input: input
  )
  if let minutes = when.minutes {
    Fuzz.check((0..<1440).contains(minutes), "WHEN minutes \(minutes) out of a day", input: input)
  }
  let instant = when.instant(in: clock)
  Fuzz.check(
    instant >= when.day && instant.timeIntervalSince(when.day) < 2 * 86_400,
    "WHEN instant is not on its day",
    input: input
  )
  // Print it back and parse again.
  let date = String(AppointmentFormatter(clock: clock).day(when.day).dropFirst(4))  // "Tue 2026-12-01"
  var printed = date
  if let minutes = when.minutes {
    printed += " " + String(format: "%02d:%02d", minutes / 60, minutes % 60)
  }
  do throws(CommandError) {
    let again = try WhenParser(clock: clock).parse(printed)
    Fuzz.check(again == when, "\(printed) parses to a different WHEN", input: input)
  } catch {
    Fuzz.check(false, "printed WHEN \(printed) does not parse: \(error.message)", input: input)
  }
}

private func checkDuration(_ text: String) {
  do throws(CommandError) {
    let seconds = try DurationParser.parse(text)
    Fuzz.check(seconds > 0 && seconds <= DurationParser.maximum, "duration \(seconds) out of range", input: text)
    Fuzz.check(seconds.truncatingRemainder(dividingBy: 60) == 0, "duration \(seconds) not whole minutes", input: text)
    roundTrip(seconds, input: text)
  } catch {
    Fuzz.checkError(error, input: text)
    Fuzz.check(error.kind == .invalid, "DURATION error of kind \(error.kind)", input: text)
  }
}

private func checkFormat(_ bytes: [UInt8], input: String) {
  guard bytes.count >= 8 else { return }
  var bits: UInt64 = 0
  for byte in bytes.prefix(8) { bits = bits << 8 | UInt64(byte) }
  _ = DurationParser.format(Double(bitPattern: bits))
  let maximumMinutes = UInt64(DurationParser.maximum / 60)
  roundTrip(Double(bits % maximumMinutes + 1) * 60, input: input)
}

private func roundTrip(_ seconds: TimeInterval, input: String) {
  let printed = DurationParser.format(seconds)
  do throws(CommandError) {
    let again = try DurationParser.parse(printed)
    Fuzz.check(again == seconds, "format(\(seconds)) = \(printed) parses back as \(again)", input: input)
  } catch {
    Fuzz.check(false, "format(\(seconds)) = \(printed) does not parse: \(error.message)", input: input)
  }
}
