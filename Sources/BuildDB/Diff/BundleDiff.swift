import StationCore

// BundleDiff: what changed between two station bundles, and the SQL patch that
// turns one into the other the way the Android client applies it.
//
//   BundleDifference.between(oldPath:newPath:)   per table, rows added, removed and
//                                  changed (column by column), matched by key, each
//                                  kind found by one SQL statement over both files
//   DiffReport                     the difference with names, a summary and guards
//                                  (DiffReport.swift), printed as text, markdown,
//                                  JSON or SQL (DiffFormats.swift)
//   PatchWriter.patch(from:toVersion:)   the line-oriented patch the Android client runs
//   AndroidPatchRunner             runs a patch exactly as the Android client does
//   PatchPolicy                    what a downloaded patch may do: the client runs it under this
