import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { didYouMean } from '../../../core/refusal/index.js';

/**
 * The hint of `destination_credentials_missing`: what of the user's own
 * settings the SDK's chain passed over. Undefined when nothing was set: the
 * message already lists the sources.
 */
export function credentialsMissingHint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (!profileSet(env)) return envPairHint(env) ?? defaultProfileHint(env);
  const profile = profileHint(env);
  return envPairComplete(env) ? `${profile}; ${PAIR_PASSED_OVER}: unset AWS_PROFILE to use them` : profile;
}

/**
 * The SDK's chain skips the environment's keys whenever `AWS_PROFILE` is set
 * (its own warning about it goes to sealkit's silent logger): keys exported
 * in a shell that also exports a profile are never used, and users look for
 * the fault in the keys.
 */
const PAIR_PASSED_OVER =
  'AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are set too, but the SDK passes over them while AWS_PROFILE is set';

/**
 * Half of the environment's key pair: the SDK reads keys from the
 * environment only when both hold a value, and otherwise passes over them in
 * silence, so a run whose secret was not exported (or exported empty by a
 * cron job) said only that no credentials were found, which sent users to
 * look for a missing access key they had set.
 */
function envPairHint(env: NodeJS.ProcessEnv): string | undefined {
  const id = envState(env.AWS_ACCESS_KEY_ID);
  const secret = envState(env.AWS_SECRET_ACCESS_KEY);
  if (id === secret && id !== 'empty') return undefined;
  return `AWS_ACCESS_KEY_ID is ${id} and AWS_SECRET_ACCESS_KEY is ${secret}: the SDK takes keys from the environment only when both hold a value`;
}

function envState(value: string | undefined): 'set' | 'empty' | 'not set' {
  return value === undefined ? 'not set' : value === '' ? 'empty' : 'set';
}

function envPairComplete(env: NodeJS.ProcessEnv): boolean {
  return envState(env.AWS_ACCESS_KEY_ID) === 'set' && envState(env.AWS_SECRET_ACCESS_KEY) === 'set';
}

/** As the SDK decides: any value but the empty string. */
function profileSet(env: NodeJS.ProcessEnv): boolean {
  return env.AWS_PROFILE !== undefined && env.AWS_PROFILE !== '';
}

/**
 * The hint of `destination_credentials_refused`, from the store's error code
 * alone: which of the keys to check (an unknown access key id, a secret that
 * does not match it, an expired token) and where the SDK took them from, as
 * its chain decides: the profile `AWS_PROFILE` names when it is set, else the
 * environment's pair, else the rest. One message for all three left users
 * retyping the part that was right.
 */
