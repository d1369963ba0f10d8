import { describe, expect, it } from 'vitest';
import { readFailureCause, writeFailureCause } from './causes.js';

describe('writeFailureCause', () => {
  it('names what was written for a permission or read-only failure, and only the errno otherwise', () => {
    expect(writeFailureCause('EACCES', 'the output folder')).toBe(
      'the folder that would hold the output folder is not writable by this account (EACCES)',
    );
    expect(writeFailureCause('EROFS', 'the destination')).toBe(
      'the folder that would hold the destination is on a read-only filesystem (EROFS)',
    );
    expect(writeFailureCause('ENOSPC', 'the destination')).toBe('no space left on the filesystem (ENOSPC)');
    expect(writeFailureCause('EWHATEVER', 'the destination')).toBeUndefined();
    // Never a key of Object.prototype taken for a cause.
    expect(writeFailureCause('constructor', 'the destination')).toBeUndefined();
  });
});

describe('readFailureCause', () => {
  it('says what to check for a permission failure, and names any other errno', () => {
    expect(readFailureCause('EACCES')).toBe(
      'the account running sealkit may not read it (EACCES): check the permissions of the file and of its folders',
    );
    expect(readFailureCause('EIO')).toBe('it could not be opened (EIO)');
  });
});
