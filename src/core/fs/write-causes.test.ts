import { describe, expect, it } from 'vitest';
import { writeFailureCause } from './write-causes.js';

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
