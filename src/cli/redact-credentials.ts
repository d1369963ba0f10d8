import type { CliIo } from './command.js';

/**
 * A URL in printed text, from its scheme to the first white space or quote:
 * the unit within which a password is looked for.
 */
const URL_TOKEN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`]*/gi;
/** `scheme://user:`: where the userinfo's password starts. */
const USER_COLON = /^([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:'"`]*):/i;
/** A `password=` parameter of the query (libpq and sealkit's --ledger read it too). */
const PASSWORD_PARAMETER = /([?&;]password=)[^&#;]*/gi;

/**
 * The passwords of URLs in printed text. A URL reaches output only by
 * mistake (a ledger URL given where a folder was expected, an endpoint
 * echoed in a refusal), so every string sealkit prints goes through this,
 * as the last guard behind the rule that no password is ever printed
 * (docs/cli.md#output). A password typed without percent-encoding may hold
 * `/ ? # @`, so everything from `user:` to the URL's last `@` is masked
 * (more than the password when a path holds an `@`: masking too much is
 * the safe side), and so is every `password=` value of the query.
 */
export function redactUrlPasswords(text: string): string {
  if (!text.includes('://')) return text;
  return text.replace(URL_TOKEN, (url) => {
    let masked = url;
    const user = USER_COLON.exec(masked);
    const lastAt = masked.lastIndexOf('@');
    if (user !== null && lastAt > (user[0]?.length ?? 0) - 1) {
      masked = `${user[1]}:***${masked.slice(lastAt)}`;
    }
    return masked.replace(PASSWORD_PARAMETER, '$1***');
  });
}

/** A stream whose string writes have URL passwords masked; bytes (byte-exact outputs) pass as they are. */
function redacting(stream: NodeJS.WritableStream): NodeJS.WritableStream {
  return new Proxy(stream, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (property === 'write' && typeof value === 'function') {
        return (chunk: unknown, ...rest: unknown[]) =>
          Reflect.apply(value, target, [
            typeof chunk === 'string' ? redactUrlPasswords(chunk) : chunk,
            ...rest,
          ]);
      }
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

export function redactingIo(io: CliIo): CliIo {
  return { stdin: io.stdin, stdout: redacting(io.stdout), stderr: redacting(io.stderr) };
}
