/**
 * What a failed write most likely means, by errno name: fixed text, never
 * the exception's own message or a path, for a refusal's hint. `target`
 * names what was being written (`the destination`, `the output folder`);
 * undefined for an errno without a known meaning.
 */
export function writeFailureCause(code: string, target: string): string | undefined {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `the folder that would hold ${target} is not writable by this account (${code})`;
    case 'EROFS':
      return `the folder that would hold ${target} is on a read-only filesystem (EROFS)`;
    case 'ENOSPC':
      return 'no space left on the filesystem (ENOSPC)';
    case 'EDQUOT':
      return 'the disk quota of this account is used up (EDQUOT)';
    case 'EIO':
      return 'the device reported an I/O error (EIO)';
    case 'ENAMETOOLONG':
      return 'a path is longer than the filesystem allows (ENAMETOOLONG)';
    case 'EMFILE':
      return 'too many open files (EMFILE)';
    case 'ENFILE':
      return 'too many open files on the system (ENFILE)';
    default:
      return undefined;
  }
}

/**
 * What a failed open for reading most likely means, by errno name: fixed
 * text for a refusal's hint (the caller shows the path).
 */
export function readFailureCause(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `the account running sealkit may not read it (${code}): check the permissions of the file and of its folders`;
    case 'ENOTDIR':
      return 'a folder on its path is a file (ENOTDIR)';
    case 'ELOOP':
      return 'its path holds a loop of symbolic links (ELOOP)';
    default:
      return `it could not be opened (${code})`;
  }
}
