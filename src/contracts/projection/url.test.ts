import { describe, expect, it } from 'vitest';
import { Refusal } from '../../core/refusal/index.js';
import { formatIpv6, normalizePercent, normalizeUrl, parseIpv6, removeDotSegments } from './url.js';

const SITE = { role: 'source', field: 'fields[].authoritative_definitions' };
const normalize = (url: string) => normalizeUrl(url, SITE);

function code(url: string): string {
  try {
    normalize(url);
  } catch (error: unknown) {
    if (error instanceof Refusal) return error.code;
    throw error;
  }
  return 'accepted';
}

describe('authoritative definition URL normalization', () => {
  it.each([
    // scheme and host case, default and empty ports
    ['HTTPS://Docs.Example.COM/Terms', 'https://docs.example.com/Terms'],
    ['http://docs.example:80/a', 'http://docs.example/a'],
    ['https://docs.example:443/a', 'https://docs.example/a'],
    ['https://docs.example:/a', 'https://docs.example/a'],
    ['https://docs.example:8443/a', 'https://docs.example:8443/a'],
    ['https://docs.example:0443/a', 'https://docs.example/a'],
    ['http://docs.example:443/a', 'http://docs.example:443/a'],
    // empty path, dot segments
    ['https://docs.example', 'https://docs.example/'],
    ['https://docs.example/a/./b/../c', 'https://docs.example/a/c'],
    ['https://docs.example/a/b/../../../c', 'https://docs.example/c'],
    ['https://docs.example/a/%2E%2E/b', 'https://docs.example/b'],
    ['https://docs.example/a/.hidden', 'https://docs.example/a/.hidden'],
    // percent-encoding: unreserved decoded, the rest uppercased, never decoded twice
    ['https://docs.example/%7euser/%41%62', 'https://docs.example/~user/Ab'],
    ['https://docs.example/a%2fb', 'https://docs.example/a%2Fb'],
    ['https://docs.example/%2541', 'https://docs.example/%2541'],
    ['https://docs.example/%252541', 'https://docs.example/%252541'],
    ['https://docs.example/q?x=%3d%41#f%7e', 'https://docs.example/q?x=%3DA#f~'],
    // query and fragment are kept, even empty
    ['https://docs.example/?', 'https://docs.example/?'],
    ['https://docs.example/#', 'https://docs.example/#'],
    // IPv4 and IPv6 literals (RFC 5952 form)
    ['http://192.168.0.1:80/x', 'http://192.168.0.1/x'],
    ['http://[2001:DB8:0:0:0:0:0:1]/x', 'http://[2001:db8::1]/x'],
    ['http://[2001:db8:0:0:1:0:0:1]/', 'http://[2001:db8::1:0:0:1]/'],
    ['http://[0:0:0:0:0:0:0:0]/', 'http://[::]/'],
    ['http://[::FFFF:192.0.2.1]/', 'http://[::ffff:192.0.2.1]/'],
    ['http://[2001:db8::0:1]:8080/', 'http://[2001:db8::1]:8080/'],
    // IPv6 zone identifiers (RFC 6874): kept exactly, decoded once, distinct from each other
    ['http://[FE80::1%25eth0]/', 'http://[fe80::1%25eth0]/'],
    ['http://[fe80::1%25Eth0]/', 'http://[fe80::1%25Eth0]/'],
    ['http://[fe80::1%2525]/', 'http://[fe80::1%2525]/'],
    ['http://[fe80::1%25%32%35]/', 'http://[fe80::1%2525]/'],
    ['http://[fe80::1%252541]/', 'http://[fe80::1%252541]/'],
    ['http://[fe80::1%25%2541]/', 'http://[fe80::1%25%2541]/'],
    ['http://[fe80::1%2525eth0]:80/', 'http://[fe80::1%2525eth0]/'],
    ['http://[fe80::1%25en%30]/', 'http://[fe80::1%25en0]/'],
  ])('%s → %s', (input, expected) => {
    expect(normalize(input)).toBe(expected);
    // Normalization is idempotent: a normalized link is its own normal form.
    expect(normalize(expected)).toBe(expected);
  });

  it('keeps zones that begin with 25 distinct from each other and from the bare address', () => {
    const forms = [
      'http://[fe80::1]/',
      'http://[fe80::1%2525]/',
      'http://[fe80::1%25251]/',
      'http://[fe80::1%252525]/',
      'http://[fe80::1%25%2525]/',
      'http://[fe80::1%2525%25]/',
    ].map(normalize);
    expect(new Set(forms).size).toBe(forms.length);
  });

  it.each([
    ['ftp://docs.example/x', 'contract_url_unsupported'],
    ['mailto:team@docs.example', 'contract_url_unsupported'],
    ['javascript:alert(1)', 'contract_url_unsupported'],
    ['http://[v1.fe80::a]/', 'contract_url_unsupported'],
    ['https://user:secret@docs.example/', 'contract_url_credentials'],
    ['https://@docs.example/', 'contract_url_credentials'],
    ['docs.example/x', 'contract_url_invalid'],
    ['https:docs.example', 'contract_url_invalid'],
    ['https://docs example/', 'contract_url_invalid'],
    ['https://dócs.example/', 'contract_url_invalid'],
    ['https://docs.example/%zz', 'contract_url_invalid'],
    ['https://docs.example/%4', 'contract_url_invalid'],
    ['https:///path', 'contract_url_invalid'],
    ['https://docs.example:99999/', 'contract_url_invalid'],
    ['https://docs.example:8a/', 'contract_url_invalid'],
    ['https://-docs.example/', 'contract_url_invalid'],
    ['https://docs..example/', 'contract_url_invalid'],
    ['http://010.0.0.1/', 'contract_url_invalid'],
    ['http://0x7f.0.0.1/', 'contract_url_invalid'],
    ['http://127.1/', 'contract_url_invalid'],
    ['http://256.0.0.1/', 'contract_url_invalid'],
    ['http://[fe80::1%eth0]/', 'contract_url_invalid'],
    ['http://[fe80::1%25]/', 'contract_url_invalid'],
    ['http://[fe80::1%25eth 0]/', 'contract_url_invalid'],
    ['http://[fe80::1%25eth0/', 'contract_url_invalid'],
    ['http://[fe80::1::2]/', 'contract_url_invalid'],
    ['http://[1:2:3:4:5:6:7:8:9]/', 'contract_url_invalid'],
    ['http://[12345::1]/', 'contract_url_invalid'],
    ['http://[::1]x/', 'contract_url_invalid'],
    ['https://docs.example/a[b]', 'contract_url_invalid'],
    ['https://docs.example/#a#b', 'contract_url_invalid'],
    ['', 'contract_url_invalid'],
  ])('refuses %s with %s', (input, expected) => {
    expect(code(input)).toBe(expected);
  });

  it('percent-normalizes in one pass', () => {
    expect(normalizePercent('%25%34%31')).toBe('%25' + '41');
    expect(normalizePercent('%2a%7E')).toBe('%2A~');
  });

  it('removes dot segments as RFC 3986 §5.2.4 does (its examples)', () => {
    expect(removeDotSegments('/a/b/c/./../../g')).toBe('/a/g');
    expect(removeDotSegments('mid/content=5/../6')).toBe('mid/6');
  });

  it('formats IPv6 as RFC 5952 prescribes', () => {
    const format = (text: string) => formatIpv6(parseIpv6(text) ?? []);
    expect(format('2001:db8:0:0:0:0:2:1')).toBe('2001:db8::2:1');
    expect(format('2001:db8:0:1:1:1:1:1')).toBe('2001:db8:0:1:1:1:1:1');
    expect(format('2001:0:0:1:0:0:0:1')).toBe('2001:0:0:1::1');
    expect(format('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(format('::1')).toBe('::1');
    expect(format('1::')).toBe('1::');
  });
});
