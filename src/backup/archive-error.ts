// The one error type of reading or writing an archive: its message is for
// the user as it stands. Its own module so that the manifest reader, which
// archive.ts uses, can throw it without importing archive.ts back.

export class ArchiveError extends Error {
  readonly archive = true;
}
