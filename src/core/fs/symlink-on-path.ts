import { lstatSync } from 'node:fs';

/**
 * The first component of `path` that is a symbolic link, written as the
 * user wrote it (`linkroot` of `linkroot/viaLink`, `/srv/data` of
 * `/srv/data/acme`), or undefined. For a refusal's hint only, after a
 * no-follow open failed with ELOOP: the open decides, this names the link
 * (docs/filesystem.md). Path-based lstat is enough here, since nothing is
 * opened or written through what it finds.
 */
export function symlinkOnPath(path: string): string | undefined {
  for (const end of componentEnds(path)) {
    const prefix = path.slice(0, end);
    try {
      if (lstatSync(prefix).isSymbolicLink()) return prefix;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Where each component of `path` ends, first to last; repeated and trailing slashes are skipped. */
export function componentEnds(path: string): number[] {
  const ends: number[] = [];
  for (let index = 0; index < path.length; index += 1) {
    const endsHere = path[index] !== '/' && (index + 1 === path.length || path[index + 1] === '/');
    if (endsHere) ends.push(index + 1);
  }
  return ends;
}