export function credentialsRefusedHint(errorName: string, env: NodeJS.ProcessEnv = process.env): string {
  const profile = profileSet(env) ? `profile '${env.AWS_PROFILE?.trim()}' (AWS_PROFILE)` : undefined;
  const fromEnv = profile === undefined && envPairComplete(env);
  const passedOver = profile !== undefined && envPairComplete(env) ? ` (${PAIR_PASSED_OVER})` : '';
  const chain =
    "the shared AWS files' default profile or the rest of the SDK's chain (SSO, web identity, an instance or container role)";
  switch (errorName) {
    case 'InvalidAccessKeyId':
    case 'InvalidClientTokenId':
      if (fromEnv && temporaryWithoutToken(env))
        return 'AWS_ACCESS_KEY_ID is a temporary key id (it starts with ASIA), which a store knows only together with its session token, and AWS_SESSION_TOKEN is not set or empty: export the token that came with the keys, or get new ones';
      return `the store does not know the access key id ${
        fromEnv
          ? 'in AWS_ACCESS_KEY_ID'
          : profile !== undefined
            ? `of ${profile}`
            : `the SDK found in ${chain}`
      }: check it (keys of another store or account are unknown here too)${passedOver}`;
    case 'SignatureDoesNotMatch':
      return `the store knows the access key id, but the request's signature does not match it: ${
        fromEnv
          ? "AWS_SECRET_ACCESS_KEY is not that key's secret"
          : profile !== undefined
            ? `the aws_secret_access_key of ${profile} is not that key's secret`
            : `the secret key the SDK found in ${chain} is not that key's`
      }${passedOver}`;
    case 'InvalidToken':
    case 'ExpiredToken':
    case 'TokenRefreshRequired':
      return `the session token is invalid or has expired: ${
        fromEnv
          ? 'renew AWS_SESSION_TOKEN with its keys'
          : profile !== undefined
            ? `renew the credentials of ${profile}`
            : 'renew the credentials'
      }${passedOver}`;
    default:
      return fromEnv
        ? 'check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY'
        : profile !== undefined
          ? `check the credentials of ${profile}${passedOver}`
          : `check the credentials the SDK found in ${chain}`;
  }
}

/**
 * Temporary keys (STS, SSO, an assumed role) have key ids that start with
 * `ASIA` and are only known to AWS together with their session token; the
 * store answers a request without it as for an unknown key id, which sent
 * users to check a key id that was right. Only the id's type prefix is
 * looked at, never shown.
 */
function temporaryWithoutToken(env: NodeJS.ProcessEnv): boolean {
  return (env.AWS_ACCESS_KEY_ID ?? '').startsWith('ASIA') && (env.AWS_SESSION_TOKEN ?? '') === '';
}

/**
 * The hint of `destination_credentials_missing` when `AWS_PROFILE` names a
 * profile: the user did set where credentials come from, so the hint says
 * whether the shared AWS files hold that profile at all (a misspelt name, a
 * file in another home, a file this user may not read) or hold it without
 * credentials sealkit's SDK could use. Only section names are read, never a
 * value; the profile's name is the user's own setting, not a secret. Called
 * only when `AWS_PROFILE` is set.
 */
function profileHint(env: NodeJS.ProcessEnv): string {
  const name = env.AWS_PROFILE?.trim() ?? '';
  const files = sharedFiles(env);
  if (files.some((file) => file.profiles?.includes(name) === true))
    return `AWS_PROFILE names profile '${name}', which the shared AWS files hold, but it gave no credentials: check its keys, or its sso_*, role_arn or credential_process settings`;
  const [credentials, config] = files;
  const unreadable = unreadableHint(files);
  if (unreadable !== undefined) return `AWS_PROFILE names profile '${name}', but ${unreadable}`;
  if (files.every((file) => file.profiles === undefined))
    return `AWS_PROFILE names profile '${name}', but neither ${credentials.shown} nor ${config.shown} exists${homeOf(files)}: check the user the run is started as, or point AWS_SHARED_CREDENTIALS_FILE or AWS_CONFIG_FILE at the files`;
  const held = [...new Set(files.flatMap((file) => file.profiles ?? []))];
  const lead = `AWS_PROFILE names profile '${name}', which neither ${credentials.shown} nor ${config.shown} holds`;
  // A misspelt name was told only "check the name", with the right one a glance away in the files.
  const meant = didYouMean(name, held);
  if (meant !== undefined) return `${lead}: ${meant}`;
  return `${lead}${held.length === 0 ? '' : ` (they hold ${named(held)})`}: check the name, or unset AWS_PROFILE to use the other sources`;
}

/**
 * Neither `AWS_PROFILE` nor the environment's keys: the SDK then takes
 * profile `default` from the shared files, and passes over a file it cannot
 * read, or one whose profiles all have other names, in silence. Both were
 * seen as "no credentials were found" by a cron job started as another user
 * (a root-owned `~/.aws/credentials`) or one that did not export
 * `AWS_PROFILE`. When the files hold no profile, or do not exist, says
 * that nothing at all was set for this run.
 */
function defaultProfileHint(env: NodeJS.ProcessEnv): string | undefined {
  const files = sharedFiles(env);
  const unreadable = unreadableHint(files);
  const lead = 'AWS_PROFILE is not set, so the SDK looks for profile [default] in the shared AWS files';
  if (unreadable !== undefined) return `${lead}, but ${unreadable}`;
  const profiles = [...new Set(files.flatMap((file) => file.profiles ?? []))];
  if (profiles.length === 0) return nothingSetHint(env, files);
  const others = profiles.filter((profile) => profile !== 'default');
  // `aws configure` leaves a [default] with a region only; the keys may sit under another name.
  if (profiles.includes('default'))
    return `${lead}; they hold it, but it gave no credentials: check its keys, or its sso_*, role_arn or credential_process settings${
      others.length === 0
        ? ''
        : `, or set AWS_PROFILE to the profile to use (they also hold ${named(others)})`
    }`;
  return `${lead}, which hold no [default] but ${named(others)}: set AWS_PROFILE to the profile to use`;
}

/**
 * Neither keys, nor a profile, nor a shared file with one: where the run
 * looked, said with the home it looked in, since a cron job or a service
 * often starts with another environment and home than the shell the keys
 * were tried in.
 */
function nothingSetHint(
  env: NodeJS.ProcessEnv,
  files: readonly [SharedFile, SharedFile],
): string | undefined {
  if (envPairComplete(env)) return undefined;
  const [credentials, config] = files;
  const found = files.filter((file) => file.profiles !== undefined);
  const shared =
    found.length === 0
      ? `neither ${credentials.shown} nor ${config.shown} exists${homeOf(files)}`
      : `${found.map((file) => file.shown).join(' and ')} ${found.length === 1 ? 'holds' : 'hold'} no profile${homeOf(found)}`;
  // A file a variable names that is not there is the user's own slip, said as such.
  const variables = ['AWS_SHARED_CREDENTIALS_FILE', 'AWS_CONFIG_FILE'] as const;
  const misnamed = variables.filter(
    (_, index) => files[index]?.profiles === undefined && files[index]?.shown.startsWith('~') === false,
  );
  const advice =
    misnamed.length > 0
      ? `check the path ${misnamed.join(' and ')} ${misnamed.length === 1 ? 'names' : 'name'}, or set the keys`
      : 'a cron job or a service starts with an environment and home of its own: set the keys there, or point AWS_SHARED_CREDENTIALS_FILE at a credentials file';
  return `this run has none of them: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_PROFILE are not set, and ${shared}; ${advice}`;
}

/** Up to five profile names, quoted, and how many more. */
function named(profiles: readonly string[]): string {
  const shown = profiles.slice(0, 5).map((profile) => `'${profile}'`);
  const more = profiles.length > shown.length ? ` and ${profiles.length - shown.length} more` : '';
  return `${shown.join(', ')}${more}`;
}

/** One shared AWS file as the SDK would read it: its profiles, or why there are none. */
interface SharedFile {
  readonly path: string;
  readonly shown: string;
  /** The profiles it holds; undefined when it does not exist or cannot be read. */
  readonly profiles?: readonly string[];
  /** Why it cannot be read (`EACCES`, `EISDIR`, …); undefined when it was read or does not exist. */
  readonly unreadable?: string;
}

function sharedFiles(env: NodeJS.ProcessEnv): readonly [SharedFile, SharedFile] {
  return [
    readShared(sharedFile(env.AWS_SHARED_CREDENTIALS_FILE, 'credentials'), false),
    readShared(sharedFile(env.AWS_CONFIG_FILE, 'config'), true),
  ];
}

/** The files this user may not read, as a clause of the hint; undefined when there is none. */
function unreadableHint(files: readonly SharedFile[]): string | undefined {
  const unreadable = files.filter((file) => file.unreadable !== undefined);
  if (unreadable.length === 0) return undefined;
  const named = unreadable.map((file) =>
    file.shown.startsWith('~') ? `${file.shown} (${file.path})` : file.shown,
  );
  const causes = [...new Set(unreadable.map((file) => file.unreadable))].join(', ');
  const them = unreadable.length === 1 ? 'it' : 'them';
  return `${named.join(' and ')} cannot be read by this run (${causes}), and the SDK passes over a file it cannot read: make ${them} readable to the user the run is started as, or run as the user whose ${them === 'it' ? 'file it is' : 'files they are'}`;
}

/** `~/.aws/...` as it resolves, when the files shown that way do not exist (a cron job's home is often another). */
function homeOf(files: readonly SharedFile[]): string {
  return files.some((file) => file.shown.startsWith('~')) ? ` (~ is ${homedir()})` : '';
}

function sharedFile(
  given: string | undefined,
  name: 'credentials' | 'config',
): { readonly path: string; readonly shown: string } {
  if (given !== undefined && given !== '') return { path: given, shown: `'${given}'` };
  return { path: join(homedir(), '.aws', name), shown: `~/.aws/${name}` };
}

/** `[name]` in the credentials file; `[profile name]` (or `[default]`) in the config file. */
function readShared(file: { readonly path: string; readonly shown: string }, config: boolean): SharedFile {
  let text: string;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return code === 'ENOENT' || code === 'ENOTDIR' ? file : { ...file, unreadable: code };
  }
  const profiles: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    const header = sectionHeader(line, config);
    if (header !== undefined && header.profile !== undefined) profiles.push(header.profile);
  }
  return { ...file, profiles };
}

/**
 * A setting (`ca_bundle`) of the profile the SDK's chain reads —
 * `AWS_PROFILE`, else `default` — in the shared config file, as the AWS
 * CLI reads it: `key = value` below `[profile name]` (`[default]`).
 * Undefined when the file, the profile or the key is not there, or the
 * file cannot be read (the SDK passes over it then, and so does this).
 * `where` names it for a hint: `ca_bundle of profile 'default' in
 * ~/.aws/config`.
 */
export function profileSetting(
  key: string,
  env: NodeJS.ProcessEnv = process.env,
): { readonly value: string; readonly where: string } | undefined {
  const file = sharedFile(env.AWS_CONFIG_FILE, 'config');
  const profile = profileSet(env) ? (env.AWS_PROFILE?.trim() ?? 'default') : 'default';
  let text: string;
  try {
    text = readFileSync(file.path, 'utf8');
  } catch {
    return undefined;
  }
  let current: string | undefined;
  for (const line of text.split(/\r?\n/)) {
    const header = sectionHeader(line, true);
    if (header !== undefined) {
      current = header.profile;
      continue;
    }
    if (current !== profile) continue;
    const [name, ...rest] = line.split('=');
    if (name?.trim() !== key || rest.length === 0) continue;
    const value = rest.join('=').trim();
    if (value !== '') return { value, where: `${key} of profile '${profile}' in ${file.shown}` };
  }
  return undefined;
}

/**
 * A section header line of a shared file and the profile it opens:
 * `[name]` in the credentials file, `[profile name]` (or `[default]`) in
 * the config file; `profile` undefined for another section of the config
 * file (`[sso-session x]`). Undefined for any other line.
 */
function sectionHeader(line: string, config: boolean): { readonly profile: string | undefined } | undefined {
  const section = /^\s*\[\s*([^\]]*?)\s*\]\s*(?:[#;].*)?$/.exec(line)?.[1];
  if (section === undefined) return undefined;
  return { profile: config && section !== 'default' ? /^profile\s+(.+)$/.exec(section)?.[1] : section };
}
