import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import type { Refusal } from '../../../core/refusal/index.js';
import type { S3DestinationConfig } from '../../config/types.js';
import { refuseDistributor } from '../../refusals.js';
import { profileSetting } from './profile.js';

/**
 * The certificates a destination's TLS connections trust when a CA bundle
 * is named (docs/distributor.md#credentials): by `AWS_CA_BUNDLE`, else by
 * `ca_bundle` in the profile of the shared config file, in that order, as
 * the AWS CLI and the other AWS SDKs read them; the JavaScript SDK reads
 * neither, so a store behind a company CA that the AWS CLI reached was
 * refused as "self-signed" here. Its certificates are trusted beside Node's
 * own roots and those of `NODE_EXTRA_CA_CERTS` (which an agent given its
 * own list would otherwise drop). Undefined when none is named, or for an
 * `http://` endpoint (in the file, or from `AWS_ENDPOINT_URL_S3` or
 * `AWS_ENDPOINT_URL` without one there), which has no TLS; a refusal when the file cannot be
 * read or holds no PEM certificate, rather than a silent fall back to the
 * default roots that would end in a certificate error naming another cause.
 */
export function trustedCertificates(
  config: S3DestinationConfig,
  env: NodeJS.ProcessEnv = process.env,
): readonly string[] | Refusal | undefined {
  const named = caBundleNamed(env);
  if (named === undefined) return undefined;
  // The endpoint the SDK will use: the file's, else the one it takes from the environment.
  const endpoint = config.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  if (endpoint?.trim().toLowerCase().startsWith('http://') === true) return undefined;
  let pem: string;
  try {
    pem = readFileSync(named.path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    return caRefusal(
      `the file ${named.by} names cannot be read by this run (${code}): point ${named.setting} at the CA bundle the store's certificate is signed by, readable by the user the run is started as, or ${named.undo}`,
    );
  }
  if (!pem.includes(PEM_CERTIFICATE))
    return caRefusal(
      `the file ${named.by} names holds no PEM certificate ('${PEM_CERTIFICATE}'): point it at the CA bundle in PEM form, or ${named.undo}`,
    );
  return [...rootCertificates, pem, ...extraCertificates(env)];
}

/** The CA bundle named, and how a hint names the setting that names it. */
function caBundleNamed(
  env: NodeJS.ProcessEnv,
):
  | { readonly path: string; readonly by: string; readonly setting: string; readonly undo: string }
  | undefined {
  const fromEnv = env.AWS_CA_BUNDLE?.trim();
  if (fromEnv !== undefined && fromEnv !== '')
    return { path: fromEnv, by: 'AWS_CA_BUNDLE', setting: 'AWS_CA_BUNDLE', undo: 'unset it' };
  const fromProfile = profileSetting('ca_bundle', env);
  if (fromProfile === undefined) return undefined;
  return { path: fromProfile.value, by: fromProfile.where, setting: 'it', undo: 'remove the line' };
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

function caRefusal(hint: string): Refusal {
  return refuseDistributor('destination_unreachable', { role: 'destination', hint });
}

/** `NODE_EXTRA_CA_CERTS` as Node read it at start-up (it warned already if it could not). */
function extraCertificates(env: NodeJS.ProcessEnv): readonly string[] {
  const extra = env.NODE_EXTRA_CA_CERTS?.trim();
  if (extra === undefined || extra === '') return [];
  try {
    return [readFileSync(extra, 'utf8')];
  } catch {
    return [];
  }
}
