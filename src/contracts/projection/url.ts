import { refuseContract } from '../authoring/refusals.js';
import type { TextContext } from '../authoring/text.js';

/**
 * RFC 3986 normalization of authoritative definition links: scheme and host
 * lowercased, default ports and empty ports dropped, percent-encodings of
 * unreserved characters decoded and the rest uppercased (in one pass, so
 * nothing is ever percent-decoded twice), dot segments removed, an empty path
 * written as "/". IPv6 literals take their RFC 5952 form; a zone identifier
 * (RFC 6874, introduced by "%25") is kept exactly, so fe80::1%25eth0,
 * fe80::1%25eth1 and a zone named "25" (…%2525) all stay distinct. Only
 * http and https are accepted, and user information (a possible credential)
 * is refused rather than stripped.
 */
export function normalizeUrl(input: string, site: TextContext): string {
  const invalid = () => refuseContract('contract_url_invalid', site);
  if (input.length === 0 || input.length > 2048 || !URI_CHARS.test(input) || BAD_PERCENT.test(input)) {
    throw invalid();
  }
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(input);
  if (schemeMatch === null) throw invalid();
  const scheme = (schemeMatch[1] as string).toLowerCase();
  const defaultPort = DEFAULT_PORTS[scheme];
  if (defaultPort === undefined) throw refuseContract('contract_url_unsupported', site);
  const rest = input.slice(schemeMatch[0].length);
  if (!rest.startsWith('//')) throw invalid();

  const afterSlashes = rest.slice(2);
  const authorityEnd = afterSlashes.search(/[/?#]/);
  const authority = authorityEnd === -1 ? afterSlashes : afterSlashes.slice(0, authorityEnd);
  const remainder = authorityEnd === -1 ? '' : afterSlashes.slice(authorityEnd);
  if (authority.includes('@')) throw refuseContract('contract_url_credentials', site);

  let host: string;
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close === -1) throw invalid();
    host = `[${normalizeIpLiteral(authority.slice(1, close), site)}]`;
    const after = authority.slice(close + 1);
    if (after !== '' && !after.startsWith(':')) throw invalid();
    portText = after === '' ? undefined : after.slice(1);
  } else {
    const colon = authority.indexOf(':');
    host = normalizeRegName(colon === -1 ? authority : authority.slice(0, colon), site);
    portText = colon === -1 ? undefined : authority.slice(colon + 1);
  }
  const port = normalizePort(portText, defaultPort, site);

  const hash = remainder.indexOf('#');
  const beforeFragment = hash === -1 ? remainder : remainder.slice(0, hash);
  const fragment = hash === -1 ? undefined : remainder.slice(hash + 1);
  const question = beforeFragment.indexOf('?');
  const rawPath = question === -1 ? beforeFragment : beforeFragment.slice(0, question);
  const query = question === -1 ? undefined : beforeFragment.slice(question + 1);
  for (const part of [rawPath, query ?? '', fragment ?? '']) {
    if (/[[\]]/.test(part)) throw invalid();
  }
  if (fragment?.includes('#')) throw invalid();

  let path = removeDotSegments(normalizePercent(rawPath));
  if (path === '') path = '/';
  return (
    `${scheme}://${host}${port === undefined ? '' : `:${port}`}${path}` +
    `${query === undefined ? '' : `?${normalizePercent(query)}`}` +
    `${fragment === undefined ? '' : `#${normalizePercent(fragment)}`}`
  );
}

const URI_CHARS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/** One left-to-right pass: each %XY is looked at exactly once, output is never rescanned. */
export function normalizePercent(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (ch === '%') {
      const hex = text.slice(i + 1, i + 3).toUpperCase();
      const decoded = String.fromCharCode(Number.parseInt(hex, 16));
      out += UNRESERVED.test(decoded) ? decoded : `%${hex}`;
      i += 2;
    } else {
      out += ch;
    }
  }
  return out;
}

/** RFC 3986 §5.2.4. */
export function removeDotSegments(path: string): string {
  let input = path;
  const output: string[] = [];
  while (input.length > 0) {
    if (input.startsWith('../')) input = input.slice(3);
    else if (input.startsWith('./')) input = input.slice(2);
    else if (input.startsWith('/./')) input = input.slice(2);
    else if (input === '/.') input = '/';
    else if (input.startsWith('/../')) {
      input = input.slice(3);
      output.pop();
    } else if (input === '/..') {
      input = '/';
      output.pop();
    } else if (input === '.' || input === '..') input = '';
    else {
      const next = input.indexOf('/', input.startsWith('/') ? 1 : 0);
      const segment = next === -1 ? input : input.slice(0, next);
      output.push(segment);
      input = next === -1 ? '' : input.slice(next);
    }
  }
  return output.join('');
}

