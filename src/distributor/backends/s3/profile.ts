import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The hint of `destination_credentials_missing` when `AWS_PROFILE` names a
 * profile: the user did set where credentials come from, so the hint says
 * whether the shared AWS files hold that profile at all (a misspelt name, a
 * file in another home) or hold it without credentials sealkit's SDK could
 * use. Only section names are read, never a value; the profile's name is the
 * user's own setting, not a secret. Undefined without `AWS_PROFILE`: the
 * message already lists the sources.
 */
export function profileHint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const name = env.AWS_PROFILE?.trim();
  if (name === undefined || name === '') return undefined;
  const credentials = sharedFile(env.AWS_SHARED_CREDENTIALS_FILE, 'credentials');
  const config = sharedFile(env.AWS_CONFIG_FILE, 'config');
  const held = hasProfile(credentials.path, name, false) || hasProfile(config.path, name, true);
  return held
    ? `AWS_PROFILE names profile '${name}', which the shared AWS files hold, but it gave no credentials: check its keys, or its sso_*, role_arn or credential_process settings`
    : `AWS_PROFILE names profile '${name}', which neither ${credentials.shown} nor ${config.shown} holds: check the name, or unset AWS_PROFILE to use the other sources`;
}

function sharedFile(
  given: string | undefined,
  name: 'credentials' | 'config',
): { readonly path: string; readonly shown: string } {
  if (given !== undefined && given !== '') return { path: given, shown: `'${given}'` };
  return { path: join(homedir(), '.aws', name), shown: `~/.aws/${name}` };
}

/** `[name]` in the credentials file; `[profile name]` (or `[default]`) in the config file. */
function hasProfile(path: string, name: string, config: boolean): boolean {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  for (const line of text.split(/\r?\n/)) {
    const section = /^\s*\[\s*([^\]]*?)\s*\]\s*(?:[#;].*)?$/.exec(line)?.[1];
    if (section === undefined) continue;
    const profile = config && section !== 'default' ? /^profile\s+(.+)$/.exec(section)?.[1] : section;
    if (profile === name) return true;
  }
  return false;
}
