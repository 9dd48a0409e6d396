// appt-sync: the program behind `appt sync`. It alone links the HTTP stack.
//   appt-sync --db LOCATION --config PATH [--json] [--quiet] [ACCOUNT...]
// Exit 0: every calendar synced; 3: a server unreachable or refusing the credentials, or the
// store failing; 1: anything else (an account unknown, none at all, an item refused); 2: usage
// and settings mistakes.

import ApptCore
import Foundation

signal(SIGPIPE, SIG_IGN)
let status = await SyncCommand.main(
  Array(CommandLine.arguments.dropFirst()),
  environment: ProcessEnvironment.variables()
)
exit(status)