function normalizePort(text: string | undefined, defaultPort: string, site: TextContext): string | undefined {
  if (text === undefined || text === '') return undefined;
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 65_535) throw refuseContract('contract_url_invalid', site);
  const port = String(Number(text));
  return port === defaultPort ? undefined : port;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

function normalizeRegName(text: string, site: TextContext): string {
  const host = text.toLowerCase();
  const labels = host.split('.');
  if (host.length === 0 || host.length > 253 || !labels.every((label) => LABEL.test(label))) {
    throw refuseContract('contract_url_invalid', site);
  }
  // A host whose last label is numeric is an IPv4 address to every resolver;
  // only the canonical dotted-quad form is accepted (no octal, hex or short forms).
  const last = labels[labels.length - 1] as string;
  if (/^[0-9]/.test(last)) {
    const ipv4 =
      labels.length === 4 &&
      labels.every((label) => /^(?:0|[1-9][0-9]{0,2})$/.test(label) && Number(label) <= 255);
    if (!ipv4) throw refuseContract('contract_url_invalid', site);
  }
  return host;
}

const ZONE = /^(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+$/;

function normalizeIpLiteral(literal: string, site: TextContext): string {
  const invalid = () => refuseContract('contract_url_invalid', site);
  if (/^[vV]/.test(literal)) throw refuseContract('contract_url_unsupported', site);
  const percent = literal.indexOf('%');
  let zone = '';
  let address = literal;
  if (percent !== -1) {
    // RFC 6874: the zone delimiter is the encoded percent "%25". A bare "%"
    // followed by a zone is the pre-RFC form, ambiguous with it: refused.
    if (literal.slice(percent, percent + 3) !== '%25') throw invalid();
    const zoneText = literal.slice(percent + 3);
    if (!ZONE.test(zoneText)) throw invalid();
    zone = `%25${normalizePercent(zoneText)}`;
    address = literal.slice(0, percent);
  }
  const groups = parseIpv6(address);
  if (groups === undefined) throw invalid();
  return formatIpv6(groups) + zone;
}

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((part) => (/^(?:0|[1-9][0-9]{0,2})$/.test(part) ? Number(part) : Number.NaN));
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

export function parseIpv6(text: string): number[] | undefined {
  const lower = text.toLowerCase();
  const doubleColon = lower.indexOf('::');
  if (doubleColon !== -1 && lower.indexOf('::', doubleColon + 1) !== -1) return undefined;
  const parseSide = (side: string): number[] | undefined => {
    if (side === '') return [];
    const pieces = side.split(':');
    const groups: number[] = [];
    for (const [index, piece] of pieces.entries()) {
      if (index === pieces.length - 1 && piece.includes('.')) {
        const ipv4 = parseIpv4(piece);
        if (ipv4 === undefined) return undefined;
        groups.push(
          ((ipv4[0] as number) << 8) | (ipv4[1] as number),
          ((ipv4[2] as number) << 8) | (ipv4[3] as number),
        );
      } else {
        if (!/^[0-9a-f]{1,4}$/.test(piece)) return undefined;
        groups.push(Number.parseInt(piece, 16));
      }
    }
    return groups;
  };
  if (doubleColon === -1) {
    const groups = parseSide(lower);
    return groups?.length === 8 ? groups : undefined;
  }
  const head = parseSide(lower.slice(0, doubleColon));
  const tail = parseSide(lower.slice(doubleColon + 2));
  if (head === undefined || tail === undefined || head.length + tail.length > 7) return undefined;
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}

/** RFC 5952: lowercase, no leading zeros, the longest (first) run of two or more zero groups as "::". */
export function formatIpv6(groups: readonly number[]): string {
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (mapped) {
    const high = groups[6] as number;
    const low = groups[7] as number;
    return `::ffff:${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  }
  let bestStart = -1;
  let bestLength = 0;
  for (let start = 0; start < 8; ) {
    if (groups[start] !== 0) {
      start += 1;
      continue;
    }
    let end = start;
    while (end < 8 && groups[end] === 0) end += 1;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}
