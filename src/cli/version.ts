import { readFileSync } from 'node:fs';

/** The package version, read once from the package.json that ships beside `dist/`. */
export function packageVersion(): string {
  const raw = readFileSync(new URL('../../../package.json', import.meta.url), 'utf8');
  const version = (JSON.parse(raw) as { version?: unknown }).version;
  return typeof version === 'string' ? version : '0.0.0';
}
