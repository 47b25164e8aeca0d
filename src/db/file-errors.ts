/**
 * Why the file system refused a path, in words an operator acts on: Node's own messages
 * (`EISDIR: illegal operation on a directory, open '/x'`) name the system call, not the problem.
 */
const REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'it, or its folder, does not exist',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'it is a folder',
  EACCES: 'this user may not use it',
  EPERM: 'this user may not use it',
  EEXIST: 'it already exists',
  EROFS: 'the file system is read-only',
  ENOSPC: 'the disk is full',
  ENAMETOOLONG: 'the name is too long',
};

/** The reason for a file system error (one with a `code` above), else undefined. */
export function fileErrorReason(err: unknown): string | undefined {
  const code = err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
  return code === undefined ? undefined : REASONS[code];
}

/** `cannot use /x: it is a folder` for a file system error that names its path, else undefined. */
export function describeFileError(err: unknown): string | undefined {
  const reason = fileErrorReason(err);
  const path = err instanceof Error && 'path' in err && typeof err.path === 'string' ? err.path : undefined;
  return reason === undefined || path === undefined ? undefined : `cannot use ${path}: ${reason}`;
}
